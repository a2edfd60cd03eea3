//===--- TrainingCode.cpp - libtorch-tidy ---------------------------------===//

#include "TrainingCode.h"
#include "ConstantFacts.h"
#include "LibTorchHeaders.h"
#include "LibTorchNames.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::utils {

bool isTrainingCall(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef Name = FD->getName();
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  if (Name == "backward") {
    if (M)
      return isSameOrDerivedFrom(M->getParent(), "at::TensorBase");
    return FD->getQualifiedNameAsString() == "torch::autograd::backward";
  }
  return Name == "step" && M &&
         isSameOrDerivedFrom(M->getParent(), "torch::optim::Optimizer");
}

bool isPerStepByConvention(const FunctionDecl *FD) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  if (!MD || MD->getParent()->isLambda())
    return false;
  return MD->getOverloadedOperator() == OO_Call ||
         (MD->getIdentifier() && MD->getName() == "forward");
}

bool runsWithinAStep(const FunctionDecl *FD) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(FD);
  return isPerStepByConvention(FD) ||
         (MD && isSameOrDerivedFrom(MD->getParent(), "torch::nn::Module"));
}

namespace {

/// `loss.backward()`, `optimizer.step()` on an object of a dependent type.
bool isDependentStepCall(const CallExpr *CE) {
  const auto *ME =
      dyn_cast_or_null<CXXDependentScopeMemberExpr>(CE->getCallee());
  if (!ME || !ME->getMember().isIdentifier())
    return false;
  StringRef Name = ME->getMember().getAsIdentifierInfo()->getName();
  return Name == "backward" || Name == "step";
}

bool stepsOutsideLoops(const Stmt *S, ASTContext &Ctx, unsigned Depth) {
  if (!S || isa<LambdaExpr, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S))
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (isTrainingCall(FD) || isDependentStepCall(CE))
      return true;
    const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
    if (Depth > 0 && Def && Def->hasBody() &&
        !isInLibTorchHeader(Def->getLocation(), Ctx.getSourceManager()) &&
        stepsOutsideLoops(Def->getBody(), Ctx, Depth - 1))
      return true;
  }
  return llvm::any_of(S->children(), [&](const Stmt *Child) {
    return stepsOutsideLoops(Child, Ctx, Depth);
  });
}

} // namespace

bool stepsEachIteration(const Stmt *Loop, ASTContext &Ctx,
                        unsigned MaxCallDepth) {
  const Stmt *Body = nullptr;
  if (const auto *F = dyn_cast<ForStmt>(Loop))
    Body = F->getBody();
  else if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop))
    Body = RF->getBody();
  else if (const auto *W = dyn_cast<WhileStmt>(Loop))
    Body = W->getBody();
  else if (const auto *D = dyn_cast<DoStmt>(Loop))
    Body = D->getBody();
  return stepsOutsideLoops(Body, Ctx, MaxCallDepth);
}

bool needsGradients(const CallExpr *Call, ASTContext &Ctx) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (isTrainingCall(FD))
    return true;
  if (!FD || !FD->getIdentifier())
    return false;
  StringRef Name = FD->getName();
  if (Name == "grad" && !isa<CXXMethodDecl>(FD))
    return FD->getQualifiedNameAsString() == "torch::autograd::grad";
  if (Name != "requires_grad_" && Name != "set_requires_grad")
    return false;
  // requires_grad_() defaults to true; requires_grad_(false) detaches.
  unsigned First = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  if (Call->getNumArgs() <= First ||
      isa<CXXDefaultArgExpr>(Call->getArg(First)))
    return true;
  std::optional<bool> On = provableBool(Call->getArg(First), Ctx);
  return !On || *On;
}

bool hasWord(StringRef Identifier,
             std::initializer_list<StringRef> Words) {
  llvm::SmallVector<std::string, 4> Parts;
  std::string Cur;
  auto Flush = [&] {
    if (!Cur.empty())
      Parts.push_back(Cur);
    Cur.clear();
  };
  for (size_t I = 0; I < Identifier.size(); ++I) {
    char C = Identifier[I];
    if (!llvm::isAlnum(C)) {
      Flush();
      continue;
    }
    // A capital after a lower-case letter or digit starts a word.
    if (llvm::isUpper(C) && I > 0 && !llvm::isUpper(Identifier[I - 1]) &&
        llvm::isAlnum(Identifier[I - 1]))
      Flush();
    Cur += llvm::toLower(C);
  }
  Flush();
  for (const std::string &P : Parts)
    for (StringRef W : Words)
      if (P == W)
        return true;
  return false;
}

const Stmt *TrainingCode::userBody(const FunctionDecl *FD,
                                   unsigned Depth) const {
  if (!FD || Depth >= MaxCallDepth)
    return nullptr;
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->hasBody() ||
      isInLibTorchHeader(Def->getLocation(), Ctx.getSourceManager()))
    return nullptr;
  return Def->getBody();
}

bool TrainingCode::needsGradientsIn(const FunctionDecl *FD) {
  const FunctionDecl *Def = FD ? FD->getDefinition() : nullptr;
  return Def && Def->hasBody() && at(Def->getBody(), 0);
}

bool TrainingCode::at(const Stmt *S, unsigned Depth) {
  if (!S)
    return false;
  auto It = Known.find(S);
  if (It != Known.end())
    return It->second;
  // Recursion through the call graph meets S again: no answer yet is no.
  Known[S] = false;
  bool Found = false;
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("call")), *S, Ctx)) {
    const auto *Call = N.getNodeAs<CallExpr>("call");
    if (needsGradients(Call, Ctx) ||
        at(userBody(Call->getDirectCallee(), Depth), Depth + 1)) {
      Found = true;
      break;
    }
  }
  Known[S] = Found;
  return Found;
}

bool TrainingCode::trainsAt(const Stmt *S, unsigned Depth) {
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("call")), *S, Ctx)) {
    const FunctionDecl *FD = N.getNodeAs<CallExpr>("call")->getDirectCallee();
    if (isTrainingCall(FD))
      return true;
    if (const Stmt *Body = userBody(FD, Depth))
      if (trainsAt(Body, Depth + 1))
        return true;
  }
  return false;
}

const Stmt *TrainingCode::loopAt(const Stmt *S, unsigned Depth,
                                 bool DepthFromLoop) {
  if (!S)
    return nullptr;
  for (const BoundNodes &N :
       match(findAll(stmt(anyOf(forStmt(), whileStmt(), doStmt(),
                                cxxForRangeStmt()))
                         .bind("loop")),
             *S, Ctx)) {
    const auto *Loop = N.getNodeAs<Stmt>("loop");
    if (!isRunOnceLoop(Loop, Ctx) &&
        trainsAt(Loop, DepthFromLoop ? 0 : Depth))
      return Loop;
  }
  for (const BoundNodes &N : match(findAll(callExpr().bind("call")), *S, Ctx))
    if (const Stmt *Loop = loopAt(
            userBody(N.getNodeAs<CallExpr>("call")->getDirectCallee(), Depth),
            Depth + 1, DepthFromLoop))
      return Loop;
  return nullptr;
}

} // namespace clang::tidy::torch::utils
