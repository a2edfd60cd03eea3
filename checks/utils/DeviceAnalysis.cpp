//===--- DeviceAnalysis.cpp - libtorch-tidy -------------------------------===//

#include "DeviceAnalysis.h"
#include "ConstantFacts.h"
#include "ParentWalk.h"
#include "ProjectIndex.h"
#include "RunFrequency.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::utils {

namespace {

DeviceKind combine(DeviceKind A, DeviceKind B) {
  if (A == DeviceKind::Pending)
    return B;
  if (B == DeviceKind::Pending)
    return A;
  return A == B ? A : DeviceKind::Unknown;
}

bool mayChange(const VarDecl *VD, ASTContext &Ctx);

} // namespace

const Expr *ignoreTemporaries(const Expr *E) {
  while (E) {
    const Expr *Next = E->IgnoreParenImpCasts();
    if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(Next))
      Next = M->getSubExpr();
    else if (const auto *B = dyn_cast<CXXBindTemporaryExpr>(Next))
      Next = B->getSubExpr();
    else if (const auto *C = dyn_cast<ExprWithCleanups>(Next))
      Next = C->getSubExpr();
    else if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(Next))
      Next = F->getSubExpr();
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const Expr *ignoreWrappers(const Expr *E) {
  while (E) {
    const Expr *Next = ignoreTemporaries(E);
    if (const auto *CE = dyn_cast_or_null<CXXConstructExpr>(Next);
        CE && CE->getNumArgs() == 1 && !isa<CXXTemporaryObjectExpr>(CE))
      Next = CE->getArg(0);
    if (Next == E)
      return E;
    E = Next;
  }
  return E;
}

const InitListExpr *writtenTensorList(const Expr *E) {
  E = ignoreWrappers(E);
  // std::vector's constructor from a list takes a defaulted allocator too.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() > 0 &&
      llvm::all_of(llvm::drop_begin(Construct->arguments()),
                   [](const Expr *A) { return isa<CXXDefaultArgExpr>(A); }))
    E = ignoreWrappers(Construct->getArg(0));
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    E = ignoreWrappers(List->getSubExpr());
  return dyn_cast<InitListExpr>(E);
}

bool isTensorRecord(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier())
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return Name == "at::Tensor" || Name == "at::TensorBase";
}

bool isTensorType(QualType T) {
  return isTensorRecord(T.getNonReferenceType()->getAsCXXRecordDecl());
}

/// The method of at::Tensor called by \p E, or null.
const CXXMethodDecl *tensorMethod(const Expr *E) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
  if (!MC)
    return nullptr;
  const CXXMethodDecl *M = MC->getMethodDecl();
  if (!M || !M->getIdentifier() || !isTensorRecord(M->getParent()))
    return nullptr;
  return M;
}

/// Declared in at::, torch:: or c10:: (or a namespace nested in them).
bool isInTorchNamespace(const FunctionDecl *FD) {
  std::string Q = FD->getQualifiedNameAsString();
  return llvm::StringRef(Q).starts_with("at::") ||
         llvm::StringRef(Q).starts_with("torch::") ||
         llvm::StringRef(Q).starts_with("c10::");
}

/// A LibTorch function named one of \p Names.
bool isTorchFunction(const FunctionDecl *FD,
                     std::initializer_list<llvm::StringRef> Names) {
  if (!FD || !FD->getIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  return llvm::any_of(Names, [&](llvm::StringRef N) { return N == Name; }) &&
         isInTorchNamespace(FD);
}

namespace {

/// The fields of fields that \p E reads, held by value, down to the object
/// they belong to: `batch` in `batch.target.captions`; null for anything
/// else (a pointer to follow elsewhere, a method).
const Expr *fieldOwner(const Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(ignoreWrappers(E));
  if (!ME)
    return nullptr;
  while (const auto *Inner =
             dyn_cast<MemberExpr>(ME->getBase()->IgnoreParenImpCasts())) {
    if (ME->isArrow() || !isa<FieldDecl>(ME->getMemberDecl()))
      return nullptr;
    ME = Inner;
  }
  return ME->getBase()->IgnoreParenImpCasts();
}

/// The iterator a range-for's loop variable \p VD is read from
/// (`*__begin`), or null when \p VD is no such variable.
const Expr *loopIterator(const VarDecl *VD) {
  if (!VD->isLocalVarDecl() || !VD->getInit())
    return nullptr;
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(ignoreWrappers(VD->getInit()));
  if (!Op || Op->getOperator() != OO_Star || Op->getNumArgs() != 1)
    return nullptr;
  return Op->getArg(0);
}

/// The iterator of a torch::data loader (torch::data::Iterator<Batch>).
bool isLoaderIterator(const Expr *Iterator) {
  const auto *RD =
      Iterator->getType().getNonReferenceType()->getAsCXXRecordDecl();
  return RD && llvm::StringRef(RD->getQualifiedNameAsString())
                   .starts_with("torch::data::");
}

/// The range a range-for iterates, from its iterator: `__begin` is made by
/// `__range.begin()` or `begin(__range)`, and `__range` binds the range.
const Expr *loopRange(const Expr *Iterator) {
  const auto *Begin = dyn_cast<DeclRefExpr>(Iterator->IgnoreParenImpCasts());
  const auto *BeginVar = Begin ? dyn_cast<VarDecl>(Begin->getDecl()) : nullptr;
  if (!BeginVar || !BeginVar->isImplicit() || !BeginVar->getInit())
    return nullptr;
  const Expr *Init = ignoreWrappers(BeginVar->getInit());
  const Expr *Range = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Init))
    Range = MC->getImplicitObjectArgument();
  else if (const auto *CE = dyn_cast<CallExpr>(Init); CE && CE->getNumArgs())
    Range = CE->getArg(0);
  const auto *RangeRef =
      Range ? dyn_cast<DeclRefExpr>(Range->IgnoreParenImpCasts()) : nullptr;
  const auto *RangeVar =
      RangeRef ? dyn_cast<VarDecl>(RangeRef->getDecl()) : nullptr;
  return RangeVar && RangeVar->isImplicit() ? RangeVar->getInit() : nullptr;
}

/// A method that overrides a torch::data transform's batch entry point
/// (BatchTransform::apply_batch): LibTorch hands it the examples the
/// dataset made.
bool isLoaderTransformEntry(const FunctionDecl *Fn) {
  const auto *M = dyn_cast_or_null<CXXMethodDecl>(Fn);
  if (!M)
    return false;
  return llvm::any_of(M->overridden_methods(), [](const CXXMethodDecl *Base) {
    return Base->getIdentifier() && Base->getName() == "apply_batch" &&
           llvm::StringRef(Base->getParent()->getQualifiedNameAsString())
               .starts_with("torch::data::");
  });
}

} // namespace

bool isRecordNamed(QualType T, llvm::StringRef Name) {
  const auto *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == Name;
}

bool isEnumNamed(QualType T, llvm::StringRef Name) {
  const auto *ET = T.getNonReferenceType()->getAs<EnumType>();
  return ET && ET->getDecl()->getName() == Name;
}

/// The argument x of `t.to(x, ...)` when the call binds the TensorOptions
/// overload; (Device, dtype) and (dtype) change the dtype too: null.
static const Expr *optionsArgumentOfTo(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *M = tensorMethod(Call);
  if (!M || M->getName() != "to" || Call->getNumArgs() == 0 ||
      M->getNumParams() == 0 ||
      !isRecordNamed(M->getParamDecl(0)->getType(), "TensorOptions"))
    return nullptr;
  return Call->getArg(0);
}

const Expr *deviceTargetOfTo(const CXXMemberCallExpr *Call) {
  const Expr *Argument = optionsArgumentOfTo(Call);
  if (!Argument)
    return nullptr;
  const Expr *Target = ignoreWrappers(Argument);
  if (const auto *CE = dyn_cast<CallExpr>(Target))
    if (const FunctionDecl *FD = CE->getDirectCallee();
        FD && FD->getIdentifier() && FD->getName() == "device" &&
        !isa<CXXMemberCallExpr>(CE) && CE->getNumArgs() == 1)
      Target = ignoreWrappers(CE->getArg(0));
  if (!isRecordNamed(Target->getType(), "Device") &&
      !isEnumNamed(Target->getType(), "DeviceType"))
    return nullptr;
  return Target;
}

const Expr *optionsTargetOfTo(const CXXMemberCallExpr *Call, ASTContext &Ctx) {
  const Expr *Argument = optionsArgumentOfTo(Call);
  if (!Argument)
    return nullptr;
  const Expr *Options = ignoreWrappers(Argument);
  if (!isRecordNamed(Options->getType(), "TensorOptions") ||
      setsOption(Options, /*Device=*/true, Ctx) != Tri::Yes)
    return nullptr;
  return Argument;
}

bool isTensorFactory(const FunctionDecl *FD) {
  return isTorchFunction(FD, {"randn", "rand", "randint", "randperm", "zeros",
                              "ones", "empty", "full", "arange", "linspace",
                              "logspace", "eye", "tensor", "from_blob",
                              "scalar_tensor"});
}

/// Every value a local variable can hold: its initializer and the right-hand
/// sides of its assignments; std::nullopt when something else may change it
/// (its address taken, a non-const reference to it, an in-place setter).
std::optional<llvm::SmallVector<const Expr *, 4>>
DeviceAnalysis::valueSources(const VarDecl *VD) {
  if (!VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
      VD->getType()->isReferenceType())
    return std::nullopt;
  llvm::SmallVector<const Expr *, 4> Sources;
  if (const Expr *Init = VD->getInit()) {
    const auto *Construct = dyn_cast<CXXConstructExpr>(ignoreWrappers(Init));
    if (!Construct || Construct->getNumArgs() > 0)
      Sources.push_back(Init);
  }
  if (VD->getType().isConstQualified())
    return Sources;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return std::nullopt;
  auto RefToVar =
      ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto Escape = stmt(anyOf(
      binaryOperator(isAssignmentOperator(), hasLHS(RefToVar)),
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(RefToVar)),
      cxxMemberCallExpr(on(RefToVar), callee(cxxMethodDecl(hasName("set_")))),
      callExpr(forEachArgumentWithParam(
          RefToVar, parmVarDecl(hasType(lValueReferenceType(
                        pointee(unless(isConstQualified())))))))));
  if (!match(stmt(hasDescendant(Escape)), *Fn->getBody(), Ctx).empty())
    return std::nullopt;
  auto Assignments =
      match(findAll(cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                                        hasArgument(0, RefToVar))
                        .bind("assign")),
            *Fn->getBody(), Ctx);
  for (const auto &Node : Assignments) {
    const auto *Assign = Node.getNodeAs<CXXOperatorCallExpr>("assign");
    // `if (!force_cpu) dev = kCUDA;` under a constant flag never runs.
    if (!isInDeadBranch(Assign))
      Sources.push_back(Assign->getArg(1));
  }
  return Sources;
}

/// Where the variable behind \p Ref is, when all its values agree.
template <typename Fn>
DeviceKind DeviceAnalysis::ofVariable(const Expr *Ref, Fn &&Of) {
  const auto *DRE = dyn_cast<DeclRefExpr>(Ref);
  const auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD)
    return DeviceKind::Unknown;
  if (VarsInProgress.contains(VD))
    return DeviceKind::Pending;
  std::optional<llvm::SmallVector<const Expr *, 4>> Sources = valueSources(VD);
  if (!Sources || Sources->empty())
    return DeviceKind::Unknown;
  VarsInProgress.insert(VD);
  DeviceKind Result = DeviceKind::Pending;
  for (const Expr *Source : *Sources) {
    Result = combine(Result, Of(Source));
    if (Result == DeviceKind::Unknown)
      break;
  }
  VarsInProgress.erase(VD);
  return Result;
}

/// The devices of `cond ? a : b`, `t.device()` and `t.options()`;
/// std::nullopt for other expressions.
std::optional<DeviceKind> DeviceAnalysis::ofDeviceChoice(const Expr *E,
                                                         unsigned Depth) {
  // `cond ? kCPU : kCUDA`: the arm a constant flag selects, else both.
  if (const auto *CO = dyn_cast<ConditionalOperator>(E)) {
    if (std::optional<bool> V = constantCondition(CO->getCond()))
      return ofDevice(*V ? CO->getTrueExpr() : CO->getFalseExpr(), Depth + 1);
    return combine(ofDevice(CO->getTrueExpr(), Depth + 1),
                   ofDevice(CO->getFalseExpr(), Depth + 1));
  }
  // t.device(), t.options(): where t is.
  if (const CXXMethodDecl *M = tensorMethod(E);
      M && (M->getName() == "device" || M->getName() == "options"))
    return ofTensor(cast<CXXMemberCallExpr>(E)->getImplicitObjectArgument(),
                    Depth + 1);
  return std::nullopt;
}

/// kCPU, DeviceType::CPU, kCUDA; a ScalarType converted to options, which
/// carries no device. std::nullopt for an expression of another type.
static std::optional<DeviceKind> ofDeviceEnum(const Expr *E,
                                              const ASTContext &Ctx) {
  const auto *ET = E->getType()->getAs<EnumType>();
  if (!ET)
    return std::nullopt;
  if (ET->getDecl()->getName() == "ScalarType")
    return DeviceKind::Cpu;
  if (ET->getDecl()->getName() != "DeviceType")
    return DeviceKind::Unknown;
  Expr::EvalResult Value;
  if (E->isValueDependent() || !E->EvaluateAsInt(Value, Ctx))
    return std::nullopt;
  int64_t V = Value.Val.getInt().getExtValue();
  return V == 0   ? DeviceKind::Cpu
         : V == 1 ? DeviceKind::Cuda
                  : DeviceKind::Unknown;
}

/// "cpu", "cuda:0".
static DeviceKind ofDeviceName(llvm::StringRef Text) {
  if (Text == "cpu" || Text.starts_with("cpu:"))
    return DeviceKind::Cpu;
  if (Text == "cuda" || Text.starts_with("cuda:"))
    return DeviceKind::Cuda;
  return DeviceKind::Unknown;
}

/// torch::device(x), options.device(x), options chains and dtype(kFloat)
/// and the like, which make options without a device: on the CPU.
/// \p OfDevice is the analysis one level deeper.
static DeviceKind
ofOptionsCall(const CallExpr *CE,
              llvm::function_ref<DeviceKind(const Expr *)> OfDevice) {
  const FunctionDecl *FD = CE->getDirectCallee();
  llvm::StringRef Name =
      FD && FD->getIdentifier() ? FD->getName() : llvm::StringRef();
  if (Name == "device" && CE->getNumArgs() >= 1)
    return OfDevice(CE->getArg(0));
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (M && M->getParent()->getName() == "TensorOptions")
      return OfDevice(MC->getImplicitObjectArgument());
  }
  if (Name == "dtype" || Name == "requires_grad" || Name == "layout")
    return DeviceKind::Cpu;
  return DeviceKind::Unknown;
}

DeviceKind DeviceAnalysis::ofDevice(const Expr *E, unsigned Depth) {
  E = ignoreWrappers(E);
  if (!E || Depth > 8)
    return DeviceKind::Unknown;
  auto Deeper = [&](const Expr *V) { return ofDevice(V, Depth + 1); };
  if (std::optional<DeviceKind> K = ofDeviceEnum(E, Ctx))
    return *K;
  // Device(kCPU), Device(kCUDA, 0), Device("cuda:0"), TensorOptions(kCPU).
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (CE->getNumArgs() > 0)
      return Deeper(CE->getArg(0));
    const CXXRecordDecl *RD = CE->getType()->getAsCXXRecordDecl();
    return RD && RD->getName() == "TensorOptions" ? DeviceKind::Cpu
                                                  : DeviceKind::Unknown;
  }
  if (const auto *SL = dyn_cast<StringLiteral>(E))
    return ofDeviceName(SL->getString());
  if (std::optional<DeviceKind> K = ofDeviceChoice(E, Depth))
    return *K;
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return ofOptionsCall(CE, Deeper);
  if (isa<DeclRefExpr>(E))
    return ofVariable(E, Deeper);
  return DeviceKind::Unknown;
}

DeviceAnalysis::DeviceAnalysis(ASTContext &Ctx) : Ctx(Ctx) {}
DeviceAnalysis::~DeviceAnalysis() = default;

/// Where the tensor \p E lives, when the code proves it.
DeviceKind DeviceAnalysis::ofTensor(const Expr *E, unsigned Depth) {
  E = ignoreWrappers(E);
  if (!E || Depth > 8)
    return DeviceKind::Unknown;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *PVD = dyn_cast<ParmVarDecl>(Ref->getDecl());
        PVD && FollowCallers)
      return ofParameter(PVD, Depth);
    return ofVariable(E, [&](const Expr *V) { return ofTensor(V, Depth + 1); });
  }
  // Data loaders yield host tensors.
  if (const Expr *Owner = fieldOwner(E);
      Owner && isLoaderBatchValue(Owner, Depth))
    return DeviceKind::Cpu;
  if (tensorMethod(E))
    return ofMethodResult(cast<CXXMemberCallExpr>(E), Depth);
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return ofCallResult(CE, Depth);
  return DeviceKind::Unknown;
}

/// Whether \p E is a data loader's batch or part of one: the loop variable
/// of a range-for over a data loader, an element of such a value (a
/// range-for over it, `v[i]`, `v.at(i)`), a parameter every call here passes
/// one to (a collate function), or the examples LibTorch hands a batch
/// transform.
bool DeviceAnalysis::isLoaderBatchValue(const Expr *E, unsigned Depth) {
  E = E->IgnoreParenImpCasts();
  if (Depth > 8)
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E);
      Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2)
    return isLoaderBatchValue(Op->getArg(0), Depth + 1);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    return M && M->getIdentifier() &&
           llvm::is_contained({"at", "front", "back"}, M->getName()) &&
           isLoaderBatchValue(MC->getImplicitObjectArgument(), Depth + 1);
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD)
    return false;
  if (const auto *PVD = dyn_cast<ParmVarDecl>(VD))
    return isLoaderBatchParameter(PVD, Depth);
  const Expr *Iterator = loopIterator(VD);
  if (!Iterator)
    return false;
  if (isLoaderIterator(Iterator))
    return true;
  const Expr *Range = loopRange(Iterator);
  return Range && isLoaderBatchValue(Range, Depth + 1);
}

/// A parameter that holds a data loader's batch: of a batch transform's
/// entry point, or of a function whose every call here passes one.
bool DeviceAnalysis::isLoaderBatchParameter(const ParmVarDecl *PVD,
                                            unsigned Depth) {
  const auto *Fn = dyn_cast<FunctionDecl>(PVD->getDeclContext());
  if (!Fn)
    return false;
  if (PVD->getFunctionScopeIndex() == 0 && isLoaderTransformEntry(Fn))
    return true;
  const auto *Method = dyn_cast<CXXMethodDecl>(Fn);
  if (!Fn->hasBody() || VarsInProgress.contains(PVD) ||
      (Method && (Method->isVirtual() || Method->getParent()->isLambda())))
    return false;
  if (!Calls)
    Calls = std::make_unique<RunFrequency>(Ctx);
  const llvm::SmallVector<const Stmt *, 4> *Sites = Calls->callsOf(Fn);
  if (!Sites || Sites->empty() || mayChange(PVD, Ctx))
    return false;
  unsigned Param = PVD->getFunctionScopeIndex();
  VarsInProgress.insert(PVD);
  bool All = llvm::all_of(*Sites, [&](const Stmt *Site) {
    const auto *Call = dyn_cast<CallExpr>(Site);
    return Call && !isa<CXXOperatorCallExpr>(Call) &&
           Param < Call->getNumArgs() &&
           isLoaderBatchValue(Call->getArg(Param), Depth + 1);
  });
  VarsInProgress.erase(PVD);
  return All;
}

/// A tensor parameter of a function whose every call here passes a tensor
/// on one device (and whose address goes nowhere) is on that device.
DeviceKind DeviceAnalysis::ofParameter(const ParmVarDecl *PVD,
                                       unsigned Depth) {
  const auto *Fn = dyn_cast<FunctionDecl>(PVD->getDeclContext());
  const auto *Method = dyn_cast_or_null<CXXMethodDecl>(Fn);
  if (!Fn || !Fn->hasBody() || isa<CXXConstructorDecl>(Fn) ||
      (Method && (Method->isVirtual() || Method->getParent()->isLambda())) ||
      VarsInProgress.contains(PVD))
    return VarsInProgress.contains(PVD) ? DeviceKind::Pending
                                        : DeviceKind::Unknown;
  // The project's calls, in every file, when the index knows them.
  if (Index && Index->paramOnHost(usrOf(Fn), PVD->getFunctionScopeIndex()) &&
      !mayChange(PVD, Ctx))
    return DeviceKind::Cpu;
  if (!Calls)
    Calls = std::make_unique<RunFrequency>(Ctx);
  const llvm::SmallVector<const Stmt *, 4> *Sites = Calls->callsOf(Fn);
  if (!Sites || Sites->empty() || mayChange(PVD, Ctx))
    return DeviceKind::Unknown;
  unsigned Param = PVD->getFunctionScopeIndex();
  VarsInProgress.insert(PVD);
  DeviceKind Result = DeviceKind::Pending;
  for (const Stmt *Site : *Sites) {
    const auto *Call = dyn_cast<CallExpr>(Site);
    // A member operator's object is its first argument.
    unsigned Offset =
        isa<CXXOperatorCallExpr>(Site) && Method && !Method->isStatic() ? 1
                                                                        : 0;
    if (!Call || Param + Offset >= Call->getNumArgs()) {
      Result = DeviceKind::Unknown;
      break;
    }
    const Expr *Arg = Call->getArg(Param + Offset);
    if (const auto *Default = dyn_cast<CXXDefaultArgExpr>(Arg))
      Arg = Default->getExpr();
    Result = combine(Result, ofTensor(Arg, Depth + 1));
    if (Result == DeviceKind::Unknown)
      break;
  }
  VarsInProgress.erase(PVD);
  return Result;
}

DeviceKind DeviceAnalysis::ofMethodResult(const CXXMemberCallExpr *MC,
                                          unsigned Depth) {
  llvm::StringRef Name = MC->getMethodDecl()->getName();
  const Expr *Self = MC->getImplicitObjectArgument();
  if (Name == "cpu" || Name == "pin_memory")
    return DeviceKind::Cpu;
  if (Name == "cuda")
    return DeviceKind::Cuda;
  if (Name == "to") {
    if (MC->getNumArgs() == 0)
      return DeviceKind::Unknown;
    const Expr *Arg = MC->getArg(0);
    QualType T = ignoreWrappers(Arg)->getType();
    if (isTensorType(T))
      return ofTensor(Arg, Depth + 1);
    // to(kFloat) and to(other.dtype()) keep the device.
    if (isEnumNamed(T, "ScalarType") || isRecordNamed(T, "TypeMeta"))
      return ofTensor(Self, Depth + 1);
    return ofDevice(Arg, Depth + 1);
  }
  if (!isTensorType(MC->getMethodDecl()->getReturnType()))
    return DeviceKind::Unknown;
  return ofTensor(Self, Depth + 1);
}

DeviceKind DeviceAnalysis::ofFactoryResult(const CallExpr *CE,
                                           unsigned Depth) {
  // Options without a device are the CPU's.
  for (const Expr *Arg : CE->arguments()) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    const Expr *Inner = ignoreWrappers(Arg);
    llvm::StringRef TypeName;
    if (const auto *RD = Arg->getType()->getAsCXXRecordDecl())
      TypeName = RD->getName();
    if (TypeName == "TensorOptions" || TypeName == "Device" ||
        Inner->getType()->getAs<EnumType>()) {
      DeviceKind K = ofDevice(Arg, Depth + 1);
      if (K != DeviceKind::Cpu)
        return K;
    }
  }
  return DeviceKind::Cpu;
}

/// The device of the tensor arguments of \p CE when they all agree.
DeviceKind DeviceAnalysis::ofTensorArguments(const CallExpr *CE,
                                             unsigned Depth) {
  DeviceKind Result = DeviceKind::Pending;
  bool SawTensor = false;
  for (const Expr *Arg : CE->arguments()) {
    if (!isTensorType(ignoreWrappers(Arg)->getType()))
      continue;
    SawTensor = true;
    Result = combine(Result, ofTensor(Arg, Depth + 1));
    if (Result == DeviceKind::Unknown)
      return Result;
  }
  return SawTensor ? Result : DeviceKind::Unknown;
}

/// The device of what a LibTorch function makes of tensors (a
/// PackedSequence, a tuple): that of its tensor arguments when they agree.
/// LibTorch's functions compute where their inputs are; only a tensor's own
/// moves (`to`, `cuda`, `cpu`) change the device.
DeviceKind DeviceAnalysis::ofTorchValue(const Expr *E, unsigned Depth) {
  E = ignoreWrappers(E);
  if (!E || Depth > 8)
    return DeviceKind::Unknown;
  if (isa<DeclRefExpr>(E))
    return ofVariable(
        E, [&](const Expr *V) { return ofTorchValue(V, Depth + 1); });
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || isa<CXXMethodDecl>(FD) || !isInTorchNamespace(FD))
    return DeviceKind::Unknown;
  return ofTensorArguments(CE, Depth);
}

DeviceKind DeviceAnalysis::ofCallResult(const CallExpr *CE, unsigned Depth) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !isTensorType(FD->getReturnType()))
    return DeviceKind::Unknown;
  // `packed.data()`: a tensor a LibTorch record made by a function holds.
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
      MC && isInTorchNamespace(FD) && !tensorMethod(MC)) {
    DeviceKind Held = ofTorchValue(MC->getImplicitObjectArgument(), Depth + 1);
    if (Held != DeviceKind::Unknown)
      return Held;
  }
  if (isTensorFactory(FD))
    return ofFactoryResult(CE, Depth);
  // Operators and free functions on tensors: the device of their tensor
  // operands when they all agree.
  if (!isa<CXXOperatorCallExpr>(CE) && !isInTorchNamespace(FD))
    return DeviceKind::Unknown;
  return ofTensorArguments(CE, Depth);
}

namespace {

/// Whether \p Ref is the left side of `=`.
bool isAssignedTo(const DeclRefExpr *Ref, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*Ref);
  const auto *P = Parents.empty() ? nullptr : Parents[0].get<Expr>();
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P))
    return BO->getOpcode() == BO_Assign && BO->getLHS() == Ref;
  const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(P);
  return OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
         OC->getArg(0) == Ref;
}

bool assignsWriteOnlyDevice(const Expr *LHS, ASTContext &Ctx) {
  const auto *Ref = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
  return Ref && isWriteOnlyDevice(Ref->getDecl(), Ctx);
}

} // namespace

bool isWriteOnlyDevice(const ValueDecl *D, ASTContext &Ctx) {
  const auto *VD = dyn_cast_or_null<VarDecl>(D);
  const auto *Fn =
      VD ? dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod())
         : nullptr;
  if (!Fn || !Fn->getBody() || !VD->isLocalVarDecl() ||
      VD->getType()->isReferenceType() || !isDeviceValueType(VD->getType()))
    return false;
  auto Refs =
      match(findAll(declRefExpr(to(varDecl(equalsNode(VD)))).bind("ref")),
            *Fn->getBody(), Ctx);
  return llvm::all_of(Refs, [&](const ast_matchers::BoundNodes &N) {
    return isAssignedTo(N.getNodeAs<DeclRefExpr>("ref"), Ctx);
  });
}

bool storedOnlyInUnreadDevice(const Expr *E, ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*E);
  for (unsigned Steps = 0; Steps < 16; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return false;
    if (const auto *VD = Parents[0].get<VarDecl>())
      return isWriteOnlyDevice(VD, Ctx);
    const auto *P = Parents[0].get<Expr>();
    // A call other than an assignment makes a new value of its own.
    if (!P || (isa<CallExpr>(P) && !isa<CXXOperatorCallExpr>(P)))
      return false;
    if (const auto *BO = dyn_cast<BinaryOperator>(P);
        BO && BO->getOpcode() == BO_Assign)
      return BO->getRHS() == Cur.get<Expr>() &&
             assignsWriteOnlyDevice(BO->getLHS(), Ctx);
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(P))
      return OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
             OC->getArg(1) == Cur.get<Expr>() &&
             assignsWriteOnlyDevice(OC->getArg(0), Ctx);
    Cur = Parents[0];
  }
  return false;
}

bool isDeviceValueType(QualType T) {
  return isRecordNamed(T, "Device") || isRecordNamed(T, "TensorOptions") ||
         isEnumNamed(T, "DeviceType");
}

namespace {

/// Whether something in the function of \p VD may change it: an assignment
/// (also a tensor's operator= or set_), an increment, its address, a
/// non-const reference bound to it.
bool mayChange(const VarDecl *VD, ASTContext &Ctx) {
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return true;
  auto RefToVar =
      ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto MutableRef =
      parmVarDecl(hasType(referenceType(pointee(unless(isConstQualified())))));
  auto Change = stmt(
      anyOf(binaryOperator(isAssignmentOperator(), hasLHS(RefToVar)),
            cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                                hasArgument(0, RefToVar)),
            cxxMemberCallExpr(on(RefToVar),
                              callee(cxxMethodDecl(hasName("set_")))),
            unaryOperator(hasAnyOperatorName("&", "++", "--"),
                          hasUnaryOperand(RefToVar)),
            callExpr(forEachArgumentWithParam(RefToVar, MutableRef)),
            cxxConstructExpr(forEachArgumentWithParam(RefToVar, MutableRef))));
  // Not the range a range-for binds (`auto &&__range = v`): iterating
  // reads it.
  auto RefBinding =
      varDecl(unless(isImplicit()),
              hasType(referenceType(pointee(unless(isConstQualified())))),
              hasInitializer(RefToVar));
  return !match(stmt(anyOf(hasDescendant(Change), hasDescendant(RefBinding))),
                *Fn->getBody(), Ctx)
              .empty();
}

} // namespace

std::optional<bool> constantFlagValue(const VarDecl *VD, ASTContext &Ctx) {
  if (!VD || isa<ParmVarDecl>(VD))
    return std::nullopt;
  QualType T = VD->getType();
  const Expr *Init = VD->getInit();
  if (!Init || T->isReferenceType() || Init->isValueDependent() ||
      !(T->isBooleanType() || T->isIntegerType()))
    return std::nullopt;
  bool Value = false;
  // const and constexpr, local or at namespace scope: the compiler knows it.
  if (T.isConstQualified())
    return Init->EvaluateAsBooleanCondition(Value, Ctx)
               ? std::optional<bool>(Value)
               : std::nullopt;
  const Expr *Literal = Init->IgnoreParenImpCasts();
  if (!VD->hasLocalStorage() ||
      !isa<CXXBoolLiteralExpr, IntegerLiteral>(Literal) ||
      !Literal->EvaluateAsBooleanCondition(Value, Ctx) || mayChange(VD, Ctx))
    return std::nullopt;
  return Value;
}

std::optional<bool> DeviceAnalysis::constantCondition(const Expr *Cond) {
  if (!Cond)
    return std::nullopt;
  Cond = Cond->IgnoreParenImpCasts();
  if (Cond->isValueDependent() || Cond->isTypeDependent())
    return std::nullopt;
  if (const auto *U = dyn_cast<UnaryOperator>(Cond);
      U && U->getOpcode() == UO_LNot) {
    std::optional<bool> V = constantCondition(U->getSubExpr());
    return V ? std::optional<bool>(!*V) : std::nullopt;
  }
  if (const auto *B = dyn_cast<BinaryOperator>(Cond); B && B->isLogicalOp()) {
    const bool IsAnd = B->getOpcode() == BO_LAnd;
    std::optional<bool> L = constantCondition(B->getLHS());
    std::optional<bool> R = constantCondition(B->getRHS());
    // A false operand decides `&&`, a true one `||`.
    if ((L && *L != IsAnd) || (R && *R != IsAnd))
      return !IsAnd;
    return L && R ? std::optional<bool>(IsAnd) : std::nullopt;
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Cond)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD)
      return std::nullopt;
    auto It = Flags.find(VD);
    if (It == Flags.end())
      It = Flags.try_emplace(VD, constantFlagValue(VD, Ctx)).first;
    return It->second;
  }
  bool Value = false;
  if (Cond->EvaluateAsBooleanCondition(Value, Ctx))
    return Value;
  return std::nullopt;
}

bool DeviceAnalysis::isInDeadBranch(const Stmt *S) {
  if (!S)
    return false;
  DynTypedNode Node = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 64; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Node);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      return false;
    const DynTypedNode &Parent = Parents[0];
    const Stmt *Child = Node.get<Stmt>();
    if (const auto *If = Parent.get<IfStmt>();
        If && Child && (Child == If->getThen() || Child == If->getElse())) {
      std::optional<bool> V = constantCondition(If->getCond());
      if (V && *V == (Child == If->getElse()))
        return true;
    }
    Node = Parent;
  }
  return false;
}

bool DeviceAnalysis::isDeviceGenericUse(const Expr *E) {
  if (!E)
    return false;
  if (const CXXMethodDecl *M = tensorMethod(E))
    return (M->getName() == "device" || M->getName() == "options") &&
           ofDevice(E) != DeviceKind::Cpu;
  const ValueDecl *D = nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    D = Ref->getDecl();
  else if (const auto *ME = dyn_cast<MemberExpr>(E))
    D = ME->getMemberDecl();
  if (!D || !isDeviceValueType(D->getType()))
    return false;
  if (isa<ParmVarDecl, FieldDecl>(D))
    return true;
  return ofDevice(E) != DeviceKind::Cpu;
}

static Tri setsOptionThroughVariable(const DeclRefExpr *Ref, bool Device,
                                     ASTContext &Ctx, unsigned Depth) {
  const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
  const Stmt *Body = VD ? enclosingFunctionBody(VD) : nullptr;
  if (!VD || !Body || isa<ParmVarDecl>(VD) || !VD->getInit() ||
      VD->getType()->isReferenceType())
    return Tri::Unknown;
  return isNeverReassigned(VD, Ctx)
             ? setsOption(VD->getInit(), Device, Ctx, Depth + 1)
             : Tri::Unknown;
}

/// setsOption() for a call: `opts.dtype(d)`, `t.options()`, `torch::device(d)`.
static Tri setsOptionInCall(const CallExpr *CE, bool Device, ASTContext &Ctx,
                            unsigned Depth) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return Tri::Unknown;
  llvm::StringRef Name = FD->getName();
  if (Name == (Device ? "device" : "dtype"))
    return Tri::Yes;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
  if (!MC)
    return Name == "device" || Name == "dtype" || Name == "requires_grad" ||
                   Name == "layout"
               ? Tri::No
               : Tri::Unknown;
  // t.options() has the tensor's dtype and device.
  if (isTensorRecord(MC->getMethodDecl()->getParent()))
    return Name == "options" ? Tri::Yes : Tri::Unknown;
  return setsOption(MC->getImplicitObjectArgument(), Device, Ctx, Depth + 1);
}

Tri setsOption(const Expr *E, bool Device, ASTContext &Ctx, unsigned Depth) {
  E = ignoreWrappers(E);
  if (!E || Depth > 8)
    return Tri::Unknown;
  QualType T = E->getType();
  if (isEnumNamed(T, "ScalarType"))
    return Device ? Tri::No : Tri::Yes;
  if (isEnumNamed(T, "DeviceType") || isRecordNamed(T, "Device") ||
      isa<StringLiteral>(E))
    return Device ? Tri::Yes : Tri::No;
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    return Construct->getNumArgs() == 0
               ? Tri::No
               : setsOption(Construct->getArg(0), Device, Ctx, Depth + 1);
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return setsOptionInCall(CE, Device, Ctx, Depth);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return setsOptionThroughVariable(Ref, Device, Ctx, Depth);
  return Tri::Unknown;
}

} // namespace clang::tidy::torch::utils
