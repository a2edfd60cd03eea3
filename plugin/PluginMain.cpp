//===--- PluginMain.cpp - libtorch-tidy clang-tidy plugin -----------------===//
//
// Entry point of LibTorchTidyModule.so, loaded by `clang-tidy --load`. The
// plugin uses clang-tidy's C++ classes, which have no stable ABI: loaded by a
// clang-tidy of another major version it would corrupt memory. So before
// anything registers, it asks the host for its LLVM version through the C API
// (stable across versions) and refuses, with one line and exit code 2, unless
// the major versions match.
//
//===----------------------------------------------------------------------===//

#include "TorchTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

namespace torchtidy {
namespace {

using GetVersionFn = void (*)(unsigned *, unsigned *, unsigned *);

// The LLVM major version of the host; 0 when it cannot be told.
unsigned hostLLVMMajor() {
  // LLVMGetVersion exists since LLVM 16.
  if (auto *Fn = reinterpret_cast<GetVersionFn>(
          dlsym(RTLD_DEFAULT, "LLVMGetVersion"))) {
    unsigned Major = 0, Minor = 0, Patch = 0;
    Fn(&Major, &Minor, &Patch);
    return Major;
  }
  // Older hosts: the soname of the libLLVM they loaded (libLLVM-14.so.1).
  unsigned Major = 0;
  dl_iterate_phdr(
      [](struct dl_phdr_info *Info, size_t, void *Data) {
        const char *Base = std::strrchr(Info->dlpi_name, '/');
        Base = Base ? Base + 1 : Info->dlpi_name;
        unsigned Found = 0;
        if (std::sscanf(Base, "libLLVM-%u", &Found) == 1 ||
            std::sscanf(Base, "libLLVM.so.%u", &Found) == 1) {
          *static_cast<unsigned *>(Data) = Found;
          return 1;
        }
        return 0;
      },
      &Major);
  return Major;
}

void refuse(const char *Text) {
  // No stdio buffering, no static destructors: the host is in an unknown
  // state and must not run any of our code further.
  ssize_t Ignored = write(STDERR_FILENO, Text, std::strlen(Text));
  (void)Ignored;
  _exit(2);
}

__attribute__((constructor)) void registerTorchModule() {
  unsigned Host = hostLLVMMajor();
  if (Host != LIBTORCH_TIDY_LLVM_MAJOR &&
      !std::getenv("LIBTORCH_TIDY_SKIP_VERSION_CHECK")) {
    char Text[512];
    if (Host == 0)
      std::snprintf(Text, sizeof(Text),
                    "error: LibTorchTidyModule was built for clang-tidy %d "
                    "and cannot tell the version of the clang-tidy loading "
                    "it; use clang-tidy-%d or the libtorch-tidy driver\n",
                    LIBTORCH_TIDY_LLVM_MAJOR, LIBTORCH_TIDY_LLVM_MAJOR);
    else
      std::snprintf(Text, sizeof(Text),
                    "error: LibTorchTidyModule was built for clang-tidy %d "
                    "but is loaded by clang-tidy %u; use clang-tidy-%d or "
                    "the libtorch-tidy driver\n",
                    LIBTORCH_TIDY_LLVM_MAJOR, Host, LIBTORCH_TIDY_LLVM_MAJOR);
    refuse(Text);
  }
  static clang::tidy::ClangTidyModuleRegistry::Add<
      clang::tidy::torch::TorchModule>
      Registration(clang::tidy::torch::ModuleName,
                   clang::tidy::torch::ModuleDescription);
}

} // namespace
} // namespace torchtidy
