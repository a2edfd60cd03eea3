//===--- AutogradGuards.h - libtorch-tidy -----------------------*- C++ -*-===//
//
// Where autograd is off: the guards that turn it off for the rest of their
// block (NoGradGuard, AutoGradMode(false), InferenceMode, GradMode::
// set_enabled(false)). Shared by torch-missing-no-grad and the project
// index, which records the calls made under a guard.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_AUTOGRADGUARDS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_AUTOGRADGUARDS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"

namespace clang::tidy::torch::utils {

/// A statement that turns autograd off for the rest of its block: a
/// NoGradGuard, AutoGradMode(false) or InferenceMode declaration, or
/// GradMode::set_enabled(false).
bool isGuardStatement(const Stmt *S, ASTContext &Ctx);

/// A guard among the statements of \p Block before \p Before (all of them
/// when null).
bool blockGuards(const CompoundStmt *Block, const Stmt *Before,
                 ASTContext &Ctx);

/// A guard in a block around \p S, up to its function.
bool guardedInBlocks(const Stmt *S, ASTContext &Ctx);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_AUTOGRADGUARDS_H
