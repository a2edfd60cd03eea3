//===--- LibTorchHeaders.h - libtorch-tidy ----------------------*- C++ -*-===//
//
// Where LibTorch's own headers are: checks never report there.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHHEADERS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHHEADERS_H

#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch::utils {

/// True when \p Loc (its expansion, for macros) lies in a header of LibTorch
/// itself: a system header, or a file under a torch/csrc, ATen or c10
/// directory. Checks never report there.
bool isInLibTorchHeader(SourceLocation Loc, const SourceManager &SM);

/// True when the file \p Name lies under a torch/csrc, ATen, c10 or caffe2
/// directory.
bool isLibTorchPath(llvm::StringRef Name);

/// Matches nodes outside LibTorch's own headers. Every check puts it first in
/// its top-level matchers: torch.h brings tens of thousands of calls, loops
/// and fields, and rejecting them on their location is what keeps the
/// checks' share of a run small.
AST_POLYMORPHIC_MATCHER(isOutsideLibTorch,
                        AST_POLYMORPHIC_SUPPORTED_TYPES(Decl, Stmt)) {
  return !isInLibTorchHeader(Node.getBeginLoc(),
                             Finder->getASTContext().getSourceManager());
}

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHHEADERS_H
