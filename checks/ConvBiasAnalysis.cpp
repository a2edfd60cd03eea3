//===--- ConvBiasAnalysis.cpp - libtorch-tidy -----------------------------===//
//
// Reads, from the expression that builds a convolution, whether its bias is
// on. Everything it cannot prove (a bias flag from a parameter whose call it
// does not see, a variable changed on the way) is Bias::Unknown.
//
//===----------------------------------------------------------------------===//

#include "ConvBiasAnalysis.h"
#include "utils/DeviceAnalysis.h"
#include "utils/ConstantFacts.h"
#include "utils/LibTorchHeaders.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include <optional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch::convbias {

//===----------------------------------------------------------------------===//
// Module and options types
//===----------------------------------------------------------------------===//

bool isInTorchNn(const Decl *D) {
  const auto *NS = dyn_cast<NamespaceDecl>(D->getDeclContext());
  if (!NS || NS->getName() != "nn")
    return false;
  const auto *Outer = dyn_cast<NamespaceDecl>(NS->getDeclContext());
  return Outer && Outer->getName() == "torch" &&
         Outer->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

static const CXXRecordDecl *
templateArgRecord(const ClassTemplateSpecializationDecl *S) {
  const TemplateArgumentList &Args = S->getTemplateArgs();
  if (Args.size() < 1 || Args[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Args[0].getAsType()->getAsCXXRecordDecl();
}

/// The module class behind a ModuleHolder (`Conv2d`), a shared_ptr to it, or
/// the class itself: `Conv2dImpl`.
const CXXRecordDecl *moduleClass(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  for (unsigned Step = 0; RD && Step < 3; ++Step) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    if (Spec && Spec->getName() == "shared_ptr" && Spec->isInStdNamespace()) {
      RD = templateArgRecord(Spec);
      continue;
    }
    if (Spec && Spec->getName() == "ModuleHolder" && isInTorchNn(Spec))
      return templateArgRecord(Spec);
    if (!RD->hasDefinition())
      return RD;
    const CXXRecordDecl *Holder = nullptr;
    for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases()) {
      const auto *B = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
          Base.getType()->getAsCXXRecordDecl());
      if (B && B->getName() == "ModuleHolder" && isInTorchNn(B))
        Holder = B;
    }
    if (!Holder)
      return RD;
    RD = Holder;
  }
  return RD;
}

ModuleType moduleType(QualType T) {
  const CXXRecordDecl *RD = moduleClass(T);
  if (!RD || !RD->getIdentifier())
    return {};
  if (!isInTorchNn(RD))
    return {ModuleKind::Other, RD->getName().str()};
  StringRef Name = RD->getName();
  if (!Name.consume_back("Impl"))
    return {ModuleKind::Other, Name.str()};
  StringRef Dim = Name;
  if (!Dim.consume_back("d") || Dim.empty() ||
      !StringRef("123").contains(Dim.back()))
    return {ModuleKind::Other, Name.str()};
  Dim = Dim.drop_back();
  if (Dim == "Conv" || Dim == "ConvTranspose")
    return {ModuleKind::Conv, Name.str()};
  if (Dim == "BatchNorm")
    return {ModuleKind::BatchNorm, Name.str()};
  return {ModuleKind::Other, Name.str()};
}

/// `ConvOptions<D>` or `ConvTransposeOptions<D>`, through aliases.
bool isConvOptions(QualType T) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  return Spec && isInTorchNn(Spec) &&
         (Spec->getName() == "ConvOptions" ||
          Spec->getName() == "ConvTransposeOptions");
}

bool isTorchNnModuleMethod(const FunctionDecl *FD, StringRef Name) {
  const auto *M = dyn_cast_or_null<CXXMethodDecl>(FD);
  return M && M->getIdentifier() && M->getName() == Name &&
         isInTorchNn(M->getParent()) && M->getParent()->getName() == "Module";
}

/// Implicit casts, parentheses and temporaries, but not the converting
/// constructors that ignoreWrappers also skips: a `Conv2d(options)` has to
/// stay a constructor here.
const Expr *strip(const Expr *E) { return utils::ignoreTemporaries(E); }

/// strip(), and also the copy and move constructors of \p E's own type, which
/// the AST puts around a value passed on by value.
const Expr *stripCopies(const Expr *E) {
  while (true) {
    E = strip(E);
    const auto *CE = dyn_cast_or_null<CXXConstructExpr>(E);
    if (!CE || CE->getNumArgs() != 1 ||
        !CE->getConstructor()->isCopyOrMoveConstructor())
      return E;
    E = CE->getArg(0);
  }
}

//===----------------------------------------------------------------------===//
// Is the bias on?
//===----------------------------------------------------------------------===//

/// \p Site, reported at \p E unless an expression inside builds it.
static BiasSite builtBy(const Expr *E, BiasSite Site) {
  if (!Site.Built)
    Site.Built = E;
  return Site;
}

BiasSite BiasAnalyzer::ofModule(const Expr *E, unsigned Depth) {
  E = strip(E);
  if (!E || Depth > MaxHelperDepth)
    return {};
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return ofModuleConstruction(CE, Depth);
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return ofModuleCall(Call, Depth);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return ofVariable(Ref, /*IsOptions=*/false, Depth);
  return {};
}

/// `Conv2d(options)`, `Conv2d(3, 16, 3)`, or a copy of another module.
BiasSite BiasAnalyzer::ofModuleConstruction(const CXXConstructExpr *CE,
                                            unsigned Depth) {
  std::string Name = moduleType(CE->getType()).Name;
  if (CE->getNumArgs() != 1)
    return builtBy(
        CE, ofConstructorArgs(CE->getArgs(), CE->getNumArgs(), Name, Depth));
  const Expr *Arg = CE->getArg(0);
  // An empty holder (`Conv2d conv{nullptr}`) builds nothing.
  if (strip(Arg)->getType()->isNullPtrType())
    return {};
  if (isConvOptions(Arg->getType()))
    return builtBy(CE, ofOptions(Arg, Depth));
  if (moduleType(Arg->getType()).Kind == ModuleKind::Conv)
    return ofModule(Arg, Depth);
  return {};
}

/// `register_module("conv", ...)`, `std::make_shared<Conv2dImpl>(...)`, or
/// a helper of the user's.
BiasSite BiasAnalyzer::ofModuleCall(const CallExpr *Call, unsigned Depth) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return {};
  if (isTorchNnModuleMethod(FD, "register_module") && Call->getNumArgs() == 2)
    return ofModule(Call->getArg(1), Depth);
  if (!FD->getIdentifier() || FD->getName() != "make_shared" ||
      !FD->isInStdNamespace())
    return builtBy(Call, ofHelper(Call, /*ReturnsOptions=*/false, Depth));
  std::string Name = moduleType(Call->getType()).Name;
  if (Call->getNumArgs() == 1 && isConvOptions(Call->getArg(0)->getType()))
    return builtBy(Call, ofOptions(Call->getArg(0), Depth));
  return builtBy(Call, ofConstructorArgs(Call->getArgs(), Call->getNumArgs(),
                                         Name, Depth));
}

/// The `(in_channels, out_channels, kernel_size)` constructor: bias on.
BiasSite BiasAnalyzer::ofConstructorArgs(const Expr *const *Args,
                                         unsigned NumArgs,
                                         const std::string &ConvName,
                                         unsigned Depth) {
  BiasSite Site;
  if (NumArgs != 3 || ConvName.empty())
    return Site;
  for (unsigned I = 0; I < 2; ++I)
    if (!strip(Args[I])->getType()->isIntegerType())
      return Site;
  Site.State = Bias::On;
  Site.Fix = BiasSite::FixKind::WrapArguments;
  Site.Target = Args[0];
  Site.LastArg = Args[2];
  Site.ConvName = ConvName;
  return Site;
}

BiasSite BiasAnalyzer::ofOptions(const Expr *E, unsigned Depth) {
  BiasSite Site = ofOptionsChain(E, Depth);
  // The default bias of the constructor at the root of the chain is turned
  // off at the end of the whole expression, after the other setters.
  if (Site.State == Bias::On &&
      Site.Fix == BiasSite::FixKind::AppendToOptions && !Site.Target)
    Site.Target = strip(E);
  return Site;
}

BiasSite BiasAnalyzer::ofOptionsChain(const Expr *E, unsigned Depth) {
  BiasSite Unknown;
  E = strip(E);
  if (!E || Depth > MaxHelperDepth)
    return Unknown;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || !M->getIdentifier() ||
        !isConvOptions(Ctx.getRecordType(M->getParent())))
      return Unknown;
    if (M->getName() == "bias" && MC->getNumArgs() == 1)
      return ofBiasArgument(MC->getArg(0));
    // Another setter: the bias is whatever the object it is called on has.
    return ofOptionsChain(MC->getImplicitObjectArgument(), Depth);
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (!isConvOptions(CE->getType()))
      return Unknown;
    if (CE->getNumArgs() == 1 && isConvOptions(CE->getArg(0)->getType()))
      return ofOptionsChain(CE->getArg(0), Depth);
    if (CE->getNumArgs() != 3)
      return Unknown;
    BiasSite Site;
    Site.State = Bias::On;
    Site.Fix = BiasSite::FixKind::AppendToOptions;
    return Site;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return ofHelper(Call, /*ReturnsOptions=*/true, Depth);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return ofVariable(Ref, /*IsOptions=*/true, Depth);
  return Unknown;
}

BiasSite BiasAnalyzer::ofHelper(const CallExpr *Call, bool ReturnsOptions,
                                unsigned Depth) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || FD->isTemplateInstantiation() ||
      isa<CXXMethodDecl>(FD) &&
          cast<CXXMethodDecl>(FD)->getParent()->isLambda())
    return {};
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->hasBody() || Def->isInStdNamespace() ||
      utils::isInLibTorchHeader(Def->getLocation(), SM))
    return {};
  // An operator's arguments do not line up with its parameters.
  Binding B;
  if (!isa<CXXOperatorCallExpr>(Call)) {
    B.Callee = Def;
    for (const Expr *Arg : Call->arguments())
      B.Args.push_back(Arg);
    B.Close = Call->getRParenLoc();
  }
  const Binding *Saved = std::exchange(Bound, &B);
  BiasSite Site = ofHelperReturns(Call, Def, ReturnsOptions, Depth);
  Bound = Saved;
  return Site;
}

/// The site of a helper whose returns all take the bias from parameter
/// \p Returns[0].FromParameter: it is decided, and fixed, at the call.
static BiasSite ofParameterReturns(const std::vector<BiasSite> &Returns,
                                   const CallExpr *Call,
                                   const FunctionDecl *Def) {
  const ParmVarDecl *P = Returns.front().FromParameter;
  if (!P || Returns.front().ParamOwner != Def ||
      llvm::any_of(Returns,
                   [&](const BiasSite &R) { return R.FromParameter != P; }))
    return {};
  BiasSite Site = Returns.front();
  Site.Helper = Def;
  Site.HelperCall = Call;
  Site.Built = nullptr;
  Site.ConvName = moduleType(Call->getType()).Name;
  return Site;
}

BiasSite BiasAnalyzer::ofHelperReturns(const CallExpr *Call,
                                       const FunctionDecl *Def,
                                       bool ReturnsOptions, unsigned Depth) {
  BiasSite Site;
  ReturnCollector Collector;
  Collector.TraverseStmt(Def->getBody());
  if (Collector.Returns.empty())
    return Site;
  bool AllOn = true, AllOff = true;
  for (const ReturnStmt *R : Collector.Returns) {
    if (!R->getRetValue())
      return Site;
    BiasSite Inner = ReturnsOptions ? ofOptions(R->getRetValue(), Depth + 1)
                                    : ofModule(R->getRetValue(), Depth + 1);
    AllOn &= Inner.State == Bias::On;
    AllOff &= Inner.State == Bias::Off;
    Site.HelperReturns.push_back(std::move(Inner));
  }
  if (!AllOn)
    return BiasSite{AllOff ? Bias::Off : Bias::Unknown};
  if (llvm::any_of(Site.HelperReturns,
                   [](const BiasSite &R) { return R.FromParameter; }))
    return ofParameterReturns(Site.HelperReturns, Call, Def);
  Site.State = Bias::On;
  Site.Built = nullptr;
  Site.Helper = Def;
  Site.HelperCall = Call;
  Site.ConvName = moduleType(Call->getType()).Name;
  // A helper that returns options can be fixed at the call site too.
  if (ReturnsOptions) {
    Site.Fix = BiasSite::FixKind::AppendToOptions;
    Site.Target = Call;
  }
  return Site;
}

/// The argument of `.bias(...)`: a provable value, or a parameter of the
/// function whose call is being followed.
BiasSite BiasAnalyzer::ofBiasArgument(const Expr *Arg) {
  BiasSite Site;
  if (std::optional<bool> Value = utils::provableBool(Arg, Ctx)) {
    Site.State = *Value ? Bias::On : Bias::Off;
    Site.Fix = BiasSite::FixKind::ReplaceArgument;
    Site.Target = Arg;
    return Site;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
  const auto *P = Ref ? dyn_cast<ParmVarDecl>(Ref->getDecl()) : nullptr;
  return P ? ofParameter(P, Arg) : Site;
}

/// The declaration of parameter \p I of \p FD that writes its default.
static const ParmVarDecl *parameterWithDefault(const FunctionDecl *FD,
                                               unsigned I) {
  for (const FunctionDecl *R : FD->redecls()) {
    if (I >= R->getNumParams())
      continue;
    const ParmVarDecl *P = R->getParamDecl(I);
    if (P->hasDefaultArg() && !P->hasUnparsedDefaultArg() &&
        !P->hasUninstantiatedDefaultArg() && !P->hasInheritedDefaultArg())
      return P;
  }
  return nullptr;
}

static bool isLiteral(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus))
    E = U->getSubExpr()->IgnoreParenImpCasts();
  return isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
             CharacterLiteral, StringLiteral, CXXNullPtrLiteralExpr>(E);
}

/// The parameter \p P of \p Owner sets the bias, whatever a call passes:
/// what the project index records of a constructor.
BiasSite BiasAnalyzer::unboundParameter(const ParmVarDecl *P,
                                        const FunctionDecl *Owner,
                                        const Expr *BiasArg) {
  BiasSite Site;
  const FunctionDecl *Def = Owner->getDefinition();
  if (!Def || !Def->getBody() ||
      ExprMutationAnalyzer(*Def->getBody(), Ctx).isMutated(P))
    return Site;
  Site.FromParameter = P;
  Site.ParamOwner = Def;
  Site.BiasArgument = BiasArg;
  return Site;
}

BiasSite BiasAnalyzer::ofParameter(const ParmVarDecl *P, const Expr *BiasArg) {
  BiasSite Site;
  const auto *Owner = dyn_cast<FunctionDecl>(P->getDeclContext());
  if (Unbound && Owner)
    return unboundParameter(P, Owner, BiasArg);
  if (!Bound || !Bound->Callee || !Owner ||
      Owner->getCanonicalDecl() != Bound->Callee->getCanonicalDecl())
    return Site;
  const Stmt *Body = Bound->Callee->getBody();
  // With the body in another file, the project index has checked it.
  if (!BodyElsewhere &&
      (!Body || ExprMutationAnalyzer(*Body, Ctx).isMutated(P)))
    return Site;
  unsigned I = P->getFunctionScopeIndex();
  const Expr *Arg = I < Bound->Args.size() ? Bound->Args[I] : nullptr;
  if (Arg && !isa<CXXDefaultArgExpr>(Arg)) {
    std::optional<bool> Value = utils::provableBool(strip(Arg), Ctx);
    if (!Value)
      return Site;
    Site.State = *Value ? Bias::On : Bias::Off;
    Site.Fix = BiasSite::FixKind::ReplaceArgument;
    Site.Target = Arg;
  } else {
    const ParmVarDecl *D = parameterWithDefault(Bound->Callee, I);
    std::optional<bool> Value =
        D ? utils::provableBool(D->getDefaultArg(), Ctx) : std::nullopt;
    if (!Value)
      return Site;
    Site.State = *Value ? Bias::On : Bias::Off;
    Site.DefaultArg = D->getDefaultArg();
    if (*Value)
      addArgumentFix(Site, P);
  }
  Site.FromParameter = P;
  Site.ParamOwner = Bound->Callee;
  Site.BiasArgument = BiasArg;
  return Site;
}

/// The call takes the default of \p P: pass the argument explicitly, with
/// the defaults of the parameters before it written out.
void BiasAnalyzer::addArgumentFix(BiasSite &Site, const ParmVarDecl *P) {
  const FunctionDecl *Callee = Bound->Callee;
  if (Callee->isVariadic()) {
    Site.NoFix.quoted(Callee->getNameAsString())
        .text(" takes a variable number of arguments");
    return;
  }
  if (Bound->Close.isInvalid() || Bound->Close.isMacroID()) {
    Site.NoFix.text("the call is written in a macro");
    return;
  }
  unsigned Written = llvm::count_if(
      Bound->Args, [](const Expr *A) { return !isa<CXXDefaultArgExpr>(A); });
  std::string Text;
  for (unsigned J = Written; J < P->getFunctionScopeIndex(); ++J) {
    const ParmVarDecl *Q = parameterWithDefault(Callee, J);
    const Expr *D = Q ? Q->getDefaultArg() : nullptr;
    if (!D || !isLiteral(D) || D->getBeginLoc().isMacroID()) {
      Site.NoFix.text("the parameters before ")
          .quoted(P->getName())
          .text(" have defaults that are not literals");
      return;
    }
    Text +=
        utils::sourceText(D->getSourceRange(), SM, Ctx.getLangOpts()) + ", ";
  }
  Site.Fix = BiasSite::FixKind::AddArgument;
  Site.InsertAt = Bound->Close;
  Site.Before = (Written ? ", " : "") + Text;
}

/// The `.bias(...)` call made on options variable \p Use as a statement of
/// its own: `opts.bias(with_bias);`.
static const CXXMemberCallExpr *biasSetterStatement(const DeclRefExpr *Use,
                                                    ASTContext &Ctx) {
  for (const DynTypedNode &P : Ctx.getParents(*Use)) {
    const auto *ME = P.get<MemberExpr>();
    const auto *M = ME ? dyn_cast<CXXMethodDecl>(ME->getMemberDecl()) : nullptr;
    if (!M || !M->getIdentifier() || M->getName() != "bias" ||
        !isConvOptions(Ctx.getRecordType(M->getParent())))
      continue;
    for (const DynTypedNode &Up : Ctx.getParents(*ME))
      if (const auto *MC = Up.get<CXXMemberCallExpr>();
          MC && MC->getNumArgs() == 1)
        return MC;
  }
  return nullptr;
}

/// The bias of options variable \p VD read at \p Ref when statements
/// `VD.bias(...);` set it: the last one decides, when all of them are
/// unconditional statements of the block that declares \p VD, before \p Ref.
BiasSite BiasAnalyzer::ofVariableSetters(
    const VarDecl *VD, const DeclRefExpr *Ref,
    const std::vector<const CXXMemberCallExpr *> &Setters) {
  const CompoundStmt *Block = nullptr;
  for (const DynTypedNode &P : Ctx.getParents(*VD))
    if (const auto *DS = P.get<DeclStmt>())
      Block = utils::statementInBlock(DS, Ctx).second;
  const CXXMemberCallExpr *Last = nullptr;
  for (const CXXMemberCallExpr *Set : Setters) {
    auto [Statement, Compound] = utils::statementInBlock(Set, Ctx);
    const auto *E = dyn_cast_or_null<Expr>(Statement);
    if (!Block || Compound != Block || !E || strip(E) != Set ||
        !SM.isBeforeInTranslationUnit(Set->getEndLoc(), Ref->getBeginLoc()))
      return {};
    if (!Last ||
        SM.isBeforeInTranslationUnit(Last->getBeginLoc(), Set->getBeginLoc()))
      Last = Set;
  }
  return ofBiasArgument(Last->getArg(0));
}

static bool isOtherSetter(const DeclRefExpr *Use, ASTContext &Ctx);
static void limitVariableFix(BiasSite &Site, const VarDecl *VD,
                             unsigned OtherUses);

/// A local variable holding the options or the module. Its initializer
/// decides, unless the variable is changed or used again: then the bias
/// depends on more than this expression, or a fix-it on the initializer would
/// change the other uses too.
BiasSite BiasAnalyzer::ofVariable(const DeclRefExpr *Ref, bool IsOptions,
                                  unsigned Depth) {
  BiasSite Unknown;
  const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
  if (!VD || isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl() ||
      VD->isStaticLocal() || !VD->getInit() || VD->getType()->isReferenceType())
    return Unknown;
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  if (!Body)
    return Unknown;
  auto Uses =
      match(findAll(declRefExpr(to(varDecl(equalsNode(VD)))).bind("use")),
            *Body, Ctx);
  ExprMutationAnalyzer Mutations(*Body, Ctx);
  unsigned OtherUses = 0;
  std::vector<const CXXMemberCallExpr *> BiasSetters;
  for (const BoundNodes &Use : Uses) {
    const auto *Other = Use.getNodeAs<DeclRefExpr>("use");
    if (Other == Ref)
      continue;
    if (!IsOptions)
      return Unknown;
    // `opts.bias(with_bias);` decides the bias where it is unconditional.
    if (const CXXMemberCallExpr *Set = biasSetterStatement(Other, Ctx)) {
      BiasSetters.push_back(Set);
      continue;
    }
    // `opts.stride(2);` keeps the bias; an assignment or a non-const
    // reference may change it.
    if (isOtherSetter(Other, Ctx))
      continue;
    if (Mutations.isMutated(Other))
      return Unknown;
    ++OtherUses;
  }
  BiasSite Site = !BiasSetters.empty() ? ofVariableSetters(VD, Ref, BiasSetters)
                  : IsOptions          ? ofOptions(VD->getInit(), Depth + 1)
                                       : ofModule(VD->getInit(), Depth + 1);
  limitVariableFix(Site, VD, OtherUses);
  return Site;
}

/// `opts.stride(2)` and the other setters of the options but `bias`.
static bool isOtherSetter(const DeclRefExpr *Use, ASTContext &Ctx) {
  bool Setter = false;
  for (const DynTypedNode &P : Ctx.getParents(*Use))
    if (const auto *ME = P.get<MemberExpr>())
      if (const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl()))
        Setter = M->getIdentifier() && M->getName() != "bias" &&
                 isConvOptions(Ctx.getRecordType(M->getParent()));
  return Setter;
}

/// No fix-it on the initializer of \p VD where it would change other uses,
/// or where there is no expression to append to.
static void limitVariableFix(BiasSite &Site, const VarDecl *VD,
                             unsigned OtherUses) {
  if (Site.State != Bias::On || !Site.NoFix.empty() || Site.Helper ||
      Site.FromParameter)
    return;
  if (OtherUses) {
    Site.Fix = BiasSite::FixKind::None;
    Site.NoFix.text("options variable ")
        .quoted(VD->getName())
        .text(" is used elsewhere too");
  } else if (Site.Fix == BiasSite::FixKind::AppendToOptions && Site.Target &&
             (Site.Target->getBeginLoc() == VD->getLocation() ||
              (VD->getInitStyle() != VarDecl::CInit &&
               Site.Target->IgnoreImplicit() ==
                   VD->getInit()->IgnoreImplicit()))) {
    // `Conv2dOptions opts(3, 16, 3);` or `opts{3, 16, 3}`: no expression to
    // append to.
    Site.Fix = BiasSite::FixKind::None;
    Site.NoFix.text("options variable ")
        .quoted(VD->getName())
        .text(" is built by its declaration; set .bias(false) on it");
  }
}

} // namespace clang::tidy::torch::convbias
