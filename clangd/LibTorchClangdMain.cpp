//===--- LibTorchClangdMain.cpp - clangd with the torch checks ------------===//
//
// clangd 19 with the torch-* checks linked in. clangd cannot load clang-tidy
// plugins (clangd/clangd#1458), but it finds checks through the same
// ClangTidyModuleRegistry as clang-tidy: registering the module here is all it
// takes for torch-* diagnostics and their fix-its to show up in an editor.
//
//===----------------------------------------------------------------------===//

#include "TorchTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <vector>

namespace torchtidy {
static clang::tidy::ClangTidyModuleRegistry::Add<clang::tidy::torch::TorchModule>
    Registration(clang::tidy::torch::ModuleName,
                 clang::tidy::torch::ModuleDescription);
} // namespace torchtidy

namespace clang::clangd {

class SymbolIndex;

// From libclangdMain.a; clangd installs no header for it.
int clangdMain(int argc, char *argv[]);

namespace remote {
// The only symbol clangdMain needs from the remote index library, which Debian
// builds with gRPC: defining it here keeps gRPC and protobuf (whose
// development files are not installed) out of the link. As in clangd builds
// without remote index support, --remote-index-address then yields no index.
std::unique_ptr<SymbolIndex> getClient(llvm::StringRef, llvm::StringRef) {
  return nullptr;
}
} // namespace remote

} // namespace clang::clangd

int main(int argc, char *argv[]) {
  std::vector<char *> Args(argv, argv + argc);
#ifdef LIBTORCH_CLANGD_RESOURCE_DIR
  // clangd looks for clang's builtin headers (stddef.h, the intrinsics) next
  // to its own binary, where this one has none: point it at LLVM's, unless
  // the user did.
  static char ResourceDir[] = "--resource-dir=" LIBTORCH_CLANGD_RESOURCE_DIR;
  bool UserSet = false;
  for (llvm::StringRef A : llvm::ArrayRef(argv + 1, argc - 1))
    UserSet |=
        A.starts_with("--resource-dir") || A.starts_with("-resource-dir");
  if (!UserSet)
    Args.insert(Args.begin() + 1, ResourceDir);
#endif
  Args.push_back(nullptr);
  return clang::clangd::clangdMain(static_cast<int>(Args.size()) - 1,
                                   Args.data());
}
