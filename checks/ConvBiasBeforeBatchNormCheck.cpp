//===--- ConvBiasBeforeBatchNormCheck.cpp - libtorch-tidy -----------------===//
//
// BatchNorm subtracts the per-channel mean of its input, so the per-channel
// bias of a convolution that feeds it straight is subtracted right back out.
// The check finds the three ways LibTorch code wires a convolution into a
// BatchNorm (adjacent in a Sequential, module members called one after the
// other in a method, and either through a helper that builds the
// convolution), proves from the options expression that the bias is on, and
// reports the place that builds the convolution. Everything it cannot prove
// (a bias flag from a parameter, a convolution also used elsewhere) is left
// alone. Diagnostics are emitted at the end of the translation unit: whether
// a helper may be fixed in place depends on all of its callers, and a
// checkpoint loaded anywhere in the file rules fix-its out.
//
//===----------------------------------------------------------------------===//

#include "ConvBiasBeforeBatchNormCheck.h"
#include "TorchTidyModule.h"
#include "clang-tidy/utils/OptionsUtils.h"
#include "clang-tidy/utils/DeclRefExprUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"
#include <optional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxHelperDepth = 4;

//===----------------------------------------------------------------------===//
// Module and options types
//===----------------------------------------------------------------------===//

enum class ModuleKind { None, Conv, BatchNorm, Other };

struct ModuleType {
  ModuleKind Kind = ModuleKind::None;
  /// "Conv2d", "ConvTranspose1d", "BatchNorm2d": the holder's name.
  std::string Name;
};

bool isInTorchNn(const Decl *D) {
  const auto *NS = dyn_cast<NamespaceDecl>(D->getDeclContext());
  if (!NS || NS->getName() != "nn")
    return false;
  const auto *Outer = dyn_cast<NamespaceDecl>(NS->getDeclContext());
  return Outer && Outer->getName() == "torch" &&
         Outer->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

const CXXRecordDecl *
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

enum class Bias { On, Off, Unknown };

/// Where a convolution's bias is decided, and how to turn it off there.
struct BiasSite {
  Bias State = Bias::Unknown;

  enum class FixKind {
    None,
    /// Append `.bias(false)` after Target, an options expression.
    AppendToOptions,
    /// Replace Target, the argument of `.bias(...)`, with `false`.
    ReplaceArgument,
    /// Replace the arguments Target..LastArg of the `(in, out, kernel)`
    /// constructor with `torch::nn::<Name>Options(...).bias(false)`.
    WrapArguments,
    /// Insert Before + the value that turns the bias off at InsertAt, the
    /// closing parenthesis of a call that takes a parameter's default.
    AddArgument,
  };
  FixKind Fix = FixKind::None;
  const Expr *Target = nullptr;
  const Expr *LastArg = nullptr;
  std::string ConvName;
  /// Why the site itself cannot be rewritten.
  std::string NoFix;

  /// Built by a function of the user's: the call, and where the helper
  /// decides the bias, one site per return statement.
  const FunctionDecl *Helper = nullptr;
  const CallExpr *HelperCall = nullptr;
  std::vector<BiasSite> HelperReturns;

  /// The expression that builds the convolution module, where it is
  /// reported.
  const Expr *Built = nullptr;

  /// Decided by a parameter of ParamOwner (a helper or a module's
  /// constructor) at the call that is followed: `.bias(with_bias)`.
  const ParmVarDecl *FromParameter = nullptr;
  const FunctionDecl *ParamOwner = nullptr;
  /// The `.bias(...)` argument that names the parameter.
  const Expr *BiasArgument = nullptr;
  /// The call takes the parameter's default, which is DefaultArg.
  const Expr *DefaultArg = nullptr;
  SourceLocation InsertAt;
  std::string Before;
};

/// The arguments of the call whose callee's body is being read: a helper, or
/// the constructor a module's construction reaches. Args are as written, or
/// as forwarded by a ModuleHolder or std::make_shared: fewer than the
/// parameters when the call takes defaults.
struct Binding {
  const FunctionDecl *Callee = nullptr;
  std::vector<const Expr *> Args;
  /// The closing parenthesis or brace of the call.
  SourceLocation Close;
};

class BiasAnalyzer {
public:
  BiasAnalyzer(ASTContext &Ctx, const SourceManager &SM) : Ctx(Ctx), SM(SM) {}

  /// \p E evaluates to a convolution module (holder, shared_ptr or impl).
  BiasSite ofModule(const Expr *E, unsigned Depth = 0);
  /// \p E evaluates to a ConvOptions.
  BiasSite ofOptions(const Expr *E, unsigned Depth = 0);

private:
  BiasSite ofOptionsChain(const Expr *E, unsigned Depth);
  BiasSite ofConstructorArgs(const Expr *const *Args, unsigned NumArgs,
                             const std::string &ConvName, unsigned Depth);
  BiasSite ofHelper(const CallExpr *Call, bool ReturnsOptions, unsigned Depth);
  BiasSite ofVariable(const DeclRefExpr *Ref, bool IsOptions, unsigned Depth);
  BiasSite ofVariableSetters(const VarDecl *VD, const DeclRefExpr *Ref,
                             const std::vector<const CXXMemberCallExpr *> &Set);
  BiasSite ofBiasArgument(const Expr *Arg);
  BiasSite ofParameter(const ParmVarDecl *P, const Expr *BiasArg);
  void addArgumentFix(BiasSite &Site, const ParmVarDecl *P);
  BiasSite ofHelperReturns(const CallExpr *Call, const FunctionDecl *Def,
                           bool ReturnsOptions, unsigned Depth);

public:
  /// ofModule() with the parameters of \p B->Callee bound to its arguments.
  BiasSite ofModuleWith(const Expr *E, const Binding &B) {
    const Binding *Saved = std::exchange(Bound, &B);
    BiasSite Site = ofModule(E);
    Bound = Saved;
    return Site;
  }

private:
  ASTContext &Ctx;
  const SourceManager &SM;
  const Binding *Bound = nullptr;
};

BiasSite BiasAnalyzer::ofModule(const Expr *E, unsigned Depth) {
  BiasSite Unknown;
  E = strip(E);
  if (!E || Depth > MaxHelperDepth)
    return Unknown;
  auto BuiltBy = [E](BiasSite Site) {
    if (!Site.Built)
      Site.Built = E;
    return Site;
  };
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    std::string Name = moduleType(CE->getType()).Name;
    if (CE->getNumArgs() == 1) {
      const Expr *Arg = CE->getArg(0);
      // An empty holder (`Conv2d conv{nullptr}`) builds nothing.
      if (strip(Arg)->getType()->isNullPtrType())
        return Unknown;
      if (isConvOptions(Arg->getType()))
        return BuiltBy(ofOptions(Arg, Depth));
      if (moduleType(Arg->getType()).Kind == ModuleKind::Conv)
        return ofModule(Arg, Depth);
      return Unknown;
    }
    return BuiltBy(
        ofConstructorArgs(CE->getArgs(), CE->getNumArgs(), Name, Depth));
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD)
      return Unknown;
    if (isTorchNnModuleMethod(FD, "register_module") && Call->getNumArgs() == 2)
      return ofModule(Call->getArg(1), Depth);
    if (FD->getIdentifier() && FD->getName() == "make_shared" &&
        FD->isInStdNamespace()) {
      std::string Name = moduleType(Call->getType()).Name;
      if (Call->getNumArgs() == 1 && isConvOptions(Call->getArg(0)->getType()))
        return BuiltBy(ofOptions(Call->getArg(0), Depth));
      return BuiltBy(
          ofConstructorArgs(Call->getArgs(), Call->getNumArgs(), Name, Depth));
    }
    return BuiltBy(ofHelper(Call, /*ReturnsOptions=*/false, Depth));
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return ofVariable(Ref, /*IsOptions=*/false, Depth);
  return Unknown;
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

/// Collects the return statements of a function, not those of the lambdas
/// and local classes in it.
class ReturnCollector : public RecursiveASTVisitor<ReturnCollector> {
public:
  std::vector<const ReturnStmt *> Returns;
  bool VisitReturnStmt(ReturnStmt *R) {
    Returns.push_back(R);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
};

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
BiasSite ofParameterReturns(const std::vector<BiasSite> &Returns,
                            const CallExpr *Call, const FunctionDecl *Def) {
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
const ParmVarDecl *parameterWithDefault(const FunctionDecl *FD, unsigned I) {
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

bool isLiteral(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus))
    E = U->getSubExpr()->IgnoreParenImpCasts();
  return isa<IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
             CharacterLiteral, StringLiteral, CXXNullPtrLiteralExpr>(E);
}

BiasSite BiasAnalyzer::ofParameter(const ParmVarDecl *P, const Expr *BiasArg) {
  BiasSite Site;
  const auto *Owner = dyn_cast<FunctionDecl>(P->getDeclContext());
  if (!Bound || !Bound->Callee || !Owner ||
      Owner->getCanonicalDecl() != Bound->Callee->getCanonicalDecl())
    return Site;
  const Stmt *Body = Bound->Callee->getBody();
  if (!Body || ExprMutationAnalyzer(*Body, Ctx).isMutated(P))
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
    Site.NoFix = "'" + Callee->getNameAsString() +
                 "' takes a variable number of arguments";
    return;
  }
  if (Bound->Close.isInvalid() || Bound->Close.isMacroID()) {
    Site.NoFix = "the call is written in a macro";
    return;
  }
  unsigned Written = llvm::count_if(
      Bound->Args, [](const Expr *A) { return !isa<CXXDefaultArgExpr>(A); });
  std::string Text;
  for (unsigned J = Written; J < P->getFunctionScopeIndex(); ++J) {
    const ParmVarDecl *Q = parameterWithDefault(Callee, J);
    const Expr *D = Q ? Q->getDefaultArg() : nullptr;
    if (!D || !isLiteral(D) || D->getBeginLoc().isMacroID()) {
      Site.NoFix = "the parameters before '" + P->getName().str() +
                   "' have defaults that are not literals";
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
const CXXMemberCallExpr *biasSetterStatement(const DeclRefExpr *Use,
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

bool isOtherSetter(const DeclRefExpr *Use, ASTContext &Ctx);
void limitVariableFix(BiasSite &Site, const VarDecl *VD, unsigned OtherUses);

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
bool isOtherSetter(const DeclRefExpr *Use, ASTContext &Ctx) {
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
void limitVariableFix(BiasSite &Site, const VarDecl *VD, unsigned OtherUses) {
  if (Site.State != Bias::On || !Site.NoFix.empty() || Site.Helper ||
      Site.FromParameter)
    return;
  if (OtherUses) {
    Site.Fix = BiasSite::FixKind::None;
    Site.NoFix =
        "options variable '" + VD->getName().str() + "' is used elsewhere too";
  } else if (Site.Fix == BiasSite::FixKind::AppendToOptions && Site.Target &&
             Site.Target->getBeginLoc() == VD->getLocation()) {
    // `Conv2dOptions opts(3, 16, 3);`: no expression to append to.
    Site.Fix = BiasSite::FixKind::None;
    Site.NoFix = "options variable '" + VD->getName().str() +
                 "' is built by its declaration; set .bias(false) on it";
  }
}

//===----------------------------------------------------------------------===//
// Which BatchNorm takes the output
//===----------------------------------------------------------------------===//

struct BatchNormUse {
  std::string Description; // "BatchNorm2d 'bn1'"
  SourceLocation Loc;
  /// The BatchNorm is applied only when Flag holds: `if (use_bn) ...`.
  const Expr *Flag = nullptr;
};

/// The name a module is held under: a member, a variable, or the name of a
/// Sequential entry.
std::string nameOfHolder(const Expr *E) {
  E = strip(E);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && OC->getOperator() == OO_Arrow)
    E = strip(OC->getArg(0));
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->getMemberDecl()->getNameAsString();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl()->getNameAsString();
  return "";
}

BatchNormUse describeBatchNorm(const std::string &TypeName,
                               const std::string &Name, SourceLocation Loc) {
  BatchNormUse U;
  U.Description = TypeName + (Name.empty() ? "" : " '" + Name + "'");
  U.Loc = Loc;
  return U;
}

/// For a call of a module's forward (`m(x)`, `m->forward(x)`), the module
/// expression and the input.
struct ModuleCall {
  const Expr *Module = nullptr;
  const Expr *Input = nullptr;
};

std::optional<ModuleCall> asModuleCall(const Expr *E) {
  E = strip(E);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->getOperator() == OO_Call && OC->getNumArgs() == 2 &&
        moduleType(OC->getArg(0)->getType()).Kind != ModuleKind::None)
      return ModuleCall{OC->getArg(0), OC->getArg(1)};
    return std::nullopt;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    // Without the cast to the base class that declares forward().
    const Expr *Obj = MC->getImplicitObjectArgument();
    Obj = Obj ? Obj->IgnoreParenImpCasts() : nullptr;
    if (!M || !M->getIdentifier() || M->getName() != "forward" || !Obj ||
        MC->getNumArgs() != 1)
      return std::nullopt;
    QualType T = Obj->getType();
    if (T->isPointerType())
      T = T->getPointeeType();
    if (moduleType(T).Kind == ModuleKind::None)
      return std::nullopt;
    return ModuleCall{Obj, MC->getArg(0)};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Traversal of the user's code
//===----------------------------------------------------------------------===//

/// Visits the declarations of the translation unit that are not LibTorch's
/// or the standard library's.
template <typename Derived>
class UserCodeVisitor : public RecursiveASTVisitor<Derived> {
public:
  explicit UserCodeVisitor(const SourceManager &SM) : SM(SM) {}
  void visitUserCode(ASTContext &Ctx) {
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (!utils::isInLibTorchHeader(D->getLocation(), SM))
        this->TraverseDecl(D);
  }
  bool shouldVisitTemplateInstantiations() const { return false; }

protected:
  const SourceManager &SM;
};

/// The uses of some fields and functions.
class UseCollector : public UserCodeVisitor<UseCollector> {
public:
  using UserCodeVisitor::UserCodeVisitor;
  llvm::SmallPtrSet<const FieldDecl *, 8> Fields;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Functions;
  llvm::DenseMap<const FieldDecl *, std::vector<const MemberExpr *>> FieldUses;
  llvm::DenseMap<const FunctionDecl *, std::vector<const Expr *>> FunctionUses;

  bool VisitMemberExpr(MemberExpr *ME) {
    if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      if (Fields.count(FD))
        FieldUses[FD].push_back(ME);
    if (const auto *FD = dyn_cast<FunctionDecl>(ME->getMemberDecl()))
      if (Functions.count(FD->getCanonicalDecl()))
        FunctionUses[FD->getCanonicalDecl()].push_back(ME);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
      if (Functions.count(FD->getCanonicalDecl()))
        FunctionUses[FD->getCanonicalDecl()].push_back(DRE);
    return true;
  }
};

struct Candidate {
  const Expr *Source = nullptr; // evaluates to the convolution
  BiasSite Site;
  BatchNormUse BatchNorm;
  /// The member, for a convolution built by a module's constructor from
  /// one of its parameters.
  std::string Member;

  /// Where the convolution is built, which is where it is reported.
  const Expr *reportAt() const { return Site.Built ? Site.Built : Source; }
};

/// A module of the user's class that a BatchNorm follows.
struct ModuleEntry {
  const Expr *Module;
  BatchNormUse BatchNorm;
};

} // namespace

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

struct ConvBiasBeforeBatchNormCheck::State {
  ASTContext *Ctx = nullptr;
  const SourceManager *SM = nullptr;
  std::vector<Candidate> Candidates;
  std::vector<ModuleEntry> UserModules;
  llvm::SetVector<const CXXRecordDecl *> ClassesWithConvs;
  SourceLocation CheckpointLoad;
  std::string CheckpointLoader;
};

ConvBiasBeforeBatchNormCheck::ConvBiasBeforeBatchNormCheck(
    StringRef Name, ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      CheckpointLoaders(tidy::utils::options::parseStringList(
          Options.get("CheckpointLoaders", "load_state_dict"))),
      TU(std::make_unique<State>()) {}

ConvBiasBeforeBatchNormCheck::~ConvBiasBeforeBatchNormCheck() = default;

void ConvBiasBeforeBatchNormCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(
      Opts, "CheckpointLoaders",
      llvm::join(CheckpointLoaders.begin(), CheckpointLoaders.end(), ";"));
}

void ConvBiasBeforeBatchNormCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto SequentialClass = cxxRecordDecl(
      hasAnyName("::torch::nn::Sequential", "::torch::nn::SequentialImpl"));
  Finder->addMatcher(cxxConstructExpr(utils::isOutsideLibTorch(),
                                      hasType(SequentialClass),
                                      unless(isInTemplateInstantiation()))
                         .bind("sequential"),
                     this);
  Finder->addMatcher(
      cxxMemberCallExpr(utils::isOutsideLibTorch(),
                        callee(cxxMethodDecl(
                            hasName("push_back"),
                            ofClass(hasName("::torch::nn::SequentialImpl")))),
                        unless(isInTemplateInstantiation()))
          .bind("push_back"),
      this);
  Finder->addMatcher(fieldDecl(utils::isOutsideLibTorch()).bind("field"), this);

  std::vector<StringRef> Loaders(CheckpointLoaders);
  Finder->addMatcher(
      callExpr(utils::isOutsideLibTorch(),
               callee(functionDecl(anyOf(hasAnyName("::torch::load",
                                                    "::torch::jit::load"),
                                         hasAnyName(Loaders)))
                          .bind("loader")))
          .bind("load"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasName("load"),
                               ofClass(hasName("::torch::nn::Module")))
                     .bind("loader")))
          .bind("load"),
      this);
}

namespace {

/// The entries of a Sequential's constructor: the modules, with the names
/// of the `{"name", module}` form.
struct Entry {
  const Expr *Module;
  std::string Name;
};

std::string stringLiteralIn(const Expr *E) {
  for (const Stmt *S = E; S;) {
    if (const auto *SL = dyn_cast<StringLiteral>(S))
      return SL->getString().str();
    auto Children = S->children();
    S = Children.empty() ? nullptr : *Children.begin();
  }
  return "";
}

std::vector<Entry> sequentialEntries(const CXXConstructExpr *CE) {
  std::vector<Entry> Entries;
  if (CE->getNumArgs() == 1)
    if (const auto *IL =
            dyn_cast<CXXStdInitializerListExpr>(strip(CE->getArg(0)))) {
      const auto *List = dyn_cast<InitListExpr>(strip(IL->getSubExpr()));
      if (!List)
        return Entries;
      for (const Expr *Init : List->inits()) {
        const auto *Named = dyn_cast<CXXConstructExpr>(strip(Init));
        if (!Named || Named->getNumArgs() != 2)
          return {};
        Entries.push_back(
            {Named->getArg(1), stringLiteralIn(Named->getArg(0))});
      }
      return Entries;
    }
  for (const Expr *Arg : CE->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg))
      Entries.push_back({Arg, ""});
  return Entries;
}

const Stmt *nextStatement(const Stmt *S, const CompoundStmt *C) {
  for (auto It = C->body_begin(), End = C->body_end(); It != End; ++It)
    if (*It == S)
      return std::next(It) == End ? nullptr : *std::next(It);
  return nullptr;
}

/// The declaration a Sequential is reached through: `seq->push_back` or
/// `this->seq->push_back`.
const ValueDecl *pushBackTarget(const CXXMemberCallExpr *Call) {
  const Expr *Obj = strip(Call->getImplicitObjectArgument());
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Obj);
      OC && OC->getOperator() == OO_Arrow)
    Obj = strip(OC->getArg(0));
  if (const auto *ME = dyn_cast<MemberExpr>(Obj))
    return isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())
               ? ME->getMemberDecl()
               : nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj))
    return DRE->getDecl();
  return nullptr;
}

const CXXMemberCallExpr *asPushBack(const Stmt *S) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  const auto *Call = E ? dyn_cast<CXXMemberCallExpr>(strip(E)) : nullptr;
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || M->getName() != "push_back" ||
      M->getParent()->getName() != "SequentialImpl" || Call->getNumArgs() == 0)
    return nullptr;
  return Call;
}

/// `if (use_bn) S;` or `if (use_bn) { S; ... }` without an else: the first
/// statement S, and in \p Flag the condition.
const Stmt *guardedStatement(const Stmt *S, const Expr *&Flag) {
  const auto *If = dyn_cast_or_null<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *Then = If->getThen();
  if (const auto *Block = dyn_cast<CompoundStmt>(Then))
    Then = Block->body_empty() ? nullptr : Block->body_front();
  if (Then)
    Flag = If->getCond();
  return Then;
}

/// `if (use_bn) seq->push_back(...);`, also with braces around the
/// push_back and more statements after it: the push_back and the condition.
std::pair<const CXXMemberCallExpr *, const Expr *>
pushBackUnderFlag(const Stmt *S) {
  const Expr *Flag = nullptr;
  const CXXMemberCallExpr *Push = asPushBack(guardedStatement(S, Flag));
  if (!Push)
    return {};
  return {Push, Flag};
}

/// The BatchNorm that the statement after \p Push, a push_back of a
/// convolution, pushes onto the same Sequential, unconditionally or under a
/// flag that may hold.
std::optional<BatchNormUse> pushedBatchNorm(const CXXMemberCallExpr *Push,
                                            ASTContext &Ctx) {
  const Expr *ConvArg = Push->getArg(Push->getNumArgs() - 1);
  ModuleKind Kind = moduleType(ConvArg->getType()).Kind;
  if (Kind != ModuleKind::Conv && Kind != ModuleKind::Other)
    return std::nullopt;
  auto [Statement, Compound] = utils::statementInBlock(Push, Ctx);
  if (!Compound || asPushBack(Statement) != Push)
    return std::nullopt;
  const Stmt *Next = nextStatement(Statement, Compound);
  const CXXMemberCallExpr *NextPush = asPushBack(Next);
  const Expr *Flag = nullptr;
  if (!NextPush)
    std::tie(NextPush, Flag) = pushBackUnderFlag(Next);
  const ValueDecl *Target = pushBackTarget(Push);
  if (!NextPush || !Target || pushBackTarget(NextPush) != Target)
    return std::nullopt;
  // A flag that is provably false adds no BatchNorm.
  if (Flag && utils::provableBool(Flag, Ctx) == false)
    return std::nullopt;
  const Expr *BNArg = NextPush->getArg(NextPush->getNumArgs() - 1);
  ModuleType BN = moduleType(BNArg->getType());
  if (BN.Kind != ModuleKind::BatchNorm)
    return std::nullopt;
  std::string Name =
      NextPush->getNumArgs() == 2 ? stringLiteralIn(NextPush->getArg(0)) : "";
  BatchNormUse Use =
      describeBatchNorm(BN.Name, Name, strip(BNArg)->getBeginLoc());
  Use.Flag = Flag;
  return Use;
}

/// \p Module, followed by \p BN: a convolution, or a module of the user's
/// that may return one's output.
void addCandidate(ConvBiasBeforeBatchNormCheck::State &TU,
                  BiasAnalyzer &Analyzer, const Expr *Module, BatchNormUse BN) {
  ModuleKind Kind = moduleType(Module->getType()).Kind;
  if (Kind == ModuleKind::Other && !BN.Flag)
    TU.UserModules.push_back({Module, BN});
  if (Kind != ModuleKind::Conv)
    return;
  BiasSite Site = Analyzer.ofModule(Module);
  if (Site.State == Bias::On)
    TU.Candidates.push_back({strip(Module), std::move(Site), std::move(BN)});
}

} // namespace

void ConvBiasBeforeBatchNormCheck::check(
    const MatchFinder::MatchResult &Result) {
  TU->Ctx = Result.Context;
  TU->SM = Result.SourceManager;
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  BiasAnalyzer Analyzer(Ctx, SM);
  auto AddCandidate = [&](const Expr *Module, BatchNormUse BN) {
    addCandidate(*TU, Analyzer, Module, std::move(BN));
  };

  if (const auto *Load = Result.Nodes.getNodeAs<CallExpr>("load")) {
    if (utils::isInLibTorchHeader(Load->getBeginLoc(), SM))
      return;
    const auto *Loader = Result.Nodes.getNodeAs<FunctionDecl>("loader");
    // torch::load(optimizer, ...) and torch::load(tensor, ...) load no
    // module weights.
    if (Loader->getQualifiedNameAsString() == "torch::load" &&
        (Load->getNumArgs() == 0 ||
         !utils::isSameOrDerivedFrom(moduleClass(Load->getArg(0)->getType()),
                                     "torch::nn::Module")))
      return;
    if (TU->CheckpointLoad.isInvalid() ||
        SM.isBeforeInTranslationUnit(Load->getBeginLoc(), TU->CheckpointLoad)) {
      TU->CheckpointLoad = Load->getBeginLoc();
      TU->CheckpointLoader = Loader->getQualifiedNameAsString();
    }
    return;
  }

  if (const auto *Field = Result.Nodes.getNodeAs<FieldDecl>("field")) {
    const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
    if (RD && !isa<ClassTemplateSpecializationDecl>(RD) &&
        !utils::isInLibTorchHeader(Field->getLocation(), SM) &&
        moduleType(Field->getType()).Kind == ModuleKind::Conv)
      TU->ClassesWithConvs.insert(RD);
    return;
  }

  if (const auto *Seq =
          Result.Nodes.getNodeAs<CXXConstructExpr>("sequential")) {
    if (utils::isInLibTorchHeader(Seq->getBeginLoc(), SM))
      return;
    std::vector<Entry> Entries = sequentialEntries(Seq);
    for (size_t I = 0; I + 1 < Entries.size(); ++I) {
      ModuleType Next = moduleType(Entries[I + 1].Module->getType());
      if (Next.Kind == ModuleKind::BatchNorm)
        AddCandidate(
            Entries[I].Module,
            describeBatchNorm(Next.Name, Entries[I + 1].Name,
                              strip(Entries[I + 1].Module)->getBeginLoc()));
    }
    return;
  }

  if (const auto *Push =
          Result.Nodes.getNodeAs<CXXMemberCallExpr>("push_back")) {
    if (utils::isInLibTorchHeader(Push->getBeginLoc(), SM))
      return;
    if (std::optional<BatchNormUse> BN = pushedBatchNorm(Push, Ctx))
      AddCandidate(Push->getArg(Push->getNumArgs() - 1), std::move(*BN));
    return;
  }
}

namespace {

/// Finds, for the convolution members of one class, whether every call of
/// each goes straight into a BatchNorm, and where each is built.
class MemberAnalysis {
public:
  MemberAnalysis(ASTContext &Ctx, const UseCollector &Uses)
      : Ctx(Ctx), Uses(Uses) {}

  /// The BatchNorm every call of \p Field feeds, and the expressions that
  /// build it; std::nullopt when a use of the field is not understood.
  std::optional<std::pair<BatchNormUse, std::vector<const Expr *>>>
  analyze(const FieldDecl *Field, const CXXRecordDecl *RD);

private:
  /// The variable a convolution's output is stored in.
  struct Assigned {
    const VarDecl *Var;
    const Stmt *Statement;
    bool Declared;
  };

  enum class UseKind { Assigned, Called, Ignored, Other };
  struct Use {
    UseKind Kind;
    const Expr *E; // the value assigned, or the call
  };

  Use classify(const MemberExpr *Member);
  std::optional<BatchNormUse> consumer(const Expr *Call);
  std::optional<Assigned> assignedTo(const Stmt *Child, const Stmt *Parent);
  std::optional<BatchNormUse> consumerInNextStatement(const Assigned &Out);
  const DeclRefExpr *singleRead(const Stmt *S, const VarDecl *Var,
                                const DeclRefExpr *Skip);
  std::optional<BatchNormUse> batchNormTaking(const DeclRefExpr *Ref);
  bool readAfter(const CompoundStmt *Compound, const Stmt *After,
                 const VarDecl *Var);
  const Stmt *skipUp(const Stmt *S, const Stmt **Child);

  ASTContext &Ctx;
  const UseCollector &Uses;
};

/// The parent of \p S above implicit casts, parentheses and temporaries;
/// \p Child receives the node right below it.
const Stmt *MemberAnalysis::skipUp(const Stmt *S, const Stmt **Child) {
  while (S) {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    const Stmt *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!P ||
        !(isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
              CXXBindTemporaryExpr, ExprWithCleanups, CXXFunctionalCastExpr>(
              P) ||
          (isa<CXXConstructExpr>(P) &&
           cast<CXXConstructExpr>(P)->getNumArgs() == 1 &&
           cast<CXXConstructExpr>(P)
               ->getConstructor()
               ->isCopyOrMoveConstructor()))) {
      if (Child)
        *Child = S;
      return P;
    }
    S = P;
  }
  return nullptr;
}

/// The BatchNorm called by \p E, a module call, with its name.
std::optional<BatchNormUse> batchNormOf(const Expr *E) {
  std::optional<ModuleCall> MC = E ? asModuleCall(E) : std::nullopt;
  if (!MC)
    return std::nullopt;
  QualType T = MC->Module->getType();
  if (T->isPointerType())
    T = T->getPointeeType();
  ModuleType BN = moduleType(T);
  if (BN.Kind != ModuleKind::BatchNorm)
    return std::nullopt;
  return describeBatchNorm(BN.Name, nameOfHolder(MC->Module),
                           strip(MC->Module)->getBeginLoc());
}

/// The BatchNorm that takes the result of \p Call, a call of a convolution
/// module, as its input and nothing else does.
std::optional<BatchNormUse> MemberAnalysis::consumer(const Expr *Call) {
  const Stmt *Child = nullptr;
  const Stmt *Parent = skipUp(Call, &Child);
  // bn(conv(x)), bn->forward(conv->forward(x))
  if (const auto *ParentCall = dyn_cast_or_null<Expr>(Parent))
    if (std::optional<ModuleCall> MC = asModuleCall(ParentCall);
        MC && stripCopies(MC->Input) == strip(Call))
      return batchNormOf(ParentCall);
  // auto y = conv(x);  /  x = conv(x);  followed by  y = bn(y);
  std::optional<Assigned> Out = assignedTo(Child, Parent);
  if (!Out)
    return std::nullopt;
  return consumerInNextStatement(*Out);
}

/// `auto y = conv(x);` or `x = conv(x);`: the variable and the statement.
std::optional<MemberAnalysis::Assigned>
MemberAnalysis::assignedTo(const Stmt *Child, const Stmt *Parent) {
  DynTypedNodeList Parents = Ctx.getParents(*Child);
  if (const auto *VD = Parents.empty() ? nullptr : Parents[0].get<VarDecl>()) {
    for (const DynTypedNode &P : Ctx.getParents(*VD))
      if (const auto *DS = P.get<DeclStmt>(); DS && DS->isSingleDecl())
        return Assigned{VD, DS, /*Declared=*/true};
    return std::nullopt;
  }
  const auto *Assign = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
  if (!Assign || Assign->getOperator() != OO_Equal ||
      Assign->getNumArgs() != 2 || Assign->getArg(1) != Child)
    return std::nullopt;
  const auto *DRE = dyn_cast<DeclRefExpr>(strip(Assign->getArg(0)));
  const auto *Var = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!Var)
    return std::nullopt;
  // The statement is the assignment with its cleanups; it has to be a
  // statement of the compound, not part of a larger expression.
  const Stmt *Above = Assign;
  skipUp(Assign, &Above);
  return Assigned{Var, Above, /*Declared=*/false};
}

/// `x = bn(x)` as statement \p S: the reference to \p Var it assigns.
const DeclRefExpr *overwrites(const Stmt *S, const VarDecl *Var) {
  const auto *E = dyn_cast<Expr>(S);
  const auto *Assign = E ? dyn_cast<CXXOperatorCallExpr>(strip(E)) : nullptr;
  if (!Assign || Assign->getOperator() != OO_Equal)
    return nullptr;
  const auto *LHS = dyn_cast<DeclRefExpr>(strip(Assign->getArg(0)));
  return LHS && LHS->getDecl() == Var ? LHS : nullptr;
}

/// The only reference to \p Var in \p S besides \p Skip.
const DeclRefExpr *MemberAnalysis::singleRead(const Stmt *S, const VarDecl *Var,
                                              const DeclRefExpr *Skip) {
  const DeclRefExpr *Ref = nullptr;
  for (const DeclRefExpr *R :
       tidy::utils::decl_ref_expr::allDeclRefExprs(*Var, *S, Ctx)) {
    if (R == Skip)
      continue;
    if (Ref)
      return nullptr;
    Ref = R;
  }
  return Ref;
}

/// The BatchNorm whose input is \p Ref.
std::optional<BatchNormUse>
MemberAnalysis::batchNormTaking(const DeclRefExpr *Ref) {
  const Stmt *RefChild = nullptr;
  const auto *BNCall = dyn_cast_or_null<Expr>(skipUp(Ref, &RefChild));
  std::optional<ModuleCall> MC = BNCall ? asModuleCall(BNCall) : std::nullopt;
  if (!MC || stripCopies(MC->Input) != Ref)
    return std::nullopt;
  return batchNormOf(BNCall);
}

bool MemberAnalysis::readAfter(const CompoundStmt *Compound, const Stmt *After,
                               const VarDecl *Var) {
  bool Past = false;
  for (const Stmt *S : Compound->body()) {
    if (Past &&
        !tidy::utils::decl_ref_expr::allDeclRefExprs(*Var, *S, Ctx).empty())
      return true;
    if (S == After)
      Past = true;
  }
  return false;
}

/// The statement after \p Out's: a BatchNorm of the variable, maybe under a
/// flag (`if (use_bn) x = bn(x);`), after which the convolution's output is
/// not read again.
std::optional<BatchNormUse>
MemberAnalysis::consumerInNextStatement(const Assigned &Out) {
  auto [Stmt0, Compound] = utils::statementInBlock(Out.Statement, Ctx);
  if (Stmt0 != Out.Statement || !Compound)
    return std::nullopt;
  const Stmt *Next = nextStatement(Out.Statement, Compound);
  const Stmt *Statement = Next;
  const Expr *Flag = nullptr;
  if (const Stmt *Guarded = guardedStatement(Next, Flag))
    Next = Guarded;
  if (!Next || (Flag && utils::provableBool(Flag, Ctx) == false))
    return std::nullopt;
  // `x = bn(x);` overwrites the convolution's output: the variable is not
  // read after the BatchNorm.
  const DeclRefExpr *Overwritten = overwrites(Next, Out.Var);
  if (Flag && !Overwritten)
    return std::nullopt;
  const DeclRefExpr *Ref = singleRead(Next, Out.Var, Overwritten);
  std::optional<BatchNormUse> BN = Ref ? batchNormTaking(Ref) : std::nullopt;
  if (!BN)
    return std::nullopt;
  BN->Flag = Flag;
  // The convolution's output must not be read after the BatchNorm: either
  // the next statement overwrites the variable, or nothing reads it again.
  if (Overwritten)
    return BN;
  if (!Out.Declared || readAfter(Compound, Statement, Out.Var))
    return std::nullopt;
  return BN;
}

/// The expressions that build \p Field where it is declared and in the
/// constructors' initializer lists.
std::vector<const Expr *> initializersOf(const FieldDecl *Field,
                                         const CXXRecordDecl *RD) {
  std::vector<const Expr *> Sources;
  if (const Expr *Init = Field->getInClassInitializer())
    Sources.push_back(Init);
  for (const CXXConstructorDecl *Ctor : RD->ctors()) {
    const auto *Def =
        dyn_cast_or_null<CXXConstructorDecl>(Ctor->getDefinition());
    if (!Def)
      continue;
    for (const CXXCtorInitializer *Init : Def->inits())
      if (Init->getMember() == Field && Init->isWritten() &&
          !isa<CXXDefaultInitExpr>(Init->getInit()))
        Sources.push_back(Init->getInit());
  }
  return Sources;
}

/// What a use of a convolution member does.
MemberAnalysis::Use MemberAnalysis::classify(const MemberExpr *Member) {
  const Stmt *Child = nullptr;
  const Stmt *Parent = skipUp(Member, &Child);
  const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
  // conv = register_module(...)  /  conv = Conv2d(...)
  if (OC && OC->getOperator() == OO_Equal && OC->getArg(0) == Child)
    return {UseKind::Assigned, OC->getArg(1)};
  // register_module("conv", conv)
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
      Call && !OC &&
      isTorchNnModuleMethod(Call->getDirectCallee(), "register_module"))
    return {UseKind::Ignored, nullptr};
  // if (conv)
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Parent);
      ME && isa<CXXConversionDecl>(ME->getMemberDecl()))
    return {UseKind::Ignored, nullptr};
  // conv(x)
  if (OC && OC->getOperator() == OO_Call && OC->getArg(0) == Child)
    return {UseKind::Called, OC};
  // conv->forward(x)
  if (OC && OC->getOperator() == OO_Arrow)
    if (const Stmt *Up = skipUp(OC, nullptr))
      if (const auto *ME = dyn_cast<MemberExpr>(Up))
        if (const Stmt *Up2 = skipUp(ME, nullptr))
          if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Up2);
              MC && MC->getCallee()->IgnoreParens() == ME && asModuleCall(MC))
            return {UseKind::Called, MC};
  return {UseKind::Other, nullptr};
}

std::optional<std::pair<BatchNormUse, std::vector<const Expr *>>>
MemberAnalysis::analyze(const FieldDecl *Field, const CXXRecordDecl *RD) {
  std::vector<const Expr *> Sources = initializersOf(Field, RD);
  std::optional<BatchNormUse> First;
  auto It = Uses.FieldUses.find(Field);
  if (It == Uses.FieldUses.end())
    return std::nullopt;
  for (const MemberExpr *ME : It->second) {
    Use U = classify(ME);
    if (U.Kind == UseKind::Assigned)
      Sources.push_back(U.E);
    if (U.Kind == UseKind::Other)
      return std::nullopt;
    if (U.Kind != UseKind::Called)
      continue;
    std::optional<BatchNormUse> BN = consumer(U.E);
    if (!BN)
      return std::nullopt;
    if (!First)
      First = BN;
  }
  if (!First || Sources.empty())
    return std::nullopt;
  return std::make_pair(*First, Sources);
}

std::string lineOf(SourceLocation Loc, const SourceManager &SM) {
  return std::to_string(SM.getExpansionLineNumber(Loc));
}

//===----------------------------------------------------------------------===//
// Modules whose constructor decides the bias from a parameter
//===----------------------------------------------------------------------===//

/// One construction of a module class: `ConvBlock(3, 64)` (the holder
/// forwards its arguments), `ConvBlockImpl(3, 64)` or
/// `std::make_shared<ConvBlockImpl>(3, 64)`.
struct Construction {
  const Expr *At = nullptr;
  Binding Args; // Callee set only where the constructor is named
};

/// `Block(nullptr)`, `Block(std::make_shared<BlockImpl>(...))`.
bool takesModule(const Expr *Arg) {
  QualType T = strip(Arg)->getType();
  return T->isNullPtrType() || moduleClass(T) != T->getAsCXXRecordDecl();
}

/// \p E as a construction of module class \p RD with arguments.
std::optional<Construction> constructionAt(const Expr *E,
                                           const CXXRecordDecl *RD) {
  Construction C;
  C.At = E;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (moduleClass(CE->getType()) != RD || Ctor->isCopyOrMoveConstructor() ||
        CE->getNumArgs() == 0 || takesModule(CE->getArg(0)))
      return std::nullopt;
    if (Ctor->getParent() == RD)
      C.Args.Callee = Ctor;
    for (const Expr *Arg : CE->arguments())
      C.Args.Args.push_back(Arg);
    C.Args.Close = CE->getParenOrBraceRange().getEnd();
    return C;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || FD->getName() != "make_shared" ||
      !FD->isInStdNamespace() || Call->getNumArgs() == 0 ||
      moduleClass(Call->getType()) != RD || takesModule(Call->getArg(0)))
    return std::nullopt;
  for (const Expr *Arg : Call->arguments())
    C.Args.Args.push_back(Arg);
  C.Args.Close = Call->getRParenLoc();
  return C;
}

class ConstructionCollector : public UserCodeVisitor<ConstructionCollector> {
public:
  using UserCodeVisitor::UserCodeVisitor;
  llvm::SmallPtrSet<const CXXRecordDecl *, 4> Classes;
  llvm::DenseMap<const CXXRecordDecl *, std::vector<Construction>> Found;

  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    add(CE, moduleClass(CE->getType()));
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    add(Call, moduleClass(Call->getType()));
    return true;
  }

private:
  void add(const Expr *E, const CXXRecordDecl *RD) {
    if (!RD || !Classes.count(RD))
      return;
    if (std::optional<Construction> C = constructionAt(E, RD))
      Found[RD].push_back(std::move(*C));
  }
};

/// The one user-written constructor of \p RD that takes \p N arguments.
const CXXConstructorDecl *constructorFor(const CXXRecordDecl *RD, unsigned N) {
  const CXXConstructorDecl *Found = nullptr;
  for (const CXXConstructorDecl *C : RD->ctors()) {
    if (C->isImplicit() || C->isCopyOrMoveConstructor() ||
        C->getMinRequiredArguments() > N || N > C->getNumParams())
      continue;
    if (Found)
      return nullptr;
    Found = C;
  }
  return Found;
}

/// The constructor of \p RD whose definition holds \p Source.
const CXXConstructorDecl *constructorHolding(const CXXRecordDecl *RD,
                                             const Expr *Source,
                                             const SourceManager &SM) {
  SourceLocation L = Source->getBeginLoc();
  for (const CXXConstructorDecl *C : RD->ctors()) {
    const auto *Def = dyn_cast_or_null<CXXConstructorDecl>(C->getDefinition());
    if (!Def || Def->isImplicit())
      continue;
    SourceRange R = Def->getSourceRange();
    if (!SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
        !SM.isBeforeInTranslationUnit(R.getEnd(), L))
      return Def;
  }
  return nullptr;
}

/// A convolution member whose bias a constructor parameter decides.
struct PendingMember {
  const CXXRecordDecl *RD;
  const FieldDecl *Field;
  const Expr *Source;
  BatchNormUse BatchNorm;
};

std::optional<BiasSite> boundSite(BiasAnalyzer &Analyzer,
                                  const CXXRecordDecl *RD,
                                  const CXXConstructorDecl *Ctor,
                                  const Expr *Source, Construction C);

/// Reports, at each construction of the class that turns the bias on
/// (usually by taking the parameter's default), the members in \p Pending.
void bindConstructions(ConvBiasBeforeBatchNormCheck::State &S,
                       BiasAnalyzer &Analyzer,
                       const std::vector<PendingMember> &Pending) {
  ConstructionCollector Constructions(*S.SM);
  for (const PendingMember &P : Pending)
    Constructions.Classes.insert(P.RD);
  Constructions.visitUserCode(*S.Ctx);
  for (const PendingMember &P : Pending) {
    const CXXConstructorDecl *Ctor = constructorHolding(P.RD, P.Source, *S.SM);
    if (!Ctor)
      continue;
    for (const Construction &C : Constructions.Found.lookup(P.RD))
      if (std::optional<BiasSite> Site =
              boundSite(Analyzer, P.RD, Ctor, P.Source, C))
        S.Candidates.push_back({strip(P.Source), std::move(*Site), P.BatchNorm,
                                P.Field->getNameAsString()});
  }
}

/// The bias of \p Source, a member's initializer in constructor \p Ctor of
/// \p RD, at construction \p C, when a parameter turns it on there.
std::optional<BiasSite> boundSite(BiasAnalyzer &Analyzer,
                                  const CXXRecordDecl *RD,
                                  const CXXConstructorDecl *Ctor,
                                  const Expr *Source, Construction C) {
  if (!C.Args.Callee)
    C.Args.Callee = constructorFor(RD, C.Args.Args.size());
  if (!C.Args.Callee ||
      C.Args.Callee->getCanonicalDecl() != Ctor->getCanonicalDecl())
    return std::nullopt;
  C.Args.Callee = Ctor;
  BiasSite Site = Analyzer.ofModuleWith(Source, C.Args);
  if (Site.State != Bias::On || Site.ParamOwner != Ctor)
    return std::nullopt;
  Site.Helper = Ctor;
  Site.Built = C.At;
  return Site;
}

/// `conv(x)` or `conv->forward(x)` with `conv` a convolution member of the
/// class: the member.
const FieldDecl *calledConvMember(const Expr *E) {
  std::optional<ModuleCall> MC =
      E ? asModuleCall(stripCopies(E)) : std::nullopt;
  if (!MC)
    return nullptr;
  const Expr *Module = strip(MC->Module);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Module);
      OC && OC->getOperator() == OO_Arrow)
    Module = strip(OC->getArg(0));
  const auto *ME = dyn_cast<MemberExpr>(Module);
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!F || !isa<CXXThisExpr>(ME->getBase()->IgnoreImpCasts()) ||
      moduleType(F->getType()).Kind != ModuleKind::Conv)
    return nullptr;
  return F;
}

/// A module class of the user's whose forward returns the output of one of
/// its convolution members, `return conv(x);`, which nothing else outside
/// the constructors uses: that member.
const FieldDecl *forwardedConv(const CXXRecordDecl *RD, ASTContext &Ctx) {
  if (!RD || !RD->hasDefinition() || isInTorchNn(RD))
    return nullptr;
  RD = RD->getDefinition();
  const FieldDecl *Found = nullptr;
  size_t Returns = 0;
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = M->getDefinition();
    if (!M->getIdentifier() || M->getName() != "forward" || !Def ||
        !Def->hasBody())
      continue;
    ReturnCollector Collector;
    Collector.TraverseStmt(Def->getBody());
    for (const ReturnStmt *R : Collector.Returns) {
      const FieldDecl *F = calledConvMember(R->getRetValue());
      if (!F || (Found && F != Found))
        return nullptr;
      Found = F;
      ++Returns;
    }
  }
  if (!Found)
    return nullptr;
  size_t Uses = 0;
  for (const CXXMethodDecl *M : RD->methods())
    if (const FunctionDecl *Def = M->getDefinition();
        Def && Def->hasBody() && !isa<CXXConstructorDecl>(M))
      Uses += match(findAll(memberExpr(member(equalsNode(Found)))),
                    *Def->getBody(), Ctx)
                  .size();
  return Uses == Returns ? Found : nullptr;
}

/// The initializers of member \p F, and what the constructors' bodies
/// assign to it.
std::vector<const Expr *>
memberSources(const FieldDecl *F, const CXXRecordDecl *RD, ASTContext &Ctx) {
  std::vector<const Expr *> Sources = initializersOf(F, RD);
  auto Assigned = cxxOperatorCallExpr(
      hasOverloadedOperatorName("="),
      hasArgument(0, ignoringParenImpCasts(memberExpr(member(equalsNode(F))))),
      hasArgument(1, expr().bind("value")));
  for (const CXXConstructorDecl *Ctor : RD->ctors())
    if (const FunctionDecl *Def = Ctor->getDefinition(); Def && Def->hasBody())
      for (const BoundNodes &N : match(findAll(Assigned), *Def->getBody(), Ctx))
        Sources.push_back(N.getNodeAs<Expr>("value"));
  return Sources;
}

/// User modules whose forward returns a convolution's output, followed by a
/// BatchNorm: `Sequential(ConvBlock(3, 64), BatchNorm2d(64))`, reported
/// where the construction turns the bias on through a parameter.
void bindUserModules(ConvBiasBeforeBatchNormCheck::State &S,
                     BiasAnalyzer &Analyzer) {
  for (const ModuleEntry &E : S.UserModules) {
    const CXXRecordDecl *RD = moduleClass(E.Module->getType());
    const FieldDecl *F = forwardedConv(RD, *S.Ctx);
    std::optional<Construction> C =
        F ? constructionAt(stripCopies(E.Module), RD) : std::nullopt;
    if (!C)
      continue;
    for (const Expr *Source : memberSources(F, RD, *S.Ctx)) {
      const CXXConstructorDecl *Ctor = constructorHolding(RD, Source, *S.SM);
      if (!Ctor)
        continue;
      if (std::optional<BiasSite> Site =
              boundSite(Analyzer, RD, Ctor, Source, *C))
        S.Candidates.push_back({strip(Source), std::move(*Site), E.BatchNorm,
                                F->getNameAsString()});
    }
  }
}

/// The candidates built by \p Sources, the constructions of member
/// \p Member.Field; those a constructor parameter decides go to \p Pending.
void addMemberSources(ConvBiasBeforeBatchNormCheck::State &S,
                      BiasAnalyzer &Analyzer, const PendingMember &Member,
                      const std::vector<const Expr *> &Sources,
                      std::vector<PendingMember> &Pending) {
  for (const Expr *Source : Sources) {
    BiasSite Site = Analyzer.ofModule(Source);
    if (Site.State == Bias::On)
      S.Candidates.push_back(
          {strip(Source), std::move(Site), Member.BatchNorm});
    else if (Site.State == Bias::Unknown && !Member.BatchNorm.Flag)
      Pending.push_back({Member.RD, Member.Field, Source, Member.BatchNorm});
  }
}

/// Convolution members of the user's classes that feed a BatchNorm.
void collectMemberCandidates(ConvBiasBeforeBatchNormCheck::State &S,
                             BiasAnalyzer &Analyzer) {
  if (S.ClassesWithConvs.empty())
    return;
  UseCollector Uses(*S.SM);
  for (const CXXRecordDecl *RD : S.ClassesWithConvs)
    for (const FieldDecl *F : RD->fields())
      if (moduleType(F->getType()).Kind == ModuleKind::Conv)
        Uses.Fields.insert(F);
  Uses.visitUserCode(*S.Ctx);
  MemberAnalysis Members(*S.Ctx, Uses);
  std::vector<PendingMember> Pending;
  for (const CXXRecordDecl *RD : S.ClassesWithConvs)
    for (const FieldDecl *F : RD->fields())
      if (Uses.Fields.count(F))
        if (auto Found = Members.analyze(F, RD))
          addMemberSources(S, Analyzer, {RD, F, nullptr, Found->first},
                           Found->second, Pending);
  if (!Pending.empty())
    bindConstructions(S, Analyzer, Pending);
}

/// One diagnostic per construction, in source order. A BatchNorm under a
/// flag next to a bias from a parameter is left alone: the two may be tied
/// (`Block(c, /*use_bn=*/false)` building the conv with `.bias(!use_bn)`).
std::vector<Candidate>
uniqueCandidates(ConvBiasBeforeBatchNormCheck::State &S) {
  const SourceManager &SM = *S.SM;
  llvm::SmallPtrSet<const Expr *, 16> Seen;
  std::vector<Candidate> Candidates;
  for (Candidate &C : S.Candidates)
    if (!utils::isInLibTorchHeader(C.reportAt()->getBeginLoc(), SM) &&
        !(C.BatchNorm.Flag && C.Site.FromParameter) &&
        Seen.insert(C.reportAt()).second)
      Candidates.push_back(std::move(C));
  llvm::sort(Candidates, [&](const Candidate &A, const Candidate &B) {
    return SM.isBeforeInTranslationUnit(A.reportAt()->getBeginLoc(),
                                        B.reportAt()->getBeginLoc());
  });
  return Candidates;
}

//===----------------------------------------------------------------------===//
// Messages and fix-its
//===----------------------------------------------------------------------===//

struct Note {
  SourceLocation Loc;
  const char *Format; // with %0
  std::string Arg;
};

struct Finding {
  std::string Message;
  std::vector<FixItHint> Fixes;
  std::vector<Note> Notes;
};

/// \p E without a leading `!`.
const Expr *withoutNot(const Expr *E) {
  if (const auto *Not = dyn_cast<UnaryOperator>(E);
      Not && Not->getOpcode() == UO_LNot)
    return Not->getSubExpr()->IgnoreParenImpCasts();
  return E;
}

class FindingBuilder {
public:
  FindingBuilder(const ConvBiasBeforeBatchNormCheck::State &S,
                 const std::vector<Candidate> &Candidates,
                 const LangOptions &LangOpts)
      : S(S), Ctx(*S.Ctx), SM(*S.SM), LangOpts(LangOpts),
        Candidates(Candidates), HelperUses(SM) {
    for (const Candidate &C : Candidates)
      if (C.Site.Helper && !C.Site.FromParameter)
        HelperUses.Functions.insert(C.Site.Helper->getCanonicalDecl());
    if (!HelperUses.Functions.empty())
      HelperUses.visitUserCode(Ctx);
  }

  Finding build(const Candidate &C);

private:
  std::string subject(const Candidate &C) const;
  std::string fixes(const Candidate &C, std::vector<FixItHint> &Fixes);
  bool fixesAt(const BiasSite &Site, StringRef Off,
               std::vector<FixItHint> &Fixes) const;
  std::string helperFix(const BiasSite &Site, std::vector<FixItHint> &Fixes);
  bool allCallsFollowed(const BiasSite &Site, SourceLocation &Elsewhere) const;
  std::string flagFix(const Candidate &C, std::vector<FixItHint> &Fixes);
  std::string negationOf(const Expr *Flag) const;
  std::string negatedFlag(const Expr *Flag, const Expr *At,
                          std::string &Why) const;
  std::string flagVariableProblem(const VarDecl *VD, const Expr *At,
                                  const FunctionDecl *Fn) const;
  std::string negatedFieldFlag(const Expr *Flag, const MemberExpr *Member,
                               const FunctionDecl *Fn, std::string &Why) const;
  bool fieldChanged(const FieldDecl *F, const CXXRecordDecl *RD) const;
  bool isAssigned(const VarDecl *VD, const Stmt &Body) const;
  std::string text(const Expr *E) const {
    return utils::sourceText(E->getSourceRange(), SM, LangOpts);
  }

  const ConvBiasBeforeBatchNormCheck::State &S;
  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LangOpts;
  const std::vector<Candidate> &Candidates;
  UseCollector HelperUses;
  llvm::SmallPtrSet<const FunctionDecl *, 4> HelpersFixed;
  /// The negated flag that flagFix() wrote into the fix-it.
  std::string FlagOff;
};

Finding FindingBuilder::build(const Candidate &C) {
  Finding F;
  std::string When, Advice;
  std::string NoFix = fixes(C, F.Fixes);
  if (C.BatchNorm.Flag) {
    When = " (added when '" + text(C.BatchNorm.Flag) + "' holds)";
    Advice = "build the convolution with .bias(" +
             (FlagOff.empty() ? negationOf(C.BatchNorm.Flag) : FlagOff) + ")";
  } else if (C.Site.FromParameter) {
    Advice = "pass false for its parameter '" +
             C.Site.FromParameter->getName().str() + "'";
  } else {
    Advice = "build the convolution with .bias(false)";
  }
  F.Message = subject(C) + " is cancelled by the " + C.BatchNorm.Description +
              " at line " + lineOf(C.BatchNorm.Loc, SM) + When +
              ", which subtracts the per-channel mean right after; " + Advice;
  if (!NoFix.empty())
    F.Message += "; no fix-it: " + NoFix;
  if (const ParmVarDecl *P = C.Site.FromParameter) {
    std::string Name = "'" + P->getName().str() + "'";
    if (C.Site.DefaultArg)
      F.Notes.push_back(
          {C.Site.DefaultArg->getBeginLoc(), "%0 defaults to true", Name});
    F.Notes.push_back({C.Site.BiasArgument->getBeginLoc(),
                       "the convolution's bias is set from %0 here", Name});
  }
  return F;
}

std::string FindingBuilder::subject(const Candidate &C) const {
  const BiasSite &Site = C.Site;
  std::string Conv = moduleType(C.Source->getType()).Name;
  if (!C.Member.empty())
    return "bias of the " + Conv + " '" + C.Member + "' built by this " +
           cast<CXXConstructorDecl>(Site.Helper)
               ->getParent()
               ->getNameAsString();
  if (Site.Helper)
    return "bias of the " + Conv + " from '" + Site.Helper->getNameAsString() +
           "'";
  return "bias of this " + Conv;
}

std::string FindingBuilder::fixes(const Candidate &C,
                                  std::vector<FixItHint> &Fixes) {
  const BiasSite &Site = C.Site;
  if (S.CheckpointLoad.isValid())
    return "weights are loaded from a checkpoint (" + S.CheckpointLoader +
           " at line " + lineOf(S.CheckpointLoad, SM) +
           ") and one saved with the bias would no longer load";
  if (C.BatchNorm.Flag)
    return flagFix(C, Fixes);
  if (Site.Helper && !Site.FromParameter)
    return helperFix(Site, Fixes);
  if (!fixesAt(Site, "false", Fixes))
    return Site.NoFix.empty() ? "the options are written in a macro"
                              : Site.NoFix;
  return "";
}

/// The fix-its that make \p Site's bias \p Off.
bool FindingBuilder::fixesAt(const BiasSite &Site, StringRef Off,
                             std::vector<FixItHint> &Fixes) const {
  auto InMacro = [](SourceLocation L) { return L.isMacroID(); };
  switch (Site.Fix) {
  case BiasSite::FixKind::None:
    return false;
  case BiasSite::FixKind::AppendToOptions: {
    SourceLocation End =
        Lexer::getLocForEndOfToken(Site.Target->getEndLoc(), 0, SM, LangOpts);
    if (InMacro(Site.Target->getBeginLoc()) || End.isInvalid())
      return false;
    Fixes.push_back(
        FixItHint::CreateInsertion(End, (".bias(" + Off + ")").str()));
    return true;
  }
  case BiasSite::FixKind::ReplaceArgument:
    if (InMacro(Site.Target->getBeginLoc()) ||
        InMacro(Site.Target->getEndLoc()))
      return false;
    Fixes.push_back(
        FixItHint::CreateReplacement(Site.Target->getSourceRange(), Off));
    return true;
  case BiasSite::FixKind::WrapArguments: {
    SourceRange Args(Site.Target->getBeginLoc(), Site.LastArg->getEndLoc());
    if (InMacro(Args.getBegin()) || InMacro(Args.getEnd()))
      return false;
    std::string Text = utils::sourceText(Args, SM, LangOpts);
    if (Text.empty())
      return false;
    Fixes.push_back(
        FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Args),
                                     ("torch::nn::" + Site.ConvName +
                                      "Options(" + Text + ").bias(" + Off + ")")
                                         .str()));
    return true;
  }
  case BiasSite::FixKind::AddArgument:
    Fixes.push_back(
        FixItHint::CreateInsertion(Site.InsertAt, Site.Before + Off.str()));
    return true;
  }
  return false;
}

/// Whether every call of \p Site's helper is followed by a BatchNorm; if
/// not, \p Elsewhere is one that is not.
bool FindingBuilder::allCallsFollowed(const BiasSite &Site,
                                      SourceLocation &Elsewhere) const {
  auto It = HelperUses.FunctionUses.find(Site.Helper->getCanonicalDecl());
  Elsewhere = Site.Helper->getLocation();
  if (It == HelperUses.FunctionUses.end())
    return false;
  for (const Expr *Use : It->second) {
    bool Ours = llvm::any_of(Candidates, [&](const Candidate &O) {
      // A BatchNorm under a flag does not always follow.
      return O.Site.HelperCall && O.Site.Helper == Site.Helper &&
             !O.BatchNorm.Flag &&
             O.Site.HelperCall->getCallee()->IgnoreParenImpCasts() == Use;
    });
    if (!Ours) {
      Elsewhere = Use->getBeginLoc();
      return false;
    }
  }
  return true;
}

std::string FindingBuilder::helperFix(const BiasSite &Site,
                                      std::vector<FixItHint> &Fixes) {
  SourceLocation Elsewhere;
  bool AllFollowed = allCallsFollowed(Site, Elsewhere);
  bool Direct = llvm::all_of(Site.HelperReturns, [](const BiasSite &R) {
    return !R.Helper && R.Fix != BiasSite::FixKind::None;
  });
  // A helper declared in a header may be called by other files, where no
  // BatchNorm need follow.
  bool OnlyHere =
      !Site.Helper->isExternallyVisible() ||
      llvm::all_of(Site.Helper->redecls(), [&](const FunctionDecl *D) {
        return SM.isInMainFile(SM.getExpansionLoc(D->getLocation()));
      });
  std::string Helper = "'" + Site.Helper->getNameAsString() + "'";
  if (AllFollowed && Direct && OnlyHere) {
    // Later calls share the fix made with the first one.
    if (!HelpersFixed.insert(Site.Helper).second)
      return "";
    for (const BiasSite &R : Site.HelperReturns)
      if (!fixesAt(R, "false", Fixes)) {
        Fixes.clear();
        return "the bias is set in a macro in " + Helper;
      }
    return "";
  }
  if (fixesAt(Site, "false", Fixes))
    return "";
  if (!AllFollowed)
    return Helper +
           " also builds convolutions that no BatchNorm follows (line " +
           lineOf(Elsewhere, SM) + "); pass the bias as a parameter";
  if (!OnlyHere)
    return Helper + " is declared in a header, so other files may call it "
                    "without a BatchNorm; pass the bias as a parameter";
  return Helper + " builds the convolution through another helper";
}

/// `.bias(!use_bn)` where the convolution is built, when the flag reads the
/// same there.
std::string FindingBuilder::flagFix(const Candidate &C,
                                    std::vector<FixItHint> &Fixes) {
  const BiasSite &Site = C.Site;
  FlagOff.clear();
  if (!Site.Target || Site.Fix == BiasSite::FixKind::None ||
      (Site.Helper && Site.Target != Site.HelperCall))
    return Site.Helper
               ? "the convolution is built inside '" +
                     Site.Helper->getNameAsString() +
                     "', where the condition cannot be read"
               : (Site.NoFix.empty() ? "the options are written in a macro"
                                     : Site.NoFix);
  std::string Why;
  std::string Off = negatedFlag(C.BatchNorm.Flag, Site.Target, Why);
  if (Off.empty())
    return Why;
  if (!fixesAt(Site, Off, Fixes))
    return "the options are written in a macro";
  FlagOff = Off;
  return "";
}

/// `!use_bn` for `use_bn`, `use_bn` for `!use_bn`, `!(a && b)` otherwise.
std::string FindingBuilder::negationOf(const Expr *Flag) const {
  const Expr *Bare = Flag->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Bare);
      Not && Not->getOpcode() == UO_LNot)
    return text(Not->getSubExpr()->IgnoreParens());
  if (isa<DeclRefExpr, MemberExpr, CallExpr>(Bare))
    return "!" + text(Flag);
  return "!(" + text(Flag) + ")";
}

/// The negation of \p Flag as source text, when it reads the same at \p At:
/// free of side effects, and made of parameters and local variables of the
/// function holding \p At that are in scope there and never changed.
std::string FindingBuilder::negatedFlag(const Expr *Flag, const Expr *At,
                                        std::string &Why) const {
  const Expr *Bare = Flag->IgnoreParenImpCasts();
  std::string Text = text(Flag);
  if (Text.empty() || Flag->getBeginLoc().isMacroID()) {
    Why = "the condition is written in a macro";
    return "";
  }
  if (Flag->HasSideEffects(Ctx)) {
    Why = "the condition '" + Text + "' has side effects";
    return "";
  }
  const FunctionDecl *Fn = utils::enclosingFunction(At, Ctx);
  if (const auto *Field = dyn_cast<MemberExpr>(withoutNot(Bare)))
    return negatedFieldFlag(Bare, Field, Fn, Why);
  auto Refs = match(findAll(expr(anyOf(declRefExpr().bind("ref"),
                                       memberExpr().bind("member")))),
                    *Flag, Ctx);
  for (const BoundNodes &N : Refs) {
    // `cfg.batch_norm`: the variable `cfg` is checked on its own.
    if (const auto *ME = N.getNodeAs<MemberExpr>("member");
        ME && isa<FieldDecl>(ME->getMemberDecl()) &&
        isa<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
      continue;
    const auto *Ref = N.getNodeAs<DeclRefExpr>("ref");
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (Ref && isa<EnumConstantDecl>(Ref->getDecl()))
      continue;
    std::string Problem =
        VD ? flagVariableProblem(VD, At, Fn)
           : "'" + Text + "' is not made of parameters and local variables";
    if (!Problem.empty()) {
      Why = Problem;
      return "";
    }
  }
  return negationOf(Flag);
}

/// A flag member read in forward, `if (use_bn_) x = bn(x);`, when the
/// convolution is built by constructor \p Fn, which initializes the member
/// from its parameter: the negation written with the parameter.
std::string FindingBuilder::negatedFieldFlag(const Expr *Flag,
                                             const MemberExpr *Member,
                                             const FunctionDecl *Fn,
                                             std::string &Why) const {
  const auto *F = dyn_cast<FieldDecl>(Member->getMemberDecl());
  const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(Fn);
  std::string Name = "'" + Member->getMemberDecl()->getNameAsString() + "'";
  Why = Name + " is not set from a parameter of the constructor that "
               "builds the convolution";
  if (!F || !Ctor || !isa<CXXThisExpr>(Member->getBase()->IgnoreImpCasts()) ||
      Ctor->getParent() != F->getParent())
    return "";
  const ParmVarDecl *From = nullptr;
  for (const CXXCtorInitializer *Init : Ctor->inits())
    if (Init->getMember() == F && Init->isWritten())
      if (const auto *Ref =
              dyn_cast<DeclRefExpr>(Init->getInit()->IgnoreParenImpCasts()))
        From = dyn_cast<ParmVarDecl>(Ref->getDecl());
  if (!From)
    return "";
  if (fieldChanged(F, Ctor->getParent())) {
    Why = Name + " may change after the constructor";
    return "";
  }
  Why = flagVariableProblem(From, Flag, Ctor);
  if (!Why.empty())
    return "";
  bool Negated = withoutNot(Flag) != Flag;
  return (Negated ? "" : "!") + From->getName().str();
}

/// Whether a method of \p RD may change field \p F.
bool FindingBuilder::fieldChanged(const FieldDecl *F,
                                  const CXXRecordDecl *RD) const {
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = M->getDefinition();
    if (!Def || !Def->getBody())
      continue;
    ExprMutationAnalyzer Mutations(*Def->getBody(), Ctx);
    for (const BoundNodes &N :
         match(findAll(memberExpr(member(equalsNode(F))).bind("m")),
               *Def->getBody(), Ctx))
      if (Mutations.isMutated(N.getNodeAs<Expr>("m")))
        return true;
  }
  return false;
}

std::string FindingBuilder::flagVariableProblem(const VarDecl *VD,
                                                const Expr *At,
                                                const FunctionDecl *Fn) const {
  std::string Name = "'" + VD->getName().str() + "'";
  if (VD->getType().isConstQualified() && VD->hasGlobalStorage())
    return "";
  if (!isa<ParmVarDecl>(VD) && !VD->isLocalVarDecl())
    return Name + " is not a parameter or local variable";
  if (!Fn || !Fn->getBody() ||
      VD->getParentFunctionOrMethod() != static_cast<const DeclContext *>(Fn))
    return Name + " is not visible where the convolution is built";
  if (!isa<ParmVarDecl>(VD)) {
    const CompoundStmt *Scope = nullptr;
    for (const DynTypedNode &P : Ctx.getParents(*VD))
      if (const auto *DS = P.get<DeclStmt>())
        Scope = utils::statementInBlock(DS, Ctx).second;
    SourceLocation L = At->getBeginLoc();
    if (!Scope || !SM.isBeforeInTranslationUnit(VD->getLocation(), L) ||
        SM.isBeforeInTranslationUnit(L, Scope->getBeginLoc()) ||
        SM.isBeforeInTranslationUnit(Scope->getEndLoc(), L))
      return Name + " is not in scope where the convolution is built";
  }
  if (isAssigned(VD, *Fn->getBody()))
    return Name + " changes in '" + Fn->getNameAsString() + "'";
  return "";
}

/// Whether \p Body assigns \p VD or one of its members, increments it or
/// takes its address. Unlike ExprMutationAnalyzer, passing the variable on
/// does not count: the channel count a flag is tested with is forwarded to
/// module constructors by reference.
bool FindingBuilder::isAssigned(const VarDecl *VD, const Stmt &Body) const {
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto Target =
      anyOf(Ref, ignoringParenImpCasts(memberExpr(hasObjectExpression(Ref))));
  auto Changes = expr(
      anyOf(binaryOperator(isAssignmentOperator(), hasLHS(Target)),
            cxxOperatorCallExpr(isAssignmentOperator(), hasArgument(0, Target)),
            unaryOperator(hasAnyOperatorName("++", "--", "&"),
                          hasUnaryOperand(Target))));
  return !match(findAll(Changes), Body, Ctx).empty();
}

} // namespace

void ConvBiasBeforeBatchNormCheck::onEndOfTranslationUnit() {
  std::unique_ptr<State> S = std::move(TU);
  TU = std::make_unique<State>();
  if (!S->Ctx)
    return;
  BiasAnalyzer Analyzer(*S->Ctx, *S->SM);
  collectMemberCandidates(*S, Analyzer);
  bindUserModules(*S, Analyzer);
  std::vector<Candidate> Candidates = uniqueCandidates(*S);
  FindingBuilder Builder(*S, Candidates, getLangOpts());
  for (const Candidate &C : Candidates) {
    Finding F = Builder.build(C);
    SourceLocation Loc = C.reportAt()->getBeginLoc();
    utils::recordStatementPayload("torch-conv-bias-before-batchnorm", Loc,
                                  C.reportAt(), *S->Ctx);
    {
      auto Diag = diag(Loc, "%0") << F.Message;
      for (const FixItHint &Fix : F.Fixes)
        Diag << Fix;
    }
    for (const Note &N : F.Notes)
      diag(N.Loc, N.Format, DiagnosticIDs::Note) << N.Arg;
  }
}

TORCH_TIDY_CHECK_FACTORY(ConvBiasBeforeBatchNormCheck)

} // namespace clang::tidy::torch
