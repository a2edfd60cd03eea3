//===--- AutogradGuards.cpp - libtorch-tidy -------------------------------===//

#include "utils/AutogradGuards.h"
#include "utils/ConstantFacts.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"

namespace clang::tidy::torch::utils {
namespace {

/// The first argument of a constructor, through the cleanups around it.
const Expr *firstConstructorArg(const VarDecl *VD) {
  const Expr *Init = VD->getInit();
  if (!Init)
    return nullptr;
  const auto *CE = dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit());
  if (!CE || CE->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(CE->getArg(0)))
    return nullptr;
  return CE->getArg(0);
}

/// A local guard that turns autograd off while it lives: NoGradGuard,
/// AutoGradMode(false), InferenceMode (on by default).
bool isGuardVar(const VarDecl *VD, ASTContext &Ctx) {
  const CXXRecordDecl *RD = VD->getType()->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier())
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  if (Name == "c10::NoGradGuard")
    return true;
  if (Name != "c10::AutoGradMode" && Name != "c10::InferenceMode")
    return false;
  const Expr *Arg = firstConstructorArg(VD);
  if (!Arg)
    return Name == "c10::InferenceMode";
  std::optional<bool> On = provableBool(Arg, Ctx);
  return On && *On == (Name == "c10::InferenceMode");
}

/// GradMode::set_enabled(false).
bool isGradModeOff(const Stmt *S, ASTContext &Ctx) {
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return false;
  const auto *Call = dyn_cast<CallExpr>(E->IgnoreImplicit());
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || FD->getName() != "set_enabled" ||
      FD->getQualifiedNameAsString() != "c10::GradMode::set_enabled" ||
      Call->getNumArgs() != 1)
    return false;
  std::optional<bool> On = provableBool(Call->getArg(0), Ctx);
  return On && !*On;
}

} // namespace

bool isGuardStatement(const Stmt *S, ASTContext &Ctx) {
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D); VD && isGuardVar(VD, Ctx))
        return true;
    return false;
  }
  return isGradModeOff(S, Ctx);
}

/// A guard among the statements of \p Block before \p Before (all of them
/// when null).
bool blockGuards(const CompoundStmt *Block, const Stmt *Before,
                 ASTContext &Ctx) {
  for (const Stmt *S : Block->body()) {
    if (S == Before)
      return false;
    if (isGuardStatement(S, Ctx))
      return true;
  }
  return false;
}

/// A guard in a block around \p S, up to its function.
bool guardedInBlocks(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      return false;
    if (const auto *Block = Parents[0].get<CompoundStmt>())
      if (blockGuards(Block, Cur.get<Stmt>(), Ctx))
        return true;
    Cur = Parents[0];
  }
  return false;
}

} // namespace clang::tidy::torch::utils
