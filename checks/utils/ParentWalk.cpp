//===--- ParentWalk.cpp - libtorch-tidy -----------------------------------===//

#include "ParentWalk.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch::utils {

std::pair<const Stmt *, const CompoundStmt *>
statementInBlock(const Stmt *S, ASTContext &Ctx) {
  for (unsigned Depth = 0; S && Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    const Stmt *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!P)
      return {S, nullptr};
    if (const auto *Block = dyn_cast<CompoundStmt>(P))
      return {S, Block};
    S = P;
  }
  return {nullptr, nullptr};
}

const FunctionDecl *enclosingFunction(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 512; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return nullptr;
    if (const auto *FD = Parents[0].get<FunctionDecl>())
      return FD;
    Cur = Parents[0];
  }
  return nullptr;
}

const Stmt *enclosingFunctionBody(const VarDecl *VD) {
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  return FD ? FD->getBody() : nullptr;
}

bool isWrittenWithin(const Stmt *S, const Stmt *Outer,
                     const SourceManager &SM) {
  return S && Outer &&
         SM.isPointWithin(SM.getExpansionLoc(S->getBeginLoc()),
                          SM.getExpansionLoc(Outer->getBeginLoc()),
                          SM.getExpansionLoc(Outer->getEndLoc()));
}

} // namespace clang::tidy::torch::utils
