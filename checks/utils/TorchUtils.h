//===--- TorchUtils.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Facts about LibTorch that several checks need: where its headers are and
// which version the translation unit is built against.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_TORCHUTILS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_TORCHUTILS_H

#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <utility>

namespace clang {
class ASTContext;
class CXXRecordDecl;
class CompoundStmt;
class VarDecl;
class Expr;
class LangOptions;
class Preprocessor;
class Stmt;
} // namespace clang

namespace clang::tidy::torch::utils {

struct TorchVersion {
  unsigned Major = 0;
  unsigned Minor = 0;

  bool atLeast(unsigned Maj, unsigned Min) const {
    return Major > Maj || (Major == Maj && Minor >= Min);
  }
  std::string str() const;
};

/// Parses "1.13", "2" or "2.1.0"; std::nullopt for anything else.
std::optional<TorchVersion> parseTorchVersion(llvm::StringRef Text);

/// Reads TORCH_VERSION_MAJOR/MINOR as defined at this point of the
/// preprocessor (the end of the translation unit when checks run).
std::optional<TorchVersion> readTorchVersion(const Preprocessor &PP);

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

/// `do { ... } while (false)`, the statement-like macro idiom: its body runs
/// once, so it is no loop.
bool isRunOnceLoop(const Stmt *S, const ASTContext &Ctx);

/// "torch" when the translation unit declares namespace torch, else "at":
/// the namespace fix-its spell Tensor, kFloat and kCUDA with.
std::string torchNamespace(const ASTContext &Ctx);

/// \p RD is the class \p QualifiedName ("torch::nn::Module") or derives
/// from it.
bool isSameOrDerivedFrom(const CXXRecordDecl *RD,
                         llvm::StringRef QualifiedName);

/// The statement of a block (compound statement) that contains \p S, and
/// that block; the block is null when \p S is in none, and the statement is
/// then the outermost one above \p S.
std::pair<const Stmt *, const CompoundStmt *> statementInBlock(const Stmt *S,
                                                               ASTContext &Ctx);

/// The body of the function a local variable is declared in, or null.
const Stmt *enclosingFunctionBody(const VarDecl *VD);

/// The function whose body or constructor initializers hold \p S, or null.
const FunctionDecl *enclosingFunction(const Stmt *S, ASTContext &Ctx);

/// The value of a bool expression when the code proves it: a constant, or a
/// local variable initialized with one and never changed.
std::optional<bool> provableBool(const Expr *E, ASTContext &Ctx);

/// Whether the local variable \p VD keeps the value it was initialized with:
/// const, or never assigned (also compound), address-taken, passed by
/// non-const reference or set_() in its function.
bool isNeverReassigned(const VarDecl *VD, ASTContext &Ctx);

/// The source text of the tokens in \p R.
std::string sourceText(SourceRange R, const SourceManager &SM,
                       const LangOptions &LangOpts);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_TORCHUTILS_H
