//===--- HostDataAnalysis.cpp - libtorch-tidy -----------------------------===//

#include "HostDataAnalysis.h"
#include "HostCopyIndex.h"
#include "clang-tidy/utils/DeclRefExprUtils.h"
#include "utils/ConstantFacts.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/Operators.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {
namespace hostdata {

using utils::DeviceKind;
using utils::ignoreWrappers;
using utils::isEnumNamed;
using utils::isRecordNamed;
using utils::sourceText;

/// Ops that change only the shape or the memory layout: made on the device,
/// the tensor goes through them unchanged.
bool isShapeOp(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("view", "reshape", "repeat", "expand", "unsqueeze", "t", true)
      .Cases("permute", "contiguous", "clone", "flatten", "squeeze", true)
      .Case("transpose", true)
      .Default(false);
}

/// `t.to(dtype)` with nothing else: the dtype expression, or null.
const Expr *dtypeOfTo(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *M = utils::tensorMethod(Call);
  if (!M || M->getName() != "to" || Call->getNumArgs() == 0 ||
      !isEnumNamed(M->getParamDecl(0)->getType(), "ScalarType"))
    return nullptr;
  for (unsigned I = 1; I < Call->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Call->getArg(I)))
      return nullptr;
  return Call->getArg(0);
}

/// Walks down from \p E through shape-only ops and dtype-only conversions to
/// what they start from.
const Expr *walkLinks(const Expr *E, Segment &Seg,
                      llvm::SmallVectorImpl<const Expr *> &Dtypes) {
  E = ignoreWrappers(E);
  for (unsigned Depth = 0; Depth < 32; ++Depth) {
    const CXXMethodDecl *M = utils::tensorMethod(E);
    if (!M)
      break;
    const auto *MC = cast<CXXMemberCallExpr>(E);
    if (isShapeOp(M->getName()))
      Seg.ShapeOps.push_back(MC);
    else if (const Expr *D = dtypeOfTo(MC))
      Dtypes.push_back(D);
    else
      break;
    E = ignoreWrappers(MC->getImplicitObjectArgument());
  }
  Seg.Base = E;
  return E;
}

/// A factory call that makes its tensor on the host from no host data.
bool isHostFactoryCall(const CallExpr *CE, utils::DeviceAnalysis &Devices,
                       const ASTContext &Ctx) {
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !utils::isTensorFactory(FD) || FD->getName() == "from_blob" ||
      Devices.ofTensor(CE) != DeviceKind::Cpu)
    return false;
  // torch::tensor(values) copies host data: only a literal list or one
  // scalar can be made on the device instead.
  if (FD->getName() != "tensor")
    return true;
  return CE->getNumArgs() > 0 &&
         (scalarElement(CE->getArg(0)) ||
          llvm::StringRef(sourceText(CE->getArg(0)->getSourceRange(),
                                     Ctx.getSourceManager(), Ctx.getLangOpts()))
              .starts_with("{"));
}

/// No method of \p RD but its constructors changes \p Field, as far as
/// their bodies show; a method without a body in view may.
static bool onlyConstructorsSet(const FieldDecl *Field, const CXXRecordDecl *RD,
                                ASTContext &Ctx) {
  auto Uses = findAll(memberExpr(member(equalsNode(Field))).bind("use"));
  for (const CXXMethodDecl *M : RD->methods()) {
    if (isa<CXXConstructorDecl, CXXDestructorDecl>(M) || M->isImplicit() ||
        M->isStatic())
      continue;
    const FunctionDecl *Def = nullptr;
    if (!M->hasBody(Def) || !Def->getBody()) {
      if (M->isConst())
        continue;
      return false;
    }
    ExprMutationAnalyzer Mutations(*Def->getBody(), Ctx);
    for (const BoundNodes &N : match(Uses, *Def->getBody(), Ctx))
      if (Mutations.isMutated(N.getNodeAs<MemberExpr>("use")))
        return false;
  }
  return true;
}

const FieldDecl *constantHostMemberTensor(const CallExpr *CE,
                                          utils::DeviceAnalysis &Devices,
                                          ASTContext &Ctx) {
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !utils::isTensorFactory(FD) || FD->getName() != "tensor" ||
      CE->getNumArgs() == 0 || Devices.ofTensor(CE) != DeviceKind::Cpu)
    return nullptr;
  // A mutable member may change in a const method whose body is not in view.
  const FieldDecl *Field = ownMember(CE->getArg(0));
  if (!Field || Field->getAccess() == AS_public || Field->isMutable())
    return nullptr;
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  const CXXRecordDecl *Type =
      Field->getType().getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || RD->hasFriends() || !Type || !Type->getIdentifier() ||
      (Type->getName() != "vector" && Type->getName() != "array") ||
      !onlyConstructorsSet(Field, RD, Ctx))
    return nullptr;
  return Field;
}

/// A member of the object itself: `w_` or `this->w_`.
const FieldDecl *ownMember(const Expr *E) {
  const auto *ME = dyn_cast<MemberExpr>(ignoreWrappers(E));
  if (!ME || !isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
    return nullptr;
  return dyn_cast<FieldDecl>(ME->getMemberDecl());
}

/// Every value the member \p Field gets in its class: its default member
/// initializer, the constructors' initializers and the assignments in the
/// constructors. Empty when another method assigns it too.
llvm::SmallVector<const Expr *, 4> memberValues(const FieldDecl *Field,
                                                ASTContext &Ctx) {
  llvm::SmallVector<const Expr *, 4> Values;
  if (const Expr *Init = Field->getInClassInitializer())
    Values.push_back(Init);
  const CXXRecordDecl *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!RD)
    return {};
  auto Assign =
      cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                          hasArgument(0, ignoringParenImpCasts(memberExpr(
                                             member(equalsNode(Field))))))
          .bind("assign");
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (!M->hasBody(Def) || !Def->getBody())
      continue;
    auto Found = match(findAll(Assign), *Def->getBody(), Ctx);
    if (!Found.empty() && !isa<CXXConstructorDecl>(M))
      return {};
    for (const auto &Node : Found)
      Values.push_back(
          Node.getNodeAs<CXXOperatorCallExpr>("assign")->getArg(1));
    if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(Def))
      for (const CXXCtorInitializer *Init : Ctor->inits())
        if (Init->getMember() == Field && Init->isWritten())
          Values.push_back(Init->getInit());
  }
  return Values;
}

/// A value registered with the module (register_buffer): module->to(device)
/// moves it, and a `.to(device)` of it then copies nothing.
bool isRegistered(const Expr *E) {
  const auto *CE = dyn_cast<CallExpr>(ignoreWrappers(E));
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() && FD->getName().starts_with("register_");
}

/// A loop that collects what \p Call makes: its result is appended to a
/// container.
bool isCollected(const Expr *Call, ASTContext &Ctx) {
  const Stmt *Cur = Call;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    const auto *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!P)
      return false;
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(P))
      if (const CXXMethodDecl *M = MC->getMethodDecl();
          M && M->getIdentifier() && P != Call &&
          (M->getName() == "push_back" || M->getName() == "emplace_back"))
        return true;
    if (!isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
             ExprWithCleanups, CXXConstructExpr, ParenExpr>(P))
      return false;
    Cur = P;
  }
  return false;
}

/// A scalar whose torch::tensor({x}) dtype torch::full({1}, x) gives too:
/// float and double (the default dtype), int and int64_t (kLong), bool.
bool fullKeepsDtype(const Expr *Scalar) {
  const auto *BT = Scalar->IgnoreImpCasts()->getType()->getAs<BuiltinType>();
  if (!BT)
    return false;
  switch (BT->getKind()) {
  case BuiltinType::Float:
  case BuiltinType::Double:
  case BuiltinType::Int:
  case BuiltinType::Long:
  case BuiltinType::LongLong:
  case BuiltinType::Bool:
    return true;
  default:
    return false;
  }
}

const Expr *scalarElement(const Expr *Arg) {
  const Expr *E = ignoreWrappers(Arg)->IgnoreImpCasts();
  return E->getType()->isArithmeticType() ? E : nullptr;
}

/// The elements of `{a, b}` in torch::tensor's first argument.
llvm::SmallVector<const Expr *, 4> literalElements(const Expr *Arg) {
  const Expr *E = ignoreWrappers(Arg);
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    E = ignoreWrappers(List->getSubExpr());
  llvm::SmallVector<const Expr *, 4> Elements;
  const auto *Init = dyn_cast<InitListExpr>(E);
  if (!Init)
    return Elements;
  for (const Expr *Element : Init->inits())
    Elements.push_back(ignoreWrappers(Element));
  return Elements;
}

/// Tensor ops whose result is on the device of their tensor operands (their
/// in-place forms too): applied to tensors made on the device, they keep it.
bool keepsDevice(llvm::StringRef Name) {
  Name.consume_back("_");
  if (isShapeOp(Name))
    return true;
  return llvm::StringSwitch<bool>(Name)
      .Cases("add", "sub", "mul", "div", "pow", "neg", "abs", "sqrt", true)
      .Case("square", true)
      .Cases("rsqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid", true)
      .Cases("reciprocal", "sign", "clamp", "clamp_min", "clamp_max", true)
      .Cases("floor", "ceil", "round", "triu", "tril", "matmul", "mm", true)
      .Cases("bmm", "outer", "diag", "flip", "roll", "eq", "ne", "lt", true)
      .Cases("le", "gt", "ge", "logical_not", "logical_and", "logical_or", true)
      .Cases("masked_fill", "where", "cat", "stack", "sum", "mean", true)
      .Cases("prod", "cumsum", "narrow", "select", "slice", "index_select",
             true)
      .Cases("expand_as", "view_as", "reshape_as", "float", "double", true)
      .Cases("half", "long", "int", "bool", "detach", "fill", "zero", true)
      .Default(false);
}

/// Overloaded operators that compute elementwise or index.
bool isValueOperator(OverloadedOperatorKind Op) {
  return utils::isArithmeticOperator(Op) || utils::isComparisonOperator(Op) ||
         utils::isBitwiseOrLogicalOperator(Op) || Op == OO_Subscript;
}

bool isCompoundAssignment(OverloadedOperatorKind Op) {
  return Op == OO_PlusEqual || Op == OO_MinusEqual || Op == OO_StarEqual ||
         Op == OO_SlashEqual;
}

/// A type that holds tensors without being one: TensorList, a vector of
/// tensors, an optional tensor.
bool holdsTensors(QualType T) {
  return llvm::StringRef(T.getCanonicalType().getAsString())
      .contains("at::Tensor");
}

/// `.to(dtype)` in any of its forms: the device stays.
bool isDtypeTo(const CXXMethodDecl *M) {
  if (M->getName() != "to" || M->getNumParams() == 0)
    return false;
  QualType First = M->getParamDecl(0)->getType();
  return isEnumNamed(First, "ScalarType") || isRecordNamed(First, "TypeMeta");
}

bool HostMadeFinder::isHostMade(const Expr *E, HostOrigins &Origins,
                                unsigned Depth) {
  E = E ? ignoreWrappers(E) : nullptr;
  if (!E || Depth > 16 || Budget == 0 || E->isTypeDependent())
    return false;
  --Budget;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl()))
      return ofParam(P, Origins, Depth);
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    return VD && ofLocal(Ref, VD, Origins, Depth);
  }
  if (const FieldDecl *Field = ownMember(E))
    return ofMember(Field, Origins, Depth);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
      MC && utils::tensorMethod(MC))
    return ofMethod(MC, Origins, Depth);
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return ofCall(CE, Origins, Depth);
  return false;
}

bool HostMadeFinder::ofOperands(llvm::ArrayRef<const Expr *> Args,
                                HostOrigins &Origins, unsigned Depth,
                                bool &SawTensor) {
  for (const Expr *Arg : Args) {
    if (isa<CXXDefaultArgExpr>(Arg))
      continue;
    const Expr *Inner = ignoreWrappers(Arg);
    if (utils::isTensorType(Inner->getType())) {
      if (!isHostMade(Inner, Origins, Depth + 1))
        return false;
      SawTensor = true;
      continue;
    }
    if (!holdsTensors(Inner->getType()))
      continue; // a scalar, sizes, a dtype
    const InitListExpr *List = utils::writtenTensorList(Inner);
    if (!List)
      return false;
    for (const Expr *Element : List->inits()) {
      if (!isHostMade(Element, Origins, Depth + 1))
        return false;
      SawTensor = true;
    }
  }
  return true;
}

bool HostMadeFinder::ofCall(const CallExpr *CE, HostOrigins &Origins,
                            unsigned Depth) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() && !isa<CXXOperatorCallExpr>(CE))
    return false;
  if (!utils::isTensorType(CE->getType()))
    return false;
  if (utils::isTensorFactory(FD)) {
    bool Host = AllowHostData ? Devices.ofTensor(CE) == DeviceKind::Cpu
                              : isHostFactoryCall(CE, Devices, Ctx);
    if (Host)
      Origins.Factories.push_back(CE);
    return Host;
  }
  bool SawTensor = false;
  llvm::SmallVector<const Expr *, 4> Args(CE->arguments());
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(CE))
    return isValueOperator(Op->getOperator()) &&
           ofOperands(Args, Origins, Depth, SawTensor) && SawTensor;
  if (utils::isInTorchNamespace(FD))
    return keepsDevice(FD->getName()) &&
           ofOperands(Args, Origins, Depth, SawTensor) && SawTensor;
  return ofUserFunction(FD, Origins, Depth);
}

bool HostMadeFinder::ofMethod(const CXXMemberCallExpr *MC,
                              HostOrigins &Origins, unsigned Depth) {
  const CXXMethodDecl *M = MC->getMethodDecl();
  if (!utils::isTensorType(MC->getType()) ||
      (!isDtypeTo(M) && !keepsDevice(M->getName())))
    return false;
  if (!isHostMade(MC->getImplicitObjectArgument(), Origins, Depth + 1))
    return false;
  bool SawTensor = false;
  llvm::SmallVector<const Expr *, 4> Args(MC->arguments());
  return ofOperands(Args, Origins, Depth, SawTensor);
}

/// Whether the value \p Def gives may be the one \p Use reads: it comes
/// before, or a loop around both brings it round again.
bool HostMadeFinder::reaches(const Stmt *Def, const Expr *Use) const {
  if (SM.isBeforeInTranslationUnit(Def->getEndLoc(), Use->getBeginLoc()))
    return true;
  DynTypedNode Cur = DynTypedNode::create(*Use);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty() || Parents[0].get<Decl>())
      return false;
    const auto *Loop = Parents[0].get<Stmt>();
    if (isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(Loop) &&
        SM.isPointWithin(Def->getBeginLoc(), Loop->getBeginLoc(),
                         Loop->getEndLoc()))
      return true;
    Cur = Parents[0];
  }
  return false;
}

/// What a call on a local does to it: reads it, gives it a new value (an
/// assignment; the operands of a compound assignment or an in-place op that
/// keeps the device, with the local itself), or changes it in a way not
/// followed here.
DefKind classifyDef(const CallExpr *Def,
                    llvm::SmallVectorImpl<const Expr *> &Operands) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Def)) {
    OverloadedOperatorKind Kind = Op->getOperator();
    if (Kind != OO_Equal && !isCompoundAssignment(Kind))
      return DefKind::Read;
    Operands.push_back(Op->getArg(1));
    return DefKind::Def;
  }
  const CXXMethodDecl *M = cast<CXXMemberCallExpr>(Def)->getMethodDecl();
  if (!M || !M->getIdentifier() || !M->getName().ends_with("_"))
    return DefKind::Read;
  if (!keepsDevice(M->getName()))
    return DefKind::Unknown;
  Operands.append(Def->arg_begin(), Def->arg_end());
  return DefKind::Def;
}

/// The values the local \p VD may hold where \p Use reads it: its
/// initializer, the assignments that reach the use, and the tensor operands
/// of compound assignments and in-place ops on it. False when it may change
/// in another way (address, non-const reference, another in-place op).
bool HostMadeFinder::reachingValues(
    const VarDecl *VD, const Expr *Use, const Stmt *Body,
    llvm::SmallVectorImpl<const Expr *> &Values) {
  if (const Expr *Init = VD->getInit()) {
    const auto *Construct = dyn_cast<CXXConstructExpr>(ignoreWrappers(Init));
    if (!Construct || Construct->getNumArgs() > 0)
      Values.push_back(Init);
  }
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto MutableRef = hasType(
      lValueReferenceType(pointee(unless(isConstQualified()))));
  auto Escape = stmt(anyOf(
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(Ref)),
      callExpr(unless(cxxOperatorCallExpr()),
               forEachArgumentWithParam(Ref, parmVarDecl(MutableRef))),
      declStmt(has(varDecl(MutableRef, hasInitializer(Ref))))));
  if (!match(stmt(hasDescendant(Escape)), *Body, Ctx).empty())
    return false;
  auto Defs = match(
      findAll(stmt(anyOf(cxxOperatorCallExpr(hasArgument(0, Ref)),
                         cxxMemberCallExpr(on(Ref))))
                  .bind("def")),
      *Body, Ctx);
  for (const auto &Node : Defs) {
    const auto *Def = Node.getNodeAs<CallExpr>("def");
    llvm::SmallVector<const Expr *, 4> Operands;
    DefKind Kind = classifyDef(Def, Operands);
    if (Kind == DefKind::Unknown)
      return false;
    if (Kind == DefKind::Read || !reaches(Def, Use))
      continue;
    for (const Expr *Operand : Operands) {
      QualType T = ignoreWrappers(Operand)->getType();
      if (utils::isTensorType(T))
        Values.push_back(Operand);
      else if (holdsTensors(T))
        return false;
    }
  }
  return true;
}

bool HostMadeFinder::ofLocal(const DeclRefExpr *Use, const VarDecl *VD,
                             HostOrigins &Origins, unsigned Depth) {
  if (!VD->hasLocalStorage() || VD->getType()->isReferenceType())
    return false;
  Visited.insert(Use);
  if (!llvm::is_contained(Locals, VD))
    Locals.push_back(VD);
  if (InProgress.contains(VD))
    return true;
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  llvm::SmallVector<const Expr *, 4> Values;
  if (!Body || !reachingValues(VD, Use, Body, Values) || Values.empty())
    return false;
  InProgress.insert(VD);
  bool Host = llvm::all_of(Values, [&](const Expr *V) {
    return isHostMade(V, Origins, Depth + 1);
  });
  InProgress.erase(VD);
  return Host;
}

/// Where \p Ref writes its variable: the left side of an assignment or
/// compound assignment, the object of an in-place op.
bool isWritePosition(const DeclRefExpr *Ref, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*Ref);
  while (!Parents.empty() && Parents[0].get<ImplicitCastExpr>())
    Parents = Ctx.getParents(*Parents[0].get<ImplicitCastExpr>());
  const auto *P = Parents.empty() ? nullptr : Parents[0].get<Expr>();
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P))
    return (Op->getOperator() == OO_Equal ||
            isCompoundAssignment(Op->getOperator())) &&
           Op->getArg(0)->IgnoreParenImpCasts() == Ref;
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(P))
    if (const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl()))
      return M->getIdentifier() && M->getName().ends_with("_");
  return false;
}

/// The variable \p Move's result is assigned back to (`x = x.to(d)`).
const VarDecl *assignedBack(const CXXMemberCallExpr *Move, ASTContext &Ctx) {
  const Stmt *Cur = Move;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    const auto *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P);
        Op && Op->getOperator() == OO_Equal) {
      const auto *Ref =
          dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreParenImpCasts());
      return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    }
    if (!isa_and_nonnull<ImplicitCastExpr, MaterializeTemporaryExpr,
                         CXXBindTemporaryExpr, CXXConstructExpr, ParenExpr>(P))
      return nullptr;
    Cur = P;
  }
  return nullptr;
}

bool HostMadeFinder::onlyFeed(const CXXMemberCallExpr *Move) {
  const VarDecl *Back = assignedBack(Move, Ctx);
  for (const VarDecl *VD : Locals) {
    const Stmt *Body = utils::enclosingFunctionBody(VD);
    if (!Body)
      return false;
    for (const DeclRefExpr *Ref :
         tidy::utils::decl_ref_expr::allDeclRefExprs(*VD, *Body, Ctx)) {
      if (Visited.contains(Ref) || isWritePosition(Ref, Ctx))
        continue;
      // Reads after `x = x.to(d)` see the device tensor.
      if (VD == Back &&
          SM.isBeforeInTranslationUnit(Move->getEndLoc(), Ref->getBeginLoc()) &&
          !reaches(Ref, Move))
        continue;
      return false;
    }
  }
  return true;
}

/// A parameter is host-made where every call in this file passes a
/// host-made tensor and the function does not change it.
bool HostMadeFinder::ofParam(const ParmVarDecl *P, HostOrigins &Origins,
                             unsigned Depth) {
  if (InProgress.contains(P))
    return true;
  const auto *Fn = dyn_cast_or_null<FunctionDecl>(P->getDeclContext());
  if (!Freq || !Fn || !utils::isNeverReassigned(P, Ctx))
    return false;
  const llvm::SmallVector<const Stmt *, 4> *Calls = Freq->callsOf(Fn);
  unsigned Index = P->getFunctionScopeIndex();
  if (!Calls || Calls->empty())
    return false;
  InProgress.insert(P);
  bool Host = llvm::all_of(*Calls, [&](const Stmt *S) {
    const auto *Call = dyn_cast<CallExpr>(S);
    return Call && !isa<CXXOperatorCallExpr>(Call) &&
           Index < Call->getNumArgs() &&
           isHostMade(Call->getArg(Index), Origins, Depth + 1);
  });
  InProgress.erase(P);
  return Host;
}

/// A member whose every value in its class is made on the host: a
/// constant kept on the host.
bool HostMadeFinder::ofMember(const FieldDecl *Field, HostOrigins &Origins,
                              unsigned Depth) {
  if (InProgress.contains(Field))
    return true;
  llvm::SmallVector<const Expr *, 4> Values = memberValues(Field, Ctx);
  if (Values.empty())
    return ofIndexedMember(Field, Origins);
  bool SavedAllow = AllowHostData;
  AllowHostData = true;
  InProgress.insert(Field);
  HostOrigins Inner;
  bool Host = llvm::all_of(Values, [&](const Expr *V) {
    return !isRegistered(V) && (Devices.ofTensor(V) == DeviceKind::Cpu ||
                                isHostMade(V, Inner, Depth + 1));
  });
  InProgress.erase(Field);
  AllowHostData = SavedAllow;
  if (Host)
    Origins.Members.push_back(Field);
  return Host;
}

/// A member made only in other files (its constructors' file): the index
/// says whether every value it gets there is made on the host.
bool HostMadeFinder::ofIndexedMember(const FieldDecl *Field,
                                     HostOrigins &Origins) {
  const utils::MemberFact *Fact =
      Index ? Index->member(utils::usrOf(Field)) : nullptr;
  if (!Fact || !Fact->MadeOnHost)
    return false;
  Origins.Members.push_back(Field);
  return true;
}

/// A function of this file whose every return value is host-made (or, in
/// the values of members, one of another file that the index says returns
/// host data).
bool HostMadeFinder::ofUserFunction(const FunctionDecl *FD,
                                    HostOrigins &Origins, unsigned Depth) {
  if (AllowHostData && indexReturnsHostData(FD, Index))
    return true;
  const FunctionDecl *Def = nullptr;
  if (!FD->hasBody(Def) || !Def->getBody() ||
      utils::isInLibTorchHeader(Def->getBeginLoc(), SM))
    return false;
  if (const auto *M = dyn_cast<CXXMethodDecl>(Def); M && M->isVirtual())
    return false;
  if (InProgress.contains(Def))
    return false;
  auto Returns =
      match(findAll(returnStmt().bind("return")), *Def->getBody(), Ctx);
  if (Returns.empty())
    return false;
  InProgress.insert(Def);
  bool Host = llvm::all_of(Returns, [&](const BoundNodes &Node) {
    return isHostMade(Node.getNodeAs<ReturnStmt>("return")->getRetValue(),
                      Origins, Depth + 1);
  });
  InProgress.erase(Def);
  return Host;
}

/// The first factory a tensor computed on the host from factories alone
/// (HostMadeFinder, without members) comes from, or null.
const CallExpr *computedFromFactory(const Expr *E, ASTContext &Ctx) {
  HostMadeFinder Finder(Ctx, nullptr);
  HostOrigins Origins;
  if (!Finder.isHostMade(E, Origins) || !Origins.Members.empty() ||
      Origins.Factories.empty())
    return nullptr;
  // The move \p E is the object of.
  const CXXMemberCallExpr *Move = nullptr;
  DynTypedNodeList Parents = Ctx.getParents(*E);
  if (const auto *Member =
          Parents.empty() ? nullptr : Parents[0].get<MemberExpr>()) {
    DynTypedNodeList Calls = Ctx.getParents(*Member);
    Move = Calls.empty() ? nullptr : Calls[0].get<CXXMemberCallExpr>();
  }
  if (!Move || !Finder.onlyFeed(Move))
    return nullptr;
  return Origins.Factories.front();
}

/// How many calls and variables deep isHostData follows the source.
constexpr unsigned MaxSourceDepth = 8;

/// The project index of the copy being checked, for isHostData: the values
/// of functions of other files that return host data. Set only while
/// check() runs (clang-tidy checks one translation unit at a time).
const utils::ProjectIndex *ActiveIndex = nullptr;

ActiveIndexScope::ActiveIndexScope(const utils::ProjectIndex *Index) {
  ActiveIndex = Index;
}
ActiveIndexScope::~ActiveIndexScope() { ActiveIndex = nullptr; }

/// utils::isNeverReassigned, where handing x on with `std::move(x)` (to
/// `push_back`, a constructor) or copying it into `std::make_pair` /
/// `std::make_tuple` (forwarding references) is no change of the value x
/// had.
bool keepsInitialValue(const VarDecl *VD, const Stmt *Body, ASTContext &Ctx) {
  if (utils::isNeverReassigned(VD, Ctx))
    return true;
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto Moved = callExpr(callee(functionDecl(
      hasAnyName("::std::move", "::std::forward", "::std::make_pair",
                 "::std::make_tuple"))));
  return match(
             stmt(hasDescendant(stmt(anyOf(
                 cxxOperatorCallExpr(
                     hasAnyOverloadedOperatorName("=", "+=", "-=", "*=", "/=",
                                                  "&=", "|=", "^="),
                     hasArgument(0, Ref)),
                 unaryOperator(hasOperatorName("&"), hasUnaryOperand(Ref)),
                 callExpr(unless(Moved),
                          forEachArgumentWithParam(
                              Ref, parmVarDecl(hasType(lValueReferenceType(
                                       pointee(unless(isConstQualified()))))))),
                 cxxMemberCallExpr(on(Ref),
                                   callee(cxxMethodDecl(hasName("set_")))))))),
             *Body, Ctx)
      .empty();
}

/// Every value \p VD gets: its initializer, when nothing assigns it later.
const Expr *onlyValue(const VarDecl *VD, ASTContext &Ctx) {
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  if (!Body || isa<ParmVarDecl>(VD) || !VD->hasLocalStorage() ||
      VD->getType()->isReferenceType() || !VD->getInit())
    return nullptr;
  return keepsInitialValue(VD, Body, Ctx) ? VD->getInit() : nullptr;
}

/// `VD = Value;` as a statement of its own: Value, else null.
static const Expr *assignedValue(const Stmt *S, const VarDecl *VD) {
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(S))
    S = Cleanups->getSubExpr();
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(S);
  if (!Op || Op->getOperator() != OO_Equal)
    return nullptr;
  const auto *Ref = dyn_cast<DeclRefExpr>(Op->getArg(0)->IgnoreParenImpCasts());
  return Ref && Ref->getDecl() == VD ? Op->getArg(1) : nullptr;
}

/// Whether \p S only reads \p VD: by value, by const reference, or as the
/// object of a method that leaves it alone (not an in-place `op_`, not
/// `set_`).
static bool onlyReads(const Stmt *S, const VarDecl *VD, ASTContext &Ctx) {
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto Write = stmt(anyOf(
      cxxOperatorCallExpr(isAssignmentOperator(), hasArgument(0, Ref)),
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(Ref)),
      callExpr(forEachArgumentWithParam(
          Ref, parmVarDecl(hasType(lValueReferenceType(
                   pointee(unless(isConstQualified()))))))),
      cxxMemberCallExpr(on(Ref), callee(cxxMethodDecl(matchesName("_$")))),
      declStmt(has(varDecl(hasType(lValueReferenceType(
                               pointee(unless(isConstQualified())))),
                           hasInitializer(Ref))))));
  return match(stmt(anyOf(Write, hasDescendant(Write))), *S, Ctx).empty();
}

/// The value a local reassigned in straight-line code holds where \p Use
/// reads it (`data = data.to(kF32); data = data.to(device);`): the last
/// assignment statement or the declaration before the use's statement in
/// the same block, when every statement between only reads the local.
const Expr *reachingAssignment(const DeclRefExpr *Use, const VarDecl *VD,
                               ASTContext &Ctx) {
  if (!VD->hasLocalStorage() || isa<ParmVarDecl>(VD) ||
      VD->getType()->isReferenceType())
    return nullptr;
  // The statement of a block that holds the use; an initializer belongs
  // to its declaration statement.
  DynTypedNode Cur = DynTypedNode::create(*Use);
  const CompoundStmt *Block = nullptr;
  for (unsigned Steps = 0; Steps < 64 && !Block; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return nullptr;
    if (!Parents[0].get<VarDecl>()) {
      const auto *P = Parents[0].get<Stmt>();
      // A use in a loop's condition or body may see the loop's own writes.
      if (!P || isa<LambdaExpr, ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(P))
        return nullptr;
      Block = dyn_cast<CompoundStmt>(P);
    }
    if (!Block)
      Cur = Parents[0];
  }
  if (!Block || !Cur.get<Stmt>())
    return nullptr;
  auto It = llvm::find(Block->body(), Cur.get<Stmt>());
  while (It != Block->body_begin()) {
    const Stmt *Prev = *--It;
    if (const auto *Decl = dyn_cast<DeclStmt>(Prev);
        Decl && llvm::is_contained(Decl->decls(), VD))
      return VD->getInit();
    if (const Expr *Value = assignedValue(Prev, VD))
      return Value;
    if (!onlyReads(Prev, VD, Ctx))
      return nullptr;
  }
  return nullptr;
}

/// A function of the project defined here whose every return value is host
/// data: a loader or collate function.
bool returnsHostData(const FunctionDecl *FD, utils::DeviceAnalysis &Devices,
                     ASTContext &Ctx, unsigned Depth) {
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->getBody() || utils::isInTorchNamespace(Def) ||
      utils::isInLibTorchHeader(Def->getLocation(), Ctx.getSourceManager()) ||
      !utils::isTensorType(Def->getReturnType()) ||
      Def->getReturnType()->isReferenceType())
    return false;
  auto Returns =
      match(findAll(returnStmt(forFunction(equalsNode(Def))).bind("r")),
            *Def->getBody(), Ctx);
  if (Returns.empty())
    return false;
  for (const auto &Node : Returns) {
    const Expr *Value = Node.getNodeAs<ReturnStmt>("r")->getRetValue();
    if (!Value || !isHostData(Value, Devices, Ctx, Depth + 1))
      return false;
  }
  return true;
}

/// `torch::stack(items)` / `torch::cat(items)` of a local vector filled
/// with host tensors only, or of a list of host tensors written in place.
bool stacksHostData(const CallExpr *CE, utils::DeviceAnalysis &Devices,
                    ASTContext &Ctx, unsigned Depth) {
  if (!utils::isTorchFunction(CE->getDirectCallee(), {"stack", "cat"}) ||
      CE->getNumArgs() == 0)
    return false;
  if (const InitListExpr *List = utils::writtenTensorList(CE->getArg(0)))
    return List->getNumInits() > 0 &&
           llvm::all_of(List->inits(), [&](const Expr *Item) {
             return isHostData(Item, Devices, Ctx, Depth + 1);
           });
  const auto *Ref = dyn_cast<DeclRefExpr>(ignoreWrappers(CE->getArg(0)));
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  const Stmt *Body = VD ? utils::enclosingFunctionBody(VD) : nullptr;
  if (!Body || isa<ParmVarDecl>(VD) || VD->getType()->isReferenceType())
    return false;
  // Filled only by push_back / emplace_back: every other use reads it.
  auto Fills = match(
      findAll(cxxMemberCallExpr(on(declRefExpr(to(varDecl(equalsNode(VD))))),
                                callee(cxxMethodDecl(
                                    hasAnyName("push_back", "emplace_back"))))
                  .bind("fill")),
      *Body, Ctx);
  if (Fills.empty())
    return false;
  for (const auto &Node : Fills) {
    const auto *Fill = Node.getNodeAs<CXXMemberCallExpr>("fill");
    if (Fill->getNumArgs() != 1 ||
        !isHostData(Fill->getArg(0), Devices, Ctx, Depth + 1))
      return false;
  }
  return true;
}

/// `std::move(x)`, `std::forward<T>(x)`: x.
const Expr *movedValue(const Expr *E) {
  const auto *CE = dyn_cast<CallExpr>(ignoreWrappers(E));
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || !FD->isInStdNamespace() ||
      CE->getNumArgs() != 1 ||
      (FD->getName() != "move" && FD->getName() != "forward"))
    return nullptr;
  return CE->getArg(0);
}

/// The local that \p VD is only ever swapped with (`std::swap(a, b)`
/// exchanging two host tensors), when nothing else changes either of them.
const VarDecl *swapPartner(const VarDecl *VD, ASTContext &Ctx) {
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  if (!Body || isa<ParmVarDecl>(VD) || !VD->hasLocalStorage() ||
      VD->getType()->isReferenceType() || !VD->getInit())
    return nullptr;
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto Swap = callExpr(callee(functionDecl(hasName("::std::swap"))),
                       argumentCountIs(2), hasAnyArgument(Ref));
  auto Swaps = match(findAll(Swap.bind("swap")), *Body, Ctx);
  if (Swaps.empty())
    return nullptr;
  const VarDecl *Partner = nullptr;
  for (const auto &Node : Swaps) {
    const auto *Call = Node.getNodeAs<CallExpr>("swap");
    for (const Expr *Arg : Call->arguments()) {
      const auto *ArgRef = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
      const auto *Other =
          ArgRef ? dyn_cast<VarDecl>(ArgRef->getDecl()) : nullptr;
      if (!Other)
        return nullptr;
      if (Other == VD)
        continue;
      if (Partner && Partner != Other)
        return nullptr;
      Partner = Other;
    }
  }
  if (!Partner || Partner == VD || isa<ParmVarDecl>(Partner) ||
      !Partner->hasLocalStorage() || Partner->getType()->isReferenceType() ||
      !Partner->getInit())
    return nullptr;
  // Nothing but the swaps changes either.
  auto Either = ignoringParenImpCasts(declRefExpr(
      to(varDecl(anyOf(equalsNode(VD), equalsNode(Partner))))));
  auto Change = stmt(anyOf(
      cxxOperatorCallExpr(hasAnyOverloadedOperatorName(
                              "=", "+=", "-=", "*=", "/=", "&=", "|=", "^="),
                          hasArgument(0, Either)),
      unaryOperator(hasOperatorName("&"), hasUnaryOperand(Either)),
      callExpr(unless(Swap),
               forEachArgumentWithParam(
                   Either, parmVarDecl(hasType(lValueReferenceType(
                               pointee(unless(isConstQualified())))))))));
  return match(stmt(hasDescendant(Change)), *Body, Ctx).empty() ? Partner
                                                                 : nullptr;
}

/// The methods that put an element into a container.
bool isInsertion(llvm::StringRef Name) {
  return Name == "push" || Name == "emplace" || Name == "push_back" ||
         Name == "emplace_back" || Name == "push_front" ||
         Name == "emplace_front";
}

/// Component \p Index (0 `first`, 1 `second`) of a pair written as
/// `std::make_pair(a, b)` or `{a, b}`; the value itself for -1.
const Expr *pairComponent(const Expr *E, int Index) {
  if (Index < 0)
    return E;
  E = ignoreWrappers(E);
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return List->getNumInits() == 2 ? List->getInit(Index) : nullptr;
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (FD && FD->getIdentifier() && FD->isInStdNamespace() &&
      FD->getName() == "make_pair" && CE->getNumArgs() == 2)
    return CE->getArg(Index);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() == 2)
    return Construct->getArg(Index);
  return nullptr;
}

/// Whether every element the class puts into its member container
/// \p Field is host data (or that component of it, for a pair), and
/// nothing assigns the container as a whole.
bool containerHoldsHostData(const FieldDecl *Field, int Index,
                            utils::DeviceAnalysis &Devices, ASTContext &Ctx,
                            unsigned Depth) {
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!RD)
    return false;
  auto OnField = memberExpr(member(equalsNode(Field)));
  auto Use = stmt(anyOf(
      cxxMemberCallExpr(on(OnField)).bind("call"),
      cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                          hasArgument(0, ignoringParenImpCasts(OnField)))
          .bind("assign")));
  unsigned Inserted = 0;
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = nullptr;
    if (!M->hasBody(Def) || !Def->getBody())
      continue;
    for (const auto &Node : match(findAll(Use), *Def->getBody(), Ctx)) {
      if (Node.getNodeAs<Stmt>("assign"))
        return false;
      const auto *Call = Node.getNodeAs<CXXMemberCallExpr>("call");
      const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
      if (!Method || !Method->getIdentifier() ||
          !isInsertion(Method->getName()))
        continue;
      const Expr *Item = Call->getNumArgs() == 1
                             ? pairComponent(Call->getArg(0), Index)
                             : nullptr;
      if (!Item || !isHostData(Item, Devices, Ctx, Depth + 1))
        return false;
      ++Inserted;
    }
  }
  return Inserted > 0;
}

/// `item.first` / `item` where the local item is taken from a member
/// container (`auto item = std::move(queue_.front())`): an element of a
/// queue of host data that the class fills.
bool isHostContainerElement(const Expr *E, utils::DeviceAnalysis &Devices,
                            ASTContext &Ctx, unsigned Depth) {
  int Index = -1;
  if (const auto *ME = dyn_cast<MemberExpr>(E)) {
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (!FD || !FD->getIdentifier() ||
        (FD->getName() != "first" && FD->getName() != "second"))
      return false;
    Index = FD->getName() == "first" ? 0 : 1;
    E = ignoreWrappers(ME->getBase());
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  const Expr *Init = VD ? onlyValue(VD, Ctx) : nullptr;
  if (!Init)
    return false;
  if (const Expr *Moved = movedValue(Init))
    Init = Moved;
  const auto *Take = dyn_cast<CXXMemberCallExpr>(ignoreWrappers(Init));

  const CXXMethodDecl *M = Take ? Take->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() ||
      !llvm::is_contained({"front", "back", "top"}, M->getName()))
    return false;
  const auto *Container = dyn_cast<MemberExpr>(
      Take->getImplicitObjectArgument()->IgnoreParenImpCasts());
  if (!Container ||
      !isa<CXXThisExpr>(Container->getBase()->IgnoreParenImpCasts()))
    return false;
  const auto *Field = dyn_cast<FieldDecl>(Container->getMemberDecl());
  return Field &&
         containerHoldsHostData(Field, Index, Devices, Ctx, Depth + 1);
}

/// Host data the project loads itself: what DeviceAnalysis proves on the
/// CPU, and also the values of its own load and collate functions, through
/// local variables and the ops that keep the device.
/// `packed.data()`: a tensor held by what a LibTorch function made of host
/// data (a PackedSequence of host captions): LibTorch computes where its
/// inputs are.
bool isHostTorchValue(const Expr *E, utils::DeviceAnalysis &Devices,
                      ASTContext &Ctx, unsigned Depth) {
  E = ignoreWrappers(E);
  if (!E || Depth > MaxSourceDepth)
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    const Expr *Value = VD ? onlyValue(VD, Ctx) : nullptr;
    return Value && isHostTorchValue(Value, Devices, Ctx, Depth + 1);
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || isa<CXXMethodDecl>(FD) || !utils::isInTorchNamespace(FD))
    return false;
  bool SawTensor = false;
  for (const Expr *Arg : CE->arguments()) {
    if (!utils::isTensorType(ignoreWrappers(Arg)->getType()))
      continue;
    SawTensor = true;
    if (!isHostData(Arg, Devices, Ctx, Depth + 1))
      return false;
  }
  return SawTensor;
}

bool isHostData(const Expr *E, utils::DeviceAnalysis &Devices, ASTContext &Ctx,
                unsigned Depth) {
  if (Devices.ofTensor(E) == DeviceKind::Cpu)
    return true;
  E = ignoreWrappers(E);
  if (!E || Depth > MaxSourceDepth)
    return false;
  if (const Expr *Moved = movedValue(E))
    return isHostData(Moved, Devices, Ctx, Depth + 1);
  if (isHostContainerElement(E, Devices, Ctx, Depth))
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (const VarDecl *Partner = VD ? swapPartner(VD, Ctx) : nullptr)
      return isHostData(VD->getInit(), Devices, Ctx, Depth + 1) &&
             isHostData(Partner->getInit(), Devices, Ctx, Depth + 1);
    const Expr *Value = VD ? onlyValue(VD, Ctx) : nullptr;
    if (!Value && VD)
      Value = reachingAssignment(Ref, VD, Ctx);
    return Value && isHostData(Value, Devices, Ctx, Depth + 1);
  }
  if (const CXXMethodDecl *M = utils::tensorMethod(E)) {
    // Ops on a tensor keep its device; to() and cuda() may change it, but
    // to(dtype) does not.
    llvm::StringRef Name = M->getName();
    const auto *Call = cast<CXXMemberCallExpr>(E);
    if ((Name == "to" && !dtypeOfTo(Call)) || Name == "cuda" ||
        !utils::isTensorType(M->getReturnType()))
      return false;
    return isHostData(cast<CXXMemberCallExpr>(E)->getImplicitObjectArgument(),
                      Devices, Ctx, Depth + 1);
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD)
    return false;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
      MC && utils::isInTorchNamespace(FD) &&
      utils::isTensorType(FD->getReturnType()) &&
      isHostTorchValue(MC->getImplicitObjectArgument(), Devices, Ctx,
                       Depth + 1))
    return true;
  return stacksHostData(CE, Devices, Ctx, Depth) ||
         returnsHostData(FD, Devices, Ctx, Depth) ||
         indexReturnsHostData(FD, ActiveIndex);
}

} // namespace hostdata

using namespace hostdata;

const CallExpr *hostFactoryBehind(const Expr *E, ASTContext &Ctx) {
  utils::DeviceAnalysis Devices(Ctx);
  llvm::SmallVector<const Expr *, 2> Dtypes;
  const Expr *Source = E;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    Segment Seg;
    const Expr *Base = walkLinks(E, Seg, Dtypes);
    if (const auto *CE = dyn_cast<CallExpr>(Base);
        CE && (isHostFactoryCall(CE, Devices, Ctx) ||
               constantHostMemberTensor(CE, Devices, Ctx)))
      return CE;
    const auto *Ref = dyn_cast<DeclRefExpr>(Base);
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!VD || isa<ParmVarDecl>(VD) || !VD->getInit())
      return computedFromFactory(Source, Ctx);
    E = VD->getInit();
  }
  return computedFromFactory(Source, Ctx);
}

bool isMadeOnHost(const Expr *Value, ASTContext &Ctx) {
  if (!Value || isRegistered(Value))
    return false;
  utils::DeviceAnalysis Devices(Ctx);
  if (Devices.ofTensor(Value) == DeviceKind::Cpu || isHostDataValue(Value, Ctx))
    return true;
  HostMadeFinder Finder(Ctx, nullptr);
  Finder.allowHostData();
  HostOrigins Origins;
  return Finder.isHostMade(Value, Origins);
}

bool returnsHostTensor(const FunctionDecl *FD, ASTContext &Ctx) {
  if (!FD->getBody() || !utils::isTensorType(FD->getReturnType()) ||
      FD->getReturnType()->isReferenceType())
    return false;
  auto Returns =
      match(findAll(returnStmt(forFunction(equalsNode(FD))).bind("return")),
            *FD->getBody(), Ctx);
  return !Returns.empty() && llvm::all_of(Returns, [&](const BoundNodes &N) {
    return isMadeOnHost(N.getNodeAs<ReturnStmt>("return")->getRetValue(), Ctx);
  });
}

bool isHostDataValue(const Expr *E, ASTContext &Ctx) {
  utils::DeviceAnalysis Devices(Ctx);
  return isHostData(E, Devices, Ctx);
}

} // namespace clang::tidy::torch
