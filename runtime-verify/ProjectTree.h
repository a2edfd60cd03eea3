//===--- ProjectTree.h - libtorch-tidy-verify -------------------*- C++ -*-===//
//
// Program mode's scratch builds of the user's project. The user's source
// tree and build directory are only read: the source tree is copied into the
// run's temporary directory (without .git and build directories) and the
// baseline is configured there with the user's CMake cache variables and
// built. Each variant starts as a copy of the built baseline (sources and
// build directory, times kept), gets its fix-its applied (FixitApplier.h:
// what the driver's --apply-fixits does, without LLVM) and is rebuilt, so
// that only the translation units its fix-its touch compile.
//
// Every variant is built under one path, a symbolic link re-pointed to the
// variant being built: the build files name that path, and the copies stay
// valid with nothing to regenerate. The baseline precompiles LibTorch's
// headers (PrecompiledHeaders.h) and the variants share that PCH, so that a
// rebuild compiles the user's code, not LibTorch's headers again. No
// LibTorch and no LLVM here.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PROJECTTREE_H
#define LIBTORCH_TIDY_VERIFY_PROJECTTREE_H

#include "ErrorOr.h"
#include "PrecompiledHeaders.h"
#include "Process.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace torchtidy {

/// One cache entry of CMakeCache.txt: NAME:TYPE=VALUE.
struct CacheEntry {
  std::string Name, Type, Value;
};

/// What a configured CMake build directory says of its project.
struct CMakeProject {
  std::string SourceDir, BuildDir, Generator;
  std::vector<CacheEntry> Cache; ///< the entries a user can set
};

/// Reads BUILD_DIR/CMakeCache.txt: the source directory, the generator and
/// the cache entries that are not INTERNAL or STATIC.
ErrorOr<CMakeProject> readCMakeCache(const std::string &BuildDir);

/// The cache entries as a CMake script for `cmake -C`, each value with the
/// user's source and build directories replaced by \p Source and \p Build.
std::string initialCacheScript(const CMakeProject &P,
                               const std::string &Source,
                               const std::string &Build);

/// One replacement of a fix-it, in bytes of the user's file.
struct Edit {
  std::string File;
  long long Offset = 0, Length = 0;
  std::string Text;
};

/// How the project is built: CMake, or a command of the user's.
struct BuildSetup {
  CMakeProject Project; ///< SourceDir is set either way
  std::string BuildCommand; ///< --build-command, or "" for CMake
  double Timeout = 1800;    ///< seconds a configure or build may take
  /// Precompile LibTorch's headers in the scratch build (CMake only).
  bool PrecompileTorch = true;
  /// Precompile them whatever the compiler, not only with Clang.
  bool PchAnyCompiler = false;
  /// Where builds run (probeBuildNamespace): the configure step, which may
  /// download, runs outside it.
  Sandbox BuildBox;
};

/// How the scratch builds use precompiled LibTorch headers
/// (PrecompiledHeaders.h).
struct PchState {
  bool Used = false; ///< the baseline was built with them
  /// Why not, or that the baseline failed with them and was built without.
  std::string Note;
  std::vector<PchTarget> Targets;
  std::vector<PchSkip> Skipped; ///< sources that include LibTorch late
};

/// One precompiled header every variant shares: the baseline's, moved to
/// Root/pch and linked back, so that a variant's copy costs no disk.
struct SharedPch {
  std::string Path; ///< in Root/pch
  std::string Link; ///< where the build expects it, relative to the variant
  uintmax_t Size = 0;
  long long Time = 0; ///< its modification time, in the clock's ticks
};

/// The scratch builds of one verifier run, under \p Root (the run's
/// temporary directory): Root/v0 the baseline, Root/vK variant K, each with
/// src/ and build/; Root/cur the path every build uses.
class ScratchTree {
public:
  ScratchTree(std::string Root, BuildSetup Setup);

  /// Copies the source tree, configures (CMake) and builds the baseline;
  /// the build's seconds, or the first error.
  ErrorOr<double> buildBaseline();
  /// Variant \p K (1, 2, ...): a copy of the built baseline with \p Edits
  /// applied, rebuilt; the build's seconds, or why it failed (the fix-its
  /// could not be applied, the compiler's first error).
  ErrorOr<double> buildVariant(int K, const std::vector<Edit> &Edits);

  std::string variantDir(int K) const;
  std::string sourceDir(int K) const { return variantDir(K) + "/src"; }
  std::string buildDir(int K) const { return variantDir(K) + "/build"; }
  /// Whether the last failure was the compiler's (compile-error) rather
  /// than the fix-its' (fix-error).
  bool lastFailureCompiled() const { return CompileFailed; }

  const PchState &pch() const { return Pch; }
  /// How the baseline (\p Variant false) or a variant was built, for the
  /// report: "incremental rebuild with precompiled LibTorch headers", ...
  std::string buildMethod(bool Variant) const;

private:
  std::string Root;
  BuildSetup Setup;
  bool CompileFailed = false;
  bool Hooked = false; ///< the last configure used the PCH hook
  PchState Pch;
  std::vector<SharedPch> Shared;

  std::string current() const { return Root + "/cur"; }
  ErrorOr<bool> pointCurrentAt(int K);
  ErrorOr<bool> configure(bool WithPch);
  /// The hook for CMAKE_PROJECT_INCLUDE, or "" when no source can use it.
  std::string writePchHook(const std::string &UserInclude);
  ErrorOr<double> build();
  ErrorOr<double> configureAndBuild(bool WithPch);
  void sharePch();
  ErrorOr<bool> privatizePch(int K, const std::vector<Edit> &Edits);
  ErrorOr<bool> checkSharedPch() const;
  ErrorOr<bool> applyEdits(int K, const std::vector<Edit> &Edits);
};

/// \p Command with {build} and {source} replaced.
std::string withPlaceholders(std::string Command, const std::string &Build,
                             const std::string &Source);

/// The first line of a build's output that reports an error, else its last
/// non-empty line.
std::string firstError(const std::string &Output);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_PROJECTTREE_H
