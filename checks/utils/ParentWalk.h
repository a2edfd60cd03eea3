//===--- ParentWalk.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Climbing the parents of a statement: the block statement it is in, the
// function it is in.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_PARENTWALK_H
#define LIBTORCH_TIDY_CHECKS_UTILS_PARENTWALK_H

#include <utility>

namespace clang {
class ASTContext;
class CompoundStmt;
class FunctionDecl;
class SourceManager;
class Stmt;
class VarDecl;
} // namespace clang

namespace clang::tidy::torch::utils {

/// The statement of a block (compound statement) that contains \p S, and
/// that block; the block is null when \p S is in none, and the statement is
/// then the outermost one above \p S.
std::pair<const Stmt *, const CompoundStmt *> statementInBlock(const Stmt *S,
                                                               ASTContext &Ctx);

/// The body of the function a local variable is declared in, or null.
const Stmt *enclosingFunctionBody(const VarDecl *VD);

/// The function whose body or constructor initializers hold \p S, or null.
const FunctionDecl *enclosingFunction(const Stmt *S, ASTContext &Ctx);

/// Whether \p S is written inside \p Outer (by expansion locations); false
/// when either is null.
bool isWrittenWithin(const Stmt *S, const Stmt *Outer,
                     const SourceManager &SM);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_PARENTWALK_H
