//===--- LibTorchClangdMain.cpp - clangd with the torch checks ------------===//
//
// clangd 19 with the torch-* checks linked in. clangd cannot load clang-tidy
// plugins (clangd/clangd#1458), but it finds checks through the same
// ClangTidyModuleRegistry as clang-tidy: registering the module here is all it
// takes for torch-* diagnostics and their fix-its to show up in an editor.
// The checks read the project index of the file's build directory, once
// `libtorch-tidy -p BUILD_DIR --update-index` (or a whole-project run) made
// it, as libtorch-tidy's single-file runs with -p do (docs/project-index.md).
//
//===----------------------------------------------------------------------===//

#include "TorchTidyModule.h"
#include "cache/AnalysisCache.h"
#include "project/IndexBuild.h"
#include "utils/ProjectIndex.h"
#include "utils/ProjectIndexFinder.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace torchtidy {
static clang::tidy::ClangTidyModuleRegistry::Add<clang::tidy::torch::TorchModule>
    Registration(clang::tidy::torch::ModuleName,
                 clang::tidy::torch::ModuleDescription);

namespace {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

/// --compile-commands-dir's directory, when given.
std::string CompileCommandsDir;

/// The build directory clangd takes \p File's compile command from: the
/// --compile-commands-dir, else the nearest folder above the file with a
/// compile_commands.json, in it or in its build/ (as clangd looks); "" when
/// a compile_flags.txt comes first or none is found.
std::string buildDirOf(llvm::StringRef File) {
  if (!CompileCommandsDir.empty())
    return CompileCommandsDir;
  for (llvm::StringRef Dir = path::parent_path(File); !Dir.empty();
       Dir = path::parent_path(Dir)) {
    llvm::SmallString<256> Build(Dir);
    path::append(Build, "compile_commands.json");
    if (fs::exists(Build))
      return Dir.str();
    Build = Dir;
    path::append(Build, "build", "compile_commands.json");
    if (fs::exists(Build))
      return path::parent_path(Build).str();
    Build = Dir;
    path::append(Build, "compile_flags.txt");
    if (fs::exists(Build))
      return "";
  }
  return "";
}

/// The index `libtorch-tidy -p BUILD_DIR --update-index` made for \p File's
/// build directory in the default cache directory ($LIBTORCH_TIDY_CACHE_DIR
/// or the user's cache), when there is one: the checks then read it as in
/// a single-file run of libtorch-tidy with -p.
/// Says in clangd's log, once per index and reason, why the checks will not
/// use the index at \p Index for \p File (a file changed since it was
/// made): editors show no diagnostic without a place.
std::string saidUnused(const std::string &Index, llvm::StringRef File) {
  std::string Why;
  if (clang::tidy::torch::utils::loadProjectIndex(Index, File, Why))
    return Index;
  static std::mutex Lock;
  static llvm::StringSet<> Said;
  std::lock_guard<std::mutex> Guard(Lock);
  if (Said.insert(Index + "\n" + Why).second)
    llvm::errs() << "libtorch-clangd: the project index was not used: " << Why
                 << "; run 'libtorch-tidy -p BUILD_DIR --update-index'\n";
  return Index;
}

std::string indexOf(llvm::StringRef File) {
  std::string Build = buildDirOf(File);
  if (Build.empty())
    return "";
  std::string Index = indexPathFor(defaultCacheDir(), Build);
  if (fs::exists(Index))
    return saidUnused(Index, File);
  // The editor may name the file through a symbolic link that the -p of
  // the run that made the index did not go through.
  llvm::SmallString<256> Real;
  if (fs::real_path(Build, Real) || Real == Build)
    return "";
  Index = indexPathFor(defaultCacheDir(), Real);
  return fs::exists(Index) ? saidUnused(Index, File) : "";
}

/// The value of clangd's --compile-commands-dir in \p Args, or "".
std::string compileCommandsDir(llvm::ArrayRef<char *> Args) {
  std::string Dir;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A = llvm::StringRef(Args[I]).ltrim('-');
    if (A.consume_front("compile-commands-dir")) {
      if (A.consume_front("="))
        Dir = A.str();
      else if (A.empty() && I + 1 < Args.size())
        Dir = Args[++I];
    }
  }
  if (Dir.empty())
    return "";
  llvm::SmallString<256> Abs(Dir);
  fs::make_absolute(Abs);
  path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return Abs.str().str();
}

} // namespace

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
  torchtidy::CompileCommandsDir =
      torchtidy::compileCommandsDir(llvm::ArrayRef(argv + 1, argc - 1));
  clang::tidy::torch::utils::setProjectIndexFinder(torchtidy::indexOf);
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
