//===--- HostTensorToDeviceCheck.cpp - libtorch-tidy ----------------------===//
//
// `torch::randn(sizes).to(device)` fills a tensor on the host, allocates a
// second one on the device and copies: the copy, the host allocation and the
// host-side fill are all avoidable by passing the device in the factory's
// options. The fix merges the device into the options the call already has,
// keeping dtype (randint's kLong comes from a default argument), layout and
// requires_grad; shape-only ops between the factory and the move stay after
// the factory, and a dtype conversion goes into the options where the
// factory gives the same values in that dtype.
//
// Only code that runs repeatedly is worth it: a loop, a function called from
// one, a forward() or operator(). Set-up code that this translation unit
// shows runs once stays silent; `torch::empty(...).to(d)` copies
// uninitialised memory and is reported anywhere.
//
//===----------------------------------------------------------------------===//

#include "HostTensorToDeviceCheck.h"
#include "HostDataAnalysis.h"
#include "HostCopyIndex.h"
#include "TorchTidyModule.h"
#include "clang-tidy/utils/DeclRefExprUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/Operators.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using hostdata::fullKeepsDtype;
using hostdata::HostMadeFinder;
using hostdata::HostOrigins;
using hostdata::isCollected;
using hostdata::isHostFactoryCall;
using hostdata::literalElements;
using hostdata::memberValues;
using hostdata::ownMember;
using hostdata::Segment;
using hostdata::walkLinks;
using utils::DeviceKind;
using utils::Frequency;
using utils::ignoreWrappers;
using utils::isEnumNamed;
using utils::isRecordNamed;
using utils::setsOption;
using utils::sourceText;
using utils::Tri;

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

/// Every local declaration \p E refers to is declared before \p Loc:
/// variables, and the names of structured bindings (`auto [dev, n] = ...`).
bool declaredBefore(const Expr *E, SourceLocation Loc,
                    const SourceManager &SM) {
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (isa<VarDecl, BindingDecl>(D) && D->getParentFunctionOrMethod() &&
        !SM.isBeforeInTranslationUnit(D->getLocation(), Loc))
      return false;
  }
  for (const Stmt *Child : E->children())
    if (const auto *ChildExpr = dyn_cast_or_null<Expr>(Child))
      if (!declaredBefore(ChildExpr, Loc, SM))
        return false;
  return true;
}

/// The name of the ScalarType enumerator \p E evaluates to ("Float").
std::optional<llvm::StringRef> scalarTypeName(const Expr *E,
                                              const ASTContext &Ctx) {
  const auto *ET = ignoreWrappers(E)->getType()->getAs<EnumType>();
  Expr::EvalResult Value;
  if (!ET || E->isValueDependent() || !E->EvaluateAsInt(Value, Ctx))
    return std::nullopt;
  for (const EnumConstantDecl *C : ET->getDecl()->enumerators())
    if (llvm::APSInt::isSameValue(C->getInitVal(), Value.Val.getInt()))
      return C->getName();
  return std::nullopt;
}

enum class DtypeClass { Floating, ReducedFloating, Integral, Bool, Other };

DtypeClass classOfDtype(llvm::StringRef Name) {
  return llvm::StringSwitch<DtypeClass>(Name)
      .Cases("Float", "Double", DtypeClass::Floating)
      .Cases("Half", "BFloat16", DtypeClass::ReducedFloating)
      .Cases("Byte", "Char", "Short", "Int", "Long", DtypeClass::Integral)
      .Case("Bool", DtypeClass::Bool)
      .Default(DtypeClass::Other);
}

/// What a factory's values are, for whether making it directly in another
/// dtype gives the values a conversion would.
enum class FactoryValues { Fill, Literal, Integer, Real };

bool writtenAsInteger(const Expr *E) {
  // Through the conversion to at::Scalar of the real headers.
  QualType T = ignoreWrappers(E)->IgnoreImpCasts()->getType();
  return T->isIntegerType() || T->isBooleanType();
}

FactoryValues valuesOf(const CallExpr *Factory) {
  llvm::StringRef Name = Factory->getDirectCallee()->getName();
  if (Name == "zeros" || Name == "ones" || Name == "empty" || Name == "eye")
    return FactoryValues::Fill;
  if (Name == "tensor")
    return FactoryValues::Literal;
  if (Name == "randint" || Name == "randperm")
    return FactoryValues::Integer;
  if (Name == "full")
    return Factory->getNumArgs() > 1 && writtenAsInteger(Factory->getArg(1))
               ? FactoryValues::Integer
               : FactoryValues::Real;
  if (Name != "arange")
    return FactoryValues::Real;
  for (const Expr *Arg : Factory->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg) &&
        !isRecordNamed(Arg->getType(), "TensorOptions") &&
        !writtenAsInteger(Arg))
      return FactoryValues::Real;
  return FactoryValues::Integer;
}

bool canMakeIn(FactoryValues Values, DtypeClass Dtype) {
  switch (Values) {
  case FactoryValues::Literal:
    return true;
  case FactoryValues::Fill:
    return Dtype != DtypeClass::Other;
  case FactoryValues::Integer:
    return Dtype == DtypeClass::Floating || Dtype == DtypeClass::Integral;
  case FactoryValues::Real:
    return Dtype == DtypeClass::Floating;
  }
  return false;
}

struct FactoryChain {
  const CallExpr *Factory = nullptr;
  const VarDecl *Var = nullptr;
  /// `torch::tensor(values_)` of a member only the constructors set.
  const FieldDecl *ConstantMember = nullptr;
  llvm::SmallVector<Segment, 2> Segments;
  llvm::SmallVector<const Expr *, 2> Dtypes; // the last applied first
};

/// A local variable initialized by the chain and used for nothing but the
/// move.
const VarDecl *singleUseLocal(const DeclRefExpr *Ref, ASTContext &Ctx) {
  const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
  if (!Var || !Var->hasLocalStorage() || isa<ParmVarDecl>(Var) ||
      Var->getType()->isReferenceType() || !Var->getInit())
    return nullptr;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody() ||
      tidy::utils::decl_ref_expr::allDeclRefExprs(*Var, *Fn->getBody(), Ctx)
              .size() != 1)
    return nullptr;
  return Var;
}

std::optional<FactoryChain> findChain(const CXXMemberCallExpr *Move,
                                      utils::DeviceAnalysis &Devices,
                                      ASTContext &Ctx) {
  FactoryChain Chain;
  Segment Outer;
  Outer.Top = Move;
  const Expr *Base =
      walkLinks(Move->getImplicitObjectArgument(), Outer, Chain.Dtypes);
  Chain.Segments.push_back(Outer);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Base)) {
    Chain.Var = singleUseLocal(Ref, Ctx);
    if (!Chain.Var)
      return std::nullopt;
    Segment Inner;
    Inner.Top = Chain.Var->getInit();
    Base = walkLinks(Chain.Var->getInit(), Inner, Chain.Dtypes);
    Chain.Segments.push_back(Inner);
  }
  Chain.Factory = dyn_cast<CallExpr>(Base);
  if (isHostFactoryCall(Chain.Factory, Devices, Ctx))
    return Chain;
  Chain.ConstantMember =
      hostdata::constantHostMemberTensor(Chain.Factory, Devices, Ctx);
  if (!Chain.ConstantMember)
    return std::nullopt;
  return Chain;
}

/// Where the move goes: a Device expression, TensorOptions with a device,
/// or the current CUDA device of `.cuda()`.
struct MoveTarget {
  const Expr *Device = nullptr;
  const Expr *Options = nullptr;
  /// `.to(device, dtype)`: the move converts the dtype too.
  bool AlsoDtype = false;
  /// `.to(other)`: the device and dtype of another tensor.
  const Expr *Like = nullptr;
};

std::optional<MoveTarget> moveTargetOf(const CXXMemberCallExpr *Move,
                                       utils::DeviceAnalysis &Devices) {
  const CXXMethodDecl *Method = Move->getMethodDecl();
  if (Method->getName() == "cuda")
    return Move->getNumArgs() == 0 ? std::optional<MoveTarget>(MoveTarget())
                                   : std::nullopt;
  if (const Expr *Target = utils::deviceTargetOfTo(Move)) {
    if (Devices.ofDevice(Target) == DeviceKind::Cpu)
      return std::nullopt;
    return MoveTarget{Target, nullptr};
  }
  // `.to(device, dtype)`.
  if (Method->getName() == "to" && Move->getNumArgs() > 1 &&
      Method->getNumParams() > 1 &&
      isRecordNamed(Method->getParamDecl(0)->getType(), "Device")) {
    if (Devices.ofDevice(Move->getArg(0)) == DeviceKind::Cpu)
      return std::nullopt;
    return MoveTarget{ignoreWrappers(Move->getArg(0)), nullptr, true};
  }
  // `.to(other)`: other's device and dtype, unless other is on the host.
  if (Method->getName() == "to" && Move->getNumArgs() > 0 &&
      Method->getNumParams() > 0 &&
      utils::isTensorType(Method->getParamDecl(0)->getType())) {
    const Expr *Other = ignoreWrappers(Move->getArg(0));
    if (Devices.ofTensor(Other) == DeviceKind::Cpu)
      return std::nullopt;
    MoveTarget Target;
    Target.Like = Other;
    return Target;
  }
  // `.to(opts)` where opts carries a device (`pred.options()`).
  if (Move->getNumArgs() == 0 || Method->getNumParams() == 0 ||
      !isRecordNamed(Method->getParamDecl(0)->getType(), "TensorOptions"))
    return std::nullopt;
  const Expr *Options = ignoreWrappers(Move->getArg(0));
  if (!isRecordNamed(Options->getType(), "TensorOptions") ||
      Devices.ofDevice(Options) == DeviceKind::Cpu)
    return std::nullopt;
  return MoveTarget{nullptr, Move->getArg(0)};
}

Tri setsDtype(const Expr *E, ASTContext &Ctx) {
  return setsOption(E, /*Device=*/false, Ctx);
}

/// Builds the rewrite of a factory-then-move: the factory gets the device
/// (and the dtype), the copy and the conversions go, shape ops stay.
class FixBuilder {
public:
  FixBuilder(const FactoryChain &Chain, const MoveTarget &Target,
             const CXXMemberCallExpr *Move, ASTContext &Ctx)
      : Chain(Chain), Target(Target), Move(Move), Ctx(Ctx),
        SM(Ctx.getSourceManager()), LO(Ctx.getLangOpts()),
        FactoryFn(Chain.Factory->getDirectCallee()),
        FactoryName(FactoryFn->getQualifiedNameAsString()),
        Ns(FactoryName.substr(0, FactoryName.find("::"))) {}

  /// What makes the tensor on the device instead.
  enum class Remedy {
    Options, ///< The device in the factory's options.
    Full,    ///< `torch::tensor({x})`: `torch::full({1}, x, options)`.
    Keep,    ///< A list: built on the host whatever its options.
  };

  /// The fix-its, or the reason there are none.
  std::string build(llvm::SmallVectorImpl<FixItHint> &Fixes);
  const std::string &factoryName() const { return FactoryName; }
  const std::string &ns() const { return Ns; }
  Remedy remedy() const;

private:
  std::string text(const Expr *E) const {
    return sourceText(E->getSourceRange(), SM, LO);
  }
  std::string checkSpelling() const;
  std::string checkDtypes(Tri TargetDtype) const;
  std::string optionsFor(const Expr *Written, std::string &NoFix) const;
  std::string defaultDtype(std::string &NoFix) const;
  void rewriteSegments(llvm::SmallVectorImpl<FixItHint> &Fixes) const;

  const FactoryChain &Chain;
  const MoveTarget &Target;
  const CXXMemberCallExpr *Move;
  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  const FunctionDecl *FactoryFn;
  std::string FactoryName;
  std::string Ns;
};

std::string FixBuilder::checkSpelling() const {
  if (Chain.Factory->getBeginLoc().isMacroID() || Move->getEndLoc().isMacroID())
    return "the code comes from a macro";
  if (!Chain.Var)
    return "";
  SourceLocation VarLoc = Chain.Var->getLocation();
  const Expr *Used = Target.Device    ? Target.Device
                     : Target.Options ? Target.Options
                                      : Target.Like;
  if (Used && !declaredBefore(Used, VarLoc, SM))
    return "the device is declared after the tensor";
  for (const Expr *D : Chain.Dtypes)
    if (!declaredBefore(D, VarLoc, SM))
      return "the dtype is declared after the tensor";
  return "";
}

std::string FixBuilder::checkDtypes(Tri TargetDtype) const {
  FactoryValues Values = valuesOf(Chain.Factory);
  if (TargetDtype == Tri::Unknown)
    return "it is not known whether the options it is moved with set a dtype";
  if (TargetDtype == Tri::Yes && Values != FactoryValues::Fill &&
      Values != FactoryValues::Literal)
    return "the options it is moved with set a dtype not known here, in "
           "which '" +
           FactoryName + "' may not give the same values";
  for (const Expr *D : Chain.Dtypes) {
    std::optional<llvm::StringRef> Name = scalarTypeName(D, Ctx);
    if (!Name)
      return "the dtype it is converted to is not known here";
    if (!canMakeIn(Values, classOfDtype(*Name)))
      return "'" + FactoryName + "' made directly as " + Name->str() +
             " would not give the values of the conversion";
  }
  return "";
}

/// The dtype the factory has through its default options (randint's kLong),
/// spelled; empty when the default sets none.
std::string FixBuilder::defaultDtype(std::string &NoFix) const {
  unsigned Index = 0;
  while (Index < FactoryFn->getNumParams() &&
         !isRecordNamed(FactoryFn->getParamDecl(Index)->getType(),
                        "TensorOptions"))
    ++Index;
  if (Index >= FactoryFn->getNumParams())
    return "";
  const Expr *Default =
      ignoreWrappers(FactoryFn->getParamDecl(Index)->getDefaultArg());
  if (Default && isEnumNamed(Default->getType(), "ScalarType")) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Default))
      return Ns + "::" + Ref->getDecl()->getNameAsString();
    NoFix = "its default dtype could not be spelled";
  } else if (Default && !isa<CXXConstructExpr, InitListExpr>(Default)) {
    NoFix = "its default options could not be spelled";
  }
  return "";
}

/// The new options: \p Written is the factory's options argument, or null
/// when it is defaulted.
std::string FixBuilder::optionsFor(const Expr *Written,
                                   std::string &NoFix) const {
  const Expr *Inner = Written ? ignoreWrappers(Written) : nullptr;
  bool WrittenOptions =
      Inner && isRecordNamed(Inner->getType(), "TensorOptions");
  bool WrittenDtype = Inner && isEnumNamed(Inner->getType(), "ScalarType");
  if (Inner && !WrittenOptions && !WrittenDtype) {
    NoFix = "its options could not be extended";
    return "";
  }
  // The dtype the result must have, when the factory would not give it.
  std::string Dtype;
  if (!Chain.Dtypes.empty())
    Dtype = text(Chain.Dtypes.front());
  else if (WrittenDtype)
    Dtype = text(Written);
  else if (!Inner)
    Dtype = defaultDtype(NoFix);
  if (Target.Like) {
    if (WrittenOptions || WrittenDtype) {
      NoFix = "the factory's options would have to be merged with the "
              "tensor it is moved like";
      return "";
    }
    std::string Like = text(Target.Like);
    if (!isa<DeclRefExpr, CallExpr, ParenExpr, MemberExpr>(
            ignoreWrappers(Target.Like)))
      Like = "(" + Like + ")";
    return Like + ".options()";
  }
  if (Target.Options) {
    if (WrittenOptions) {
      NoFix = "the factory's options would have to be merged with the "
              "options it is moved with";
      return "";
    }
    std::string Opts = text(Target.Options);
    if (!isa<DeclRefExpr, CallExpr, ParenExpr>(ignoreWrappers(Target.Options)))
      Opts = "(" + Opts + ")";
    if (Dtype.empty() || setsDtype(Target.Options, Ctx) == Tri::Yes)
      return Opts;
    return Opts + ".dtype(" + Dtype + ")";
  }
  std::string Device = Target.Device
                           ? sourceText(Target.Device->getSourceRange(), SM, LO)
                           : Ns + "::kCUDA";
  if (WrittenOptions) {
    std::string Opts = text(Written);
    if (!isa<DeclRefExpr, CallExpr, CXXTemporaryObjectExpr, ParenExpr>(Inner))
      Opts = "(" + Opts + ")";
    if (!Chain.Dtypes.empty())
      Opts += ".dtype(" + Dtype + ")";
    return Opts + ".device(" + Device + ")";
  }
  if (Dtype.empty())
    return Ns + "::device(" + Device + ")";
  if (Chain.Dtypes.empty())
    return Ns + "::TensorOptions(" + Dtype + ").device(" + Device + ")";
  return Ns + "::dtype(" + Dtype + ").device(" + Device + ")";
}

void FixBuilder::rewriteSegments(
    llvm::SmallVectorImpl<FixItHint> &Fixes) const {
  for (const Segment &Seg : Chain.Segments) {
    std::string Kept;
    for (const CXXMemberCallExpr *Op : llvm::reverse(Seg.ShapeOps))
      Kept += sourceText(
          SourceRange(
              Lexer::getLocForEndOfToken(
                  Op->getImplicitObjectArgument()->getEndLoc(), 0, SM, LO),
              Op->getEndLoc()),
          SM, LO);
    SourceLocation From =
        Lexer::getLocForEndOfToken(Seg.Base->getEndLoc(), 0, SM, LO);
    SourceLocation To =
        Lexer::getLocForEndOfToken(Seg.Top->getEndLoc(), 0, SM, LO);
    if (From == To)
      continue;
    Fixes.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getCharRange(From, To), Kept));
  }
}

/// torch::tensor makes one scalar where its options say (at::scalar_tensor),
/// but builds a braced list on the host and copies it
/// (TensorDataContainer::convert_to_tensor): its options do not help there.
FixBuilder::Remedy FixBuilder::remedy() const {
  if (FactoryFn->getName() != "tensor" ||
      hostdata::scalarElement(Chain.Factory->getArg(0)))
    return Remedy::Options;
  llvm::SmallVector<const Expr *, 4> Elements =
      literalElements(Chain.Factory->getArg(0));
  if (Elements.size() == 1 && !isa<InitListExpr>(Elements.front()) &&
      fullKeepsDtype(Elements.front()))
    return Remedy::Full;
  return Remedy::Keep;
}

std::string FixBuilder::build(llvm::SmallVectorImpl<FixItHint> &Fixes) {
  Remedy How = remedy();
  if (How == Remedy::Keep)
    return "";
  if (Target.AlsoDtype)
    return "the move converts the dtype too";
  if (std::string NoFix = checkSpelling(); !NoFix.empty())
    return NoFix;
  Tri TargetDtype = Target.Like      ? Tri::Yes
                    : Target.Options ? setsDtype(Target.Options, Ctx)
                                     : Tri::No;
  if (std::string NoFix = checkDtypes(TargetDtype); !NoFix.empty())
    return NoFix;
  unsigned OptionsIndex = FactoryFn->getNumParams();
  for (unsigned I = 0; I < FactoryFn->getNumParams(); ++I)
    if (isRecordNamed(FactoryFn->getParamDecl(I)->getType(), "TensorOptions")) {
      OptionsIndex = I;
      break;
    }
  if (OptionsIndex >= Chain.Factory->getNumArgs())
    return "'" + FactoryName + "' takes no options here";
  const Expr *Options = Chain.Factory->getArg(OptionsIndex);
  bool Defaulted = isa<CXXDefaultArgExpr>(Options);
  // Every argument before the options must be written out.
  for (unsigned I = 0; Defaulted && I < OptionsIndex; ++I)
    if (isa<CXXDefaultArgExpr>(Chain.Factory->getArg(I)))
      return "an argument before the options is defaulted";
  std::string NoFix;
  std::string NewOptions = optionsFor(Defaulted ? nullptr : Options, NoFix);
  if (!NoFix.empty())
    return NoFix;
  if (How == Remedy::Full) {
    Fixes.push_back(FixItHint::CreateReplacement(
        Chain.Factory->getSourceRange(),
        Ns + "::full({1}, " +
            text(literalElements(Chain.Factory->getArg(0)).front()) + ", " +
            NewOptions + ")"));
  } else if (!Defaulted) {
    Fixes.push_back(
        FixItHint::CreateReplacement(Options->getSourceRange(), NewOptions));
  } else {
    SourceLocation After =
        OptionsIndex == 0
            ? Lexer::findNextToken(Chain.Factory->getCallee()->getEndLoc(), SM,
                                   LO)
                  ->getEndLoc()
            : Lexer::getLocForEndOfToken(
                  Chain.Factory->getArg(OptionsIndex - 1)->getEndLoc(), 0, SM,
                  LO);
    Fixes.push_back(FixItHint::CreateInsertion(
        After, (OptionsIndex == 0 ? "" : ", ") + NewOptions));
  }
  rewriteSegments(Fixes);
  return "";
}

} // namespace

utils::RunFrequency &HostTensorToDeviceCheck::frequency(ASTContext &Ctx) {
  if (!Frequency || FrequencyContext != &Ctx) {
    Frequency = std::make_unique<utils::RunFrequency>(Ctx);
    FrequencyContext = &Ctx;
  }
  return *Frequency;
}

IndexedRepeat HostTensorToDeviceCheck::repeatOf(const Stmt *S,
                                                ASTContext &Ctx) {
  return repeatWithIndex(frequency(Ctx).ofStmt(S), S, Ctx,
                         projectIndex(Ctx.getSourceManager()));
}

void HostTensorToDeviceCheck::noteIndexed(const IndexedRepeat &Indexed,
                                          SourceLocation Loc) {
  if (Indexed.Step)
    noteStepReason(*this, Loc, Indexed.Repeat.Through, *Indexed.Step);
}

/// Code the index says only ever sees host tensors, moving to a device that
/// is not provably CUDA: the move copies nothing.
bool HostTensorToDeviceCheck::copiesNothing(const Expr *Site,
                                            const Expr *Device,
                                            ASTContext &Ctx) {
  if (!Device)
    return false;
  utils::DeviceAnalysis Devices(Ctx);
  return Devices.ofDevice(Device) != DeviceKind::Cuda &&
         seesOnlyHostTensors(Site, Ctx, projectIndex(Ctx.getSourceManager()));
}

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
  Finder->addMatcher(callExpr(utils::isOutsideLibTorch(),
                              callee(functionDecl(hasName("tensor"))),
                              unless(isInTemplateInstantiation()))
                         .bind("tensor"),
                     this);
}

void HostTensorToDeviceCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>("tensor")) {
    if (!utils::isInLibTorchHeader(Call->getBeginLoc(), *Result.SourceManager))
      checkDeviceTensor(Call, Ctx);
    return;
  }
  const auto *Move = Result.Nodes.getNodeAs<CXXMemberCallExpr>("move");
  if (utils::isInLibTorchHeader(Move->getBeginLoc(), *Result.SourceManager))
    return;
  if (const FieldDecl *Field = ownMember(Move->getImplicitObjectArgument()))
    checkMemberMove(Move, Field, Ctx);
  else
    checkMove(Move, Ctx);
}

void HostTensorToDeviceCheck::checkMove(const CXXMemberCallExpr *Move,
                                        ASTContext &Ctx) {
  utils::DeviceAnalysis Devices(Ctx);
  std::optional<MoveTarget> Target = moveTargetOf(Move, Devices);
  if (!Target ||
      copiesNothing(Move, Target->Device ? Target->Device : Target->Options,
                    Ctx))
    return;
  std::optional<FactoryChain> Chain = findChain(Move, Devices, Ctx);
  if (!Chain) {
    checkComputedMove(Move, Ctx);
    return;
  }
  // torch::empty's memory is uninitialised: copying it is never wanted.
  IndexedRepeat Indexed = repeatOf(Move, Ctx);
  if (Chain->Factory->getDirectCallee()->getName() != "empty") {
    const utils::RepeatReason &Repeat = Indexed.Repeat;
    if (Repeat.Freq == Frequency::Once ||
        (Repeat.Freq != Frequency::Repeated && isCachedResult(Move, Ctx)))
      return;
  }

  FixBuilder Builder(*Chain, *Target, Move, Ctx);
  llvm::SmallVector<FixItHint, 4> Fixes;
  std::string NoFix = Builder.build(Fixes);
  utils::recordStatementPayload(getID(),
                                Move->getExprLoc(), Move, Ctx);
  {
    auto Diag =
        diag(Move->getExprLoc(),
             "tensor made on the host by '%0' and then copied to the "
             "device; %select{create it on the device by passing the device "
             "in its options|create it on the device with '%3::full'|'%0' "
             "builds a list of values on the host whatever its options: keep a "
             "device copy made once, or compute it on the device}4%select{|; "
             "no fix-it: %2}1")
        << Builder.factoryName() << !NoFix.empty() << NoFix << Builder.ns()
        << static_cast<unsigned>(Builder.remedy());
    for (const FixItHint &F : Fixes)
      Diag << F;
  }
  // The factory is in another statement, or on another line of a long
  // chain: show where.
  const SourceManager &SM = Ctx.getSourceManager();
  if (Chain->Var || SM.getExpansionLineNumber(Chain->Factory->getBeginLoc()) !=
                        SM.getExpansionLineNumber(Move->getExprLoc()))
    diag(Chain->Factory->getBeginLoc(), "made on the host here",
         DiagnosticIDs::Note);
  if (Chain->ConstantMember)
    diag(Chain->Factory->getArg(0)->getBeginLoc(),
         "only the constructors of its class set %0: the same values are "
         "copied in every call",
         DiagnosticIDs::Note)
        << Chain->ConstantMember;
  noteIndexed(Indexed, Move->getExprLoc());
}

void HostTensorToDeviceCheck::checkMemberMove(const CXXMemberCallExpr *Move,
                                              const FieldDecl *Field,
                                              ASTContext &Ctx) {
  utils::DeviceAnalysis Devices(Ctx);
  std::optional<MoveTarget> Target = moveTargetOf(Move, Devices);
  if (!Target || isCachedResult(Move, Ctx) ||
      copiesNothing(Move, Target->Device ? Target->Device : Target->Options,
                    Ctx))
    return;
  HostMadeFinder Finder(Ctx, &frequency(Ctx));
  Finder.useIndex(projectIndex(Ctx.getSourceManager()));
  HostOrigins Origins;
  if (!Finder.isHostMade(Move->getImplicitObjectArgument(), Origins))
    return;
  reportMemberMove(Move, Field, Ctx);
}

void HostTensorToDeviceCheck::reportMemberMove(const CXXMemberCallExpr *Move,
                                               const FieldDecl *Field,
                                               ASTContext &Ctx) {
  // A move in a constructor is the object's set-up.
  IndexedRepeat Indexed = repeatOf(Move, Ctx);
  const utils::RepeatReason &Repeat = Indexed.Repeat;
  if (Repeat.Freq != Frequency::Repeated ||
      (Repeat.Through && isa<CXXConstructorDecl>(Repeat.Through)))
    return;
  llvm::SmallVector<const Expr *, 4> Values = memberValues(Field, Ctx);
  const utils::ProjectIndex *Index = projectIndex(Ctx.getSourceManager());
  const utils::MemberFact *Fact =
      Values.empty() && Index ? Index->member(utils::usrOf(Field)) : nullptr;
  if (Values.empty() && (!Fact || !Fact->MadeOnHost))
    return;
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  bool IsModule = RD && utils::isSameOrDerivedFrom(RD, "torch::nn::Module");
  utils::recordStatementPayload(getID(),
                                Move->getExprLoc(), Move, Ctx);
  diag(Move->getExprLoc(),
       "member %0 is made on the host and copied to the device %1; keep a "
       "copy on the device made once (%2)")
      << Field << utils::describeRepeat(Repeat)
      << (IsModule ? "register it with register_buffer so that "
                     "module->to(device) moves it"
                   : "convert it once in the constructor");
  if (!Values.empty())
    diag(Values.front()->getExprLoc(), "%0 is made on the host here",
         DiagnosticIDs::Note)
        << Field;
  else
    diag(Move->getExprLoc(), "%0 is made on the host at %1:%2",
         DiagnosticIDs::Note)
        << Field << Fact->Where.File << Fact->Where.Line;
  if (Repeat.Loop)
    diag(Repeat.Loop->getBeginLoc(), utils::RepeatLoopNote,
         DiagnosticIDs::Note);
  noteIndexed(Indexed, Move->getExprLoc());
}

/// "'torch::arange' and 'torch::ones'"; notes show where each is made.
static std::string
describeFactories(llvm::ArrayRef<const CallExpr *> Factories) {
  std::string Text;
  for (size_t I = 0; I < Factories.size() && I < 3; ++I) {
    if (I > 0)
      Text += I + 1 == Factories.size() ? " and " : ", ";
    Text +=
        "'" + Factories[I]->getDirectCallee()->getQualifiedNameAsString() + "'";
  }
  if (Factories.size() > 3)
    Text += " and " + std::to_string(Factories.size() - 3) + " more";
  return Text;
}

void HostTensorToDeviceCheck::checkComputedMove(const CXXMemberCallExpr *Move,
                                                ASTContext &Ctx) {
  HostMadeFinder Finder(Ctx, &frequency(Ctx));
  Finder.useIndex(projectIndex(Ctx.getSourceManager()));
  HostOrigins Origins;
  if (!Finder.isHostMade(Move->getImplicitObjectArgument(), Origins))
    return;
  if (!Origins.Members.empty()) {
    if (!isCachedResult(Move, Ctx))
      reportMemberMove(Move, Origins.Members.front(), Ctx);
    return;
  }
  IndexedRepeat Indexed = repeatOf(Move, Ctx);
  const utils::RepeatReason &Repeat = Indexed.Repeat;
  if (Origins.Factories.empty() || !Finder.onlyFeed(Move) ||
      Repeat.Freq == Frequency::Once ||
      (Repeat.Freq != Frequency::Repeated && isCachedResult(Move, Ctx)))
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallVector<const CallExpr *, 4> Factories;
  for (const CallExpr *F : Origins.Factories)
    if (!llvm::is_contained(Factories, F))
      Factories.push_back(F);
  llvm::sort(Factories, [&](const CallExpr *A, const CallExpr *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  bool Several = Factories.size() > 1;
  utils::recordStatementPayload(getID(),
                                Move->getExprLoc(), Move, Ctx);
  diag(Move->getExprLoc(),
       "tensor computed on the host from %0 and then copied to the device; "
       "create %select{it|them}1 on the device by passing the device in "
       "%select{its|their}1 options, and the ops after %select{it|them}1 "
       "keep the device")
      << describeFactories(Factories) << Several;
  for (const CallExpr *F : llvm::ArrayRef(Factories).take_front(3))
    diag(F->getBeginLoc(), "made on the host here", DiagnosticIDs::Note);
  noteIndexed(Indexed, Move->getExprLoc());
}

void HostTensorToDeviceCheck::checkDeviceTensor(const CallExpr *Call,
                                                ASTContext &Ctx) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !utils::isTensorFactory(FD) || Call->getNumArgs() < 2 ||
      isa<CXXDefaultArgExpr>(Call->getArg(1)))
    return;
  utils::DeviceAnalysis Devices(Ctx);
  const Expr *Options = Call->getArg(1);
  if (Devices.ofDevice(Options) == DeviceKind::Cpu ||
      setsOption(Options, /*Device=*/true, Ctx) != Tri::Yes ||
      copiesNothing(Call, Options, Ctx))
    return;
  IndexedRepeat Indexed = repeatOf(Call, Ctx);
  const utils::RepeatReason &Repeat = Indexed.Repeat;
  if (Repeat.Freq != Frequency::Repeated)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  llvm::SmallVector<const Expr *, 4> Elements =
      literalElements(Call->getArg(0));
  bool Collected = isCollected(Call, Ctx);
  // A vector of host data made in the step is the step's input: it has to
  // go to the device. Only literal lists are made from values.
  if (Elements.empty() && !Collected)
    return;
  utils::recordStatementPayload(getID(),
                                Call->getExprLoc(), Call, Ctx);
  std::string Ns = FD->getQualifiedNameAsString();
  Ns = Ns.substr(0, Ns.find("::"));
  bool CanFix = Elements.size() == 1 && !Collected &&
                !isa<InitListExpr>(Elements.front()) &&
                (fullKeepsDtype(Elements.front()) ||
                 setsDtype(Options, Ctx) == Tri::Yes) &&
                !Call->getBeginLoc().isMacroID() &&
                !Call->getEndLoc().isMacroID();
  {
    auto Diag = diag(Call->getBeginLoc(),
                     "'%0' with a device builds the tensor on the host and "
                     "copies it to the device %1%select{|; create it on the "
                     "device with '%2::full'}3")
                << FD->getQualifiedNameAsString()
                << utils::describeRepeat(Repeat) << Ns << CanFix;
    if (CanFix)
      Diag << FixItHint::CreateReplacement(
          Call->getSourceRange(),
          Ns + "::full({1}, " +
              sourceText(Elements.front()->getSourceRange(), SM, LO) + ", " +
              sourceText(Options->getSourceRange(), SM, LO) + ")");
  }
  if (Collected)
    diag(Call->getBeginLoc(),
         "the loop collects one tensor per iteration: gather the values in a "
         "host vector and make one tensor on the device after the loop",
         DiagnosticIDs::Note);
  if (Repeat.Loop)
    diag(Repeat.Loop->getBeginLoc(), utils::RepeatLoopNote,
         DiagnosticIDs::Note);
  noteIndexed(Indexed, Call->getBeginLoc());
}

TORCH_TIDY_CHECK_FACTORY(HostTensorToDeviceCheck)

} // namespace clang::tidy::torch
