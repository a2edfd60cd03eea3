//===--- HostTensorToDeviceCheck.cpp - libtorch-tidy ----------------------===//
//
// `torch::randn(sizes).to(device)` fills a tensor on the host, allocates a
// second one on the device and copies: the copy, the host allocation and the
// host-side fill are all avoidable by passing the device in the factory's
// options. The fix merges the device into the options the call already has,
// keeping dtype (randint's kLong comes from a default argument), layout and
// requires_grad.
//
//===----------------------------------------------------------------------===//

#include "HostTensorToDeviceCheck.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/TorchUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using utils::DeviceKind;
using utils::ignoreWrappers;
using utils::isEnumNamed;
using utils::isRecordNamed;
using utils::sourceText;

namespace {

/// Whether the moved tensor is kept for later: a static, a global or a
/// member. Moving such a constant once at set-up costs nothing per step.
bool isCachedResult(const Expr *Move, ASTContext &Ctx) {
  const Stmt *Cur = Move;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return false;
    // A member initializer's parent is the constructor itself.
    if (Parents[0].get<CXXCtorInitializer>() || Parents[0].get<FieldDecl>() ||
        Parents[0].get<CXXConstructorDecl>())
      return true;
    if (const auto *VD = Parents[0].get<VarDecl>())
      return !VD->hasLocalStorage();
    const auto *P = Parents[0].get<Stmt>();
    if (!P)
      return false;
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(P);
        Assign && Assign->getOperator() == OO_Equal) {
      const Expr *Target = Assign->getArg(0)->IgnoreParenImpCasts();
      if (isa<MemberExpr>(Target))
        return true;
      if (const auto *Ref = dyn_cast<DeclRefExpr>(Target))
        if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
          return !VD->hasLocalStorage();
      return false;
    }
    if (!isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
             ExprWithCleanups, CXXConstructExpr, ParenExpr>(P))
      return false;
    Cur = P;
  }
}

/// Every declaration \p E refers to is declared before \p Loc.
bool declaredBefore(const Expr *E, SourceLocation Loc,
                    const SourceManager &SM) {
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->isLocalVarDeclOrParm())
      if (!SM.isBeforeInTranslationUnit(VD->getLocation(), Loc))
        return false;
  }
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      if (!declaredBefore(ChildExpr, Loc, SM))
        return false;
  return true;
}

} // namespace

void HostTensorToDeviceCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto TensorClass =
      cxxRecordDecl(hasAnyName("::at::Tensor", "::at::TensorBase"));
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasAnyName("to", "cuda"), ofClass(TensorClass))),
          unless(isInTemplateInstantiation()))
          .bind("move"),
      this);
}

void HostTensorToDeviceCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Move = Result.Nodes.getNodeAs<CXXMemberCallExpr>("move");
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  const LangOptions &LO = getLangOpts();
  if (utils::isInLibTorchHeader(Move->getBeginLoc(), SM))
    return;
  const CXXMethodDecl *Method = Move->getMethodDecl();
  utils::DeviceAnalysis Devices(Ctx);

  // The device it goes to, spelled so that it can be passed to a factory.
  const Expr *DeviceArg = nullptr;
  if (Method->getName() == "to") {
    const Expr *Target = utils::deviceTargetOfTo(Move);
    if (!Target || Devices.ofDevice(Target) == DeviceKind::Cpu)
      return;
    DeviceArg = Target;
  } else if (Move->getNumArgs() != 0) {
    return;
  }

  // The factory: the object itself, or a local variable initialized by one
  // and used for nothing but this move.
  const Expr *Object = Move->getImplicitObjectArgument();
  const auto *Factory = dyn_cast<CallExpr>(ignoreWrappers(Object));
  const VarDecl *Var = nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(ignoreWrappers(Object))) {
    Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var) ||
        Var->getType()->isReferenceType() || !Var->getInit())
      return;
    const auto *Fn =
        dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
    if (!Fn || !Fn->getBody() ||
        match(findAll(declRefExpr(to(varDecl(equalsNode(Var)))).bind("ref")),
              *Fn->getBody(), Ctx)
                .size() != 1)
      return;
    Factory = dyn_cast<CallExpr>(ignoreWrappers(Var->getInit()));
  }
  const FunctionDecl *FactoryFn =
      Factory ? Factory->getDirectCallee() : nullptr;
  if (!FactoryFn || !utils::isTensorFactory(FactoryFn) ||
      FactoryFn->getName() == "from_blob" ||
      Devices.ofTensor(Factory) != DeviceKind::Cpu)
    return;
  // torch::tensor(values) copies host data: only a literal list can be made
  // on the device instead.
  if (FactoryFn->getName() == "tensor" &&
      !llvm::StringRef(sourceText(Factory->getArg(0)->getSourceRange(), SM, LO))
           .starts_with("{"))
    return;
  if (isCachedResult(Move, Ctx))
    return;

  std::string FactoryName = FactoryFn->getQualifiedNameAsString();
  std::string Message = "tensor made on the host by '" + FactoryName + "'";
  if (Var)
    Message +=
        " at line " +
        std::to_string(SM.getExpansionLineNumber(Factory->getBeginLoc()));
  Message += " and then copied to the device; create it on the device by "
             "passing the device in its options";

  // Build the fix: the device merged into the factory's options, the copy
  // removed.
  std::string Ns = FactoryName.substr(0, FactoryName.find("::"));
  std::string Device = DeviceArg
                           ? sourceText(DeviceArg->getSourceRange(), SM, LO)
                           : Ns + "::kCUDA";
  std::string NoFix;
  llvm::SmallVector<FixItHint, 2> Fixes;
  unsigned OptionsIndex = FactoryFn->getNumParams();
  for (unsigned I = 0; I < FactoryFn->getNumParams(); ++I)
    if (isRecordNamed(FactoryFn->getParamDecl(I)->getType(), "TensorOptions")) {
      OptionsIndex = I;
      break;
    }
  if (Factory->getBeginLoc().isMacroID() || Move->getEndLoc().isMacroID())
    NoFix = "the code comes from a macro";
  else if (DeviceArg && Var &&
           !declaredBefore(DeviceArg, Var->getLocation(), SM))
    NoFix = "the device is declared after the tensor";
  else if (OptionsIndex >= Factory->getNumArgs())
    NoFix = "'" + FactoryName + "' takes no options here";

  if (NoFix.empty()) {
    const Expr *Options = Factory->getArg(OptionsIndex);
    if (isa<CXXDefaultArgExpr>(Options)) {
      // Every argument before the options must be written out.
      for (unsigned I = 0; I < OptionsIndex; ++I)
        if (isa<CXXDefaultArgExpr>(Factory->getArg(I)))
          NoFix = "an argument before the options is defaulted";
      const Expr *Default = ignoreWrappers(
          FactoryFn->getParamDecl(OptionsIndex)->getDefaultArg());
      std::string NewOptions = Ns + "::device(" + Device + ")";
      if (Default && isEnumNamed(Default->getType(), "ScalarType")) {
        // randint's kLong is only in its default argument: keep it.
        const auto *Ref = dyn_cast<DeclRefExpr>(Default);
        if (!Ref)
          NoFix = "its default dtype could not be spelled";
        else
          NewOptions = Ns + "::TensorOptions(" + Ns +
                       "::" + Ref->getDecl()->getNameAsString() + ").device(" +
                       Device + ")";
      } else if (Default && !isa<CXXConstructExpr, InitListExpr>(Default)) {
        NoFix = "its default options could not be spelled";
      }
      if (NoFix.empty()) {
        SourceLocation After =
            OptionsIndex == 0
                ? Lexer::findNextToken(Factory->getCallee()->getEndLoc(), SM,
                                       LO)
                      ->getEndLoc()
                : Lexer::getLocForEndOfToken(
                      Factory->getArg(OptionsIndex - 1)->getEndLoc(), 0, SM,
                      LO);
        Fixes.push_back(FixItHint::CreateInsertion(
            After, (OptionsIndex == 0 ? "" : ", ") + NewOptions));
      }
    } else {
      const Expr *Inner = ignoreWrappers(Options);
      std::string Text = sourceText(Options->getSourceRange(), SM, LO);
      if (isRecordNamed(Inner->getType(), "TensorOptions")) {
        // Merge: opts.device(d) keeps every option opts had.
        if (!isa<DeclRefExpr, CallExpr, CXXTemporaryObjectExpr, ParenExpr>(
                Inner))
          Text = "(" + Text + ")";
        Fixes.push_back(FixItHint::CreateReplacement(
            Options->getSourceRange(), Text + ".device(" + Device + ")"));
      } else if (isEnumNamed(Inner->getType(), "ScalarType")) {
        Fixes.push_back(FixItHint::CreateReplacement(
            Options->getSourceRange(),
            Ns + "::TensorOptions(" + Text + ").device(" + Device + ")"));
      } else {
        NoFix = "its options could not be extended";
      }
    }
  }
  if (NoFix.empty()) {
    // The copy goes: `f(...).to(d)` -> `f(...)`, `x.to(d)` -> `x`.
    SourceLocation ObjectEnd =
        Lexer::getLocForEndOfToken(Object->getEndLoc(), 0, SM, LO);
    SourceLocation MoveEnd =
        Lexer::getLocForEndOfToken(Move->getEndLoc(), 0, SM, LO);
    Fixes.push_back(FixItHint::CreateRemoval(
        CharSourceRange::getCharRange(ObjectEnd, MoveEnd)));
  }

  if (!NoFix.empty()) {
    utils::recordStatementPayload("torch-host-tensor-to-device",
                                  Move->getExprLoc(), Move, *Result.Context);
    diag(Move->getExprLoc(), "%0; no fix-it: %1") << Message << NoFix;
    return;
  }
  utils::recordStatementPayload("torch-host-tensor-to-device",
                                Move->getExprLoc(), Move, *Result.Context);
  auto Diag = diag(Move->getExprLoc(), "%0") << Message;
  for (const FixItHint &F : Fixes)
    Diag << F;
}

} // namespace clang::tidy::torch
