//===--- ConstantFacts.cpp - libtorch-tidy --------------------------------===//

#include "ConstantFacts.h"
#include "ParentWalk.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

namespace clang::tidy::torch::utils {

bool isRunOnceLoop(const Stmt *S, const ASTContext &Ctx) {
  const auto *D = dyn_cast<DoStmt>(S);
  bool Value = true;
  return D && !D->getCond()->isValueDependent() &&
         D->getCond()->EvaluateAsBooleanCondition(Value, Ctx) && !Value;
}

/// provableBool() through at most \p Depth initializers: `bool On = On;`
/// compiles, and its initializer is the variable itself.
static std::optional<bool> provableBool(const Expr *E, ASTContext &Ctx,
                                        unsigned Depth) {
  E = E->IgnoreParenImpCasts();
  if (E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  bool Value = false;
  if (E->EvaluateAsBooleanCondition(Value, Ctx))
    return Value;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl() ||
      VD->isStaticLocal() || !VD->getInit() ||
      VD->getType().isVolatileQualified() || Depth == 0)
    return std::nullopt;
  const Stmt *Body = enclosingFunctionBody(VD);
  if (!Body || ExprMutationAnalyzer(*Body, Ctx).isMutated(VD))
    return std::nullopt;
  return provableBool(VD->getInit(), Ctx, Depth - 1);
}

std::optional<bool> provableBool(const Expr *E, ASTContext &Ctx) {
  return provableBool(E, Ctx, /*Depth=*/8);
}

bool isNeverReassigned(const VarDecl *VD, ASTContext &Ctx) {
  using namespace ast_matchers;
  if (VD->getType().isConstQualified())
    return true;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return false;
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  return match(stmt(hasDescendant(stmt(anyOf(
                   cxxOperatorCallExpr(
                       hasAnyOverloadedOperatorName(
                           "=", "+=", "-=", "*=", "/=", "&=", "|=", "^="),
                       hasArgument(0, Ref)),
                   // Built-in types (bool, int, enums) are assigned without
                   // an operator call.
                   binaryOperator(isAssignmentOperator(), hasLHS(Ref)),
                   unaryOperator(hasAnyOperatorName("&", "++", "--"),
                                 hasUnaryOperand(Ref)),
                   callExpr(forEachArgumentWithParam(
                       Ref, parmVarDecl(hasType(lValueReferenceType(
                                pointee(unless(isConstQualified()))))))),
                   cxxMemberCallExpr(
                       on(Ref), callee(cxxMethodDecl(hasName("set_")))))))),
               *Fn->getBody(), Ctx)
      .empty();
}

} // namespace clang::tidy::torch::utils
