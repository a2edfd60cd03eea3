//===--- ConstantFacts.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// What the code proves constant: a condition a constant or an unchanged
// local variable decides, a variable that keeps its initial value, a loop
// that runs once.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CONSTANTFACTS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CONSTANTFACTS_H

#include <optional>

namespace clang {
class ASTContext;
class Expr;
class Stmt;
class VarDecl;
} // namespace clang

namespace clang::tidy::torch::utils {

/// `do { ... } while (false)`, the statement-like macro idiom: its body runs
/// once, so it is no loop.
bool isRunOnceLoop(const Stmt *S, const ASTContext &Ctx);

/// The value of a bool expression when the code proves it: a constant, or a
/// local variable initialized with one and never changed.
std::optional<bool> provableBool(const Expr *E, ASTContext &Ctx);

/// Whether the local variable \p VD keeps the value it was initialized with:
/// const, or never assigned (also compound), address-taken, passed by
/// non-const reference or set_() in its function.
bool isNeverReassigned(const VarDecl *VD, ASTContext &Ctx);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CONSTANTFACTS_H
