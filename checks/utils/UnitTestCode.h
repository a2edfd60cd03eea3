//===--- UnitTestCode.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// The code of a translation unit that only a unit-test framework runs. A
// library that keeps its tests beside its code (doctest's TEST_CASE in the
// source file, a GoogleTest file in the project) runs them on small CPU
// inputs to check results, not to train: performance advice there is noise.
// A test is known by what registers it, not by its name: a function whose
// address is handed to doctest's, Catch2's or Boost.Test's registry, and the
// member functions of a GoogleTest fixture (a class derived from
// testing::Test). A function of internal linkage that only such code uses
// is test code too (doctest's helpers are `static` functions).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_UNITTESTCODE_H
#define LIBTORCH_TIDY_CHECKS_UTILS_UNITTESTCODE_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch::utils {

class UnitTestCode {
public:
  /// Finds the unit tests of \p Ctx; cheap when no test framework's
  /// namespace is declared.
  explicit UnitTestCode(ASTContext &Ctx);

  /// Whether \p Loc (its expansion) lies in a unit test's definition.
  bool contains(SourceLocation Loc) const;

  bool empty() const { return Ranges.empty(); }

private:
  const SourceManager &SM;
  /// The file ranges of the test definitions.
  struct Range {
    FileID File;
    unsigned Begin;
    unsigned End;
  };
  llvm::SmallVector<Range, 8> Ranges;
};

/// Whether \p FD is a test or benchmark framework's main(): one that runs
/// registered tests (doctest's, Catch2's, GoogleTest's, Boost.Test's) or
/// Google Benchmark's benchmarks. A project whose only main() is one is a
/// library: the programs that use it, and pick its device, are elsewhere.
bool isTestRunnerMain(const FunctionDecl *FD);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_UNITTESTCODE_H
