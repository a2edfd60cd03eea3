//===--- HostSyncInLoopCheck.cpp - libtorch-tidy --------------------------===//
//
// A host-device synchronization stalls the CPU until the GPU has drained its
// queue; once per iteration of a training loop it also keeps the CPU from
// queueing the next step ahead. For each loop the check walks what one
// iteration runs: the loop's condition, increment and body, the bodies of
// functions and lambdas called from it (same translation unit, MaxCallDepth
// calls deep), skipping what runs rarely (a branch under `i % n`, an early
// exit, assert(), nested loops, which are reported at their own loop). An
// outer loop whose body holds a whole training or evaluation loop is an epoch
// loop: what it runs after its inner loop happens once per epoch and is not
// reported.
//
//===----------------------------------------------------------------------===//

#include "HostSyncInLoopCheck.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/TorchUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using utils::DeviceKind;
using utils::ignoreWrappers;
using utils::isInTorchNamespace;
using utils::isTensorType;
using utils::isTorchFunction;
using utils::tensorMethod;

namespace {

/// One kind of synchronizing call: how the message names it and the better
/// pattern it suggests.
struct SyncKind {
  const char *What;
  const char *Hint;
};

const SyncKind ItemSync = {
    "'item()'",
    "accumulate on the device and read the value once after the loop"};
const SyncKind CpuCopySync = {
    "copying a tensor to the CPU",
    "keep the data on the device, or copy it once after the loop"};
const SyncKind DataDependentSync = {
    "%0",
    "its output size depends on the data, so the host waits for it; use a "
    "fixed-size form (a mask with 'where', or 'nonzero_static' on LibTorch "
    "2.x) or move it out of the loop"};
const SyncKind BoolSync = {
    "%0", "it returns a host bool; compute the condition on the device, or "
          "check it less often"};
const SyncKind PrintSync = {
    "printing a tensor",
    "print less often (every N steps) or print values gathered after the "
    "loop"};
const SyncKind DeviceSync = {
    "%0", "remove it: reading a result synchronizes when it is needed"};
const SyncKind DataPtrSync = {
    "reading 'data_ptr()' of a device tensor on the host",
    "copy the data to the host once after the loop"};
const SyncKind ClipGradSync = {
    "'clip_grad_norm_()'",
    "it reads the total norm back to the host on every call; clip less often "
    "or compute the clip coefficient on the device"};

struct FoundSync {
  const Expr *Sync = nullptr;
  const SyncKind *Kind = nullptr;
  std::string What; // Kind->What with its name filled in
  /// The functions the sync was reached through, outermost first.
  llvm::SmallVector<const FunctionDecl *, 4> Through;
};

struct Site {
  const Expr *Where; // in the walked code: the sync itself or a call
  FoundSync Sync;
};

struct WalkResult {
  llvm::SmallVector<Site, 4> Sites;
  /// Whether a whole training/evaluation loop runs inside.
  bool HasTrainingLoop = false;
};

bool hasQualifiedName(const FunctionDecl *FD, llvm::StringRef Name) {
  return FD && FD->getIdentifier() && FD->getQualifiedNameAsString() == Name;
}

bool isLoop(const Stmt *S, const ASTContext &Ctx) {
  return isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt>(S) &&
         !utils::isRunOnceLoop(S, Ctx);
}

const Stmt *loopBody(const Stmt *S) {
  if (const auto *F = dyn_cast<ForStmt>(S))
    return F->getBody();
  if (const auto *F = dyn_cast<CXXForRangeStmt>(S))
    return F->getBody();
  if (const auto *W = dyn_cast<WhileStmt>(S))
    return W->getBody();
  if (const auto *D = dyn_cast<DoStmt>(S))
    return D->getBody();
  return nullptr;
}

/// Whether a branch leaves the loop or the function: it runs at most once.
bool isEarlyExit(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return !CS->body_empty() && isEarlyExit(CS->body_back());
  return isa<BreakStmt, ReturnStmt, CXXThrowExpr, GotoStmt>(S);
}

/// A condition with `%` in it (`step % log_interval == 0`): its branch runs
/// every few iterations at most.
bool hasRemainder(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *BO = dyn_cast<BinaryOperator>(S);
      BO && BO->getOpcode() == BO_Rem)
    return true;
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S);
      OC && OC->getOperator() == OO_Percent)
    return true;
  for (const Stmt *Child : S->children())
    if (hasRemainder(Child))
      return true;
  return false;
}

/// The LibTorch and CUDA functions whose call blocks the host until the
/// device is idle.
bool isDeviceSyncFunction(const FunctionDecl *FD) {
  return hasQualifiedName(FD, "torch::cuda::synchronize") ||
         hasQualifiedName(FD, "c10::cuda::device_synchronize") ||
         hasQualifiedName(FD, "at::cuda::device_synchronize") ||
         hasQualifiedName(FD, "cudaDeviceSynchronize") ||
         hasQualifiedName(FD, "cudaStreamSynchronize");
}

bool isClockRead(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  if (Name == "now")
    return llvm::StringRef(FD->getQualifiedNameAsString()).contains("chrono");
  return Name == "clock" || Name == "clock_gettime" || Name == "gettimeofday" ||
         Name == "cudaEventRecord" || Name == "cudaEventElapsedTime";
}

bool containsClockRead(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (isClockRead(CE->getDirectCallee()))
      return true;
  for (const Stmt *Child : S->children())
    if (containsClockRead(Child))
      return true;
  return false;
}

/// Whether \p Loc is inside the argument of a macro named assert: it is
/// compiled out under NDEBUG.
bool isInAssert(SourceLocation Loc, const SourceManager &SM,
                const LangOptions &LangOpts) {
  while (Loc.isMacroID()) {
    if (Lexer::getImmediateMacroName(Loc, SM, LangOpts) == "assert")
      return true;
    Loc = SM.getImmediateMacroCallerLoc(Loc);
  }
  return false;
}

/// The base object of a member access a template leaves unresolved.
const Expr *memberBase(const Expr *Member) {
  if (const auto *U = dyn_cast<UnresolvedMemberExpr>(Member))
    return U->isImplicitAccess() ? nullptr : U->getBase();
  if (const auto *D = dyn_cast<CXXDependentScopeMemberExpr>(Member))
    return D->isImplicitAccess() ? nullptr : D->getBase();
  return nullptr;
}

llvm::StringRef memberName(const Expr *Member) {
  DeclarationName Name;
  if (const auto *U = dyn_cast<UnresolvedMemberExpr>(Member))
    Name = U->getMemberName();
  else if (const auto *D = dyn_cast<CXXDependentScopeMemberExpr>(Member))
    Name = D->getMember();
  return Name.isIdentifier() ? Name.getAsIdentifierInfo()->getName() : "";
}

/// Whether \p Base is declared as a tensor: its type is at::Tensor, or it
/// names a variable, parameter or member declared as one.
bool isDeclaredTensor(const Expr *Base) {
  if (!Base)
    return false;
  Base = Base->IgnoreParenImpCasts();
  if (!Base->isTypeDependent() && isTensorType(Base->getType()))
    return true;
  const ValueDecl *D = nullptr;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Base))
    D = Ref->getDecl();
  else if (const auto *ME = dyn_cast<MemberExpr>(Base))
    D = ME->getMemberDecl();
  return D && !D->getType()->isDependentType() && isTensorType(D->getType());
}

/// For a call in a template that nothing instantiates, `x.template
/// item<T>()` where x is declared a tensor: the unresolved member expression
/// it calls. Null for any other call.
const Expr *dependentTensorCallee(const Expr *E) {
  const auto *CE = dyn_cast<CallExpr>(E);
  if (!CE || isa<CXXMemberCallExpr>(CE) || !CE->getCallee())
    return nullptr;
  const Expr *Callee = CE->getCallee()->IgnoreParens();
  if (!isa<UnresolvedMemberExpr, CXXDependentScopeMemberExpr>(Callee) ||
      !isDeclaredTensor(memberBase(Callee)))
    return nullptr;
  return Callee;
}

/// The name of the member a template's unresolved call names, or "".
llvm::StringRef dependentMemberName(const CallExpr *CE) {
  const Expr *Callee =
      CE->getCallee() ? CE->getCallee()->IgnoreParens() : nullptr;
  if (!isa_and_nonnull<UnresolvedMemberExpr, CXXDependentScopeMemberExpr>(
          Callee))
    return "";
  return memberName(Callee);
}

} // namespace

class SyncAnalysis {
public:
  SyncAnalysis(ASTContext &Ctx, const SourceManager &SM, const LangOptions &LO,
               unsigned MaxCallDepth)
      : Ctx(Ctx), SM(SM), LangOpts(LO), MaxCallDepth(MaxCallDepth),
        Devices(Ctx) {}

  /// What one iteration of \p Loop runs.
  WalkResult walkLoop(const Stmt *Loop) {
    WalkResult R;
    if (const auto *F = dyn_cast<ForStmt>(Loop)) {
      walk(F->getCond(), R, 0);
      walk(F->getInc(), R, 0);
    } else if (const auto *W = dyn_cast<WhileStmt>(Loop)) {
      walk(W->getCond(), R, 0);
    } else if (const auto *D = dyn_cast<DoStmt>(Loop)) {
      walk(D->getCond(), R, 0);
    }
    walk(loopBody(Loop), R, 0);
    return R;
  }

private:
  struct Summary {
    std::optional<FoundSync> First;
    bool HasTrainingLoop = false;
  };

  void walk(const Stmt *S, WalkResult &R, unsigned Depth);
  const Summary &summarize(const FunctionDecl *FD, unsigned Depth);
  std::optional<FoundSync> classify(const Expr *E);
  std::optional<FoundSync> classifyUnresolved(const Expr *Member);
  bool isTimingSync(const Expr *E);
  bool isTrainingLoop(const Stmt *Loop);
  bool containsTrainingStep(const Stmt *S, unsigned CallBudget);
  bool resultIsDereferenced(const Expr *Call);

  static bool isUserFunction(const FunctionDecl *FD, const SourceManager &SM) {
    return FD && FD->hasBody() && !FD->isInStdNamespace() &&
           !utils::isInLibTorchHeader(FD->getLocation(), SM);
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LangOpts;
  const unsigned MaxCallDepth;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, Summary> Summaries;
  llvm::DenseSet<const FunctionDecl *> InProgress;
  utils::DeviceAnalysis Devices;
};

void SyncAnalysis::walk(const Stmt *S, WalkResult &R, unsigned Depth) {
  if (!S || isa<LambdaExpr>(S))
    return; // a lambda's body runs when it is called, not where it is written
  if (isLoop(S, Ctx)) {
    // Reported at its own loop; but a whole training loop inside makes this
    // loop an epoch loop.
    if (isTrainingLoop(S))
      R.HasTrainingLoop = true;
    return;
  }
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    walk(If->getInit(), R, Depth);
    walk(If->getConditionVariableDeclStmt(), R, Depth);
    walk(If->getCond(), R, Depth);
    // A branch dead under a constant flag (`bool verbose = false;`) never
    // runs.
    std::optional<bool> Constant = Devices.constantCondition(If->getCond());
    if (!hasRemainder(If->getCond()) && !isEarlyExit(If->getThen()) &&
        Constant != false)
      walk(If->getThen(), R, Depth);
    if (!isEarlyExit(If->getElse()) && Constant != true)
      walk(If->getElse(), R, Depth);
    return;
  }
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (std::optional<FoundSync> Found = classify(E)) {
      if (!isInAssert(E->getExprLoc(), SM, LangOpts) && !isTimingSync(E))
        R.Sites.push_back({Found->Sync, *Found});
    } else if (const auto *CE = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      if (FD && Depth < MaxCallDepth && isUserFunction(FD, SM) &&
          !isInAssert(CE->getExprLoc(), SM, LangOpts)) {
        const Summary &Sum = summarize(FD, Depth + 1);
        if (Sum.First) {
          FoundSync Chained = *Sum.First;
          Chained.Through.insert(Chained.Through.begin(), FD);
          R.Sites.push_back({CE, Chained});
        }
        R.HasTrainingLoop |= Sum.HasTrainingLoop;
      }
      // A lambda handed to a standard algorithm runs for every element.
      if (FD && FD->isInStdNamespace())
        for (const Expr *Arg : CE->arguments())
          if (const auto *L = dyn_cast<LambdaExpr>(ignoreWrappers(Arg)))
            walk(L->getBody(), R, Depth);
    }
  }
  for (const Stmt *Child : S->children())
    walk(Child, R, Depth);
}

const SyncAnalysis::Summary &SyncAnalysis::summarize(const FunctionDecl *FD,
                                                     unsigned Depth) {
  const FunctionDecl *Def = FD->getDefinition();
  auto Key = std::make_pair(Def, Depth);
  auto It = Summaries.find(Key);
  if (It != Summaries.end())
    return It->second;
  Summary Sum;
  if (InProgress.insert(Def).second) {
    WalkResult R;
    walk(Def->getBody(), R, Depth);
    InProgress.erase(Def);
    if (!R.Sites.empty())
      Sum.First = R.Sites.front().Sync;
    Sum.HasTrainingLoop = R.HasTrainingLoop;
  }
  return Summaries[Key] = Sum;
}

/// A loop that runs a training or evaluation step: it calls backward(), an
/// optimizer's step() or a module's forward(), or iterates a data loader.
bool SyncAnalysis::isTrainingLoop(const Stmt *Loop) {
  if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop)) {
    QualType RangeType = RF->getRangeInit()->getType();
    if (const auto *RD = RangeType.getNonReferenceType()->getAsCXXRecordDecl())
      if (RD->getName().contains("DataLoader"))
        return true;
  }
  return containsTrainingStep(loopBody(Loop), /*CallBudget=*/1);
}

bool SyncAnalysis::containsTrainingStep(const Stmt *S, unsigned CallBudget) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    // In a template: `model->forward(x)`, `optimizer.step()` on objects of
    // a dependent type.
    llvm::StringRef Dependent = dependentMemberName(CE);
    if (Dependent == "backward" || Dependent == "forward" ||
        Dependent == "step")
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD && FD->getIdentifier()) {
      llvm::StringRef Name = FD->getName();
      if (Name == "backward" || Name == "forward" || Name == "step")
        return true;
      if (CallBudget > 0 && isUserFunction(FD, SM) &&
          containsTrainingStep(FD->getDefinition()->getBody(), CallBudget - 1))
        return true;
    }
    // model(x) through ModuleHolder::operator().
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
        OC && OC->getOperator() == OO_Call && FD &&
        FD->getQualifiedNameAsString().find("ModuleHolder") !=
            std::string::npos)
      return true;
  }
  for (const Stmt *Child : S->children())
    if (containsTrainingStep(Child, CallBudget))
      return true;
  return false;
}

/// A deliberate timing sync: next to a clock read.
bool SyncAnalysis::isTimingSync(const Expr *E) {
  const auto *CE = dyn_cast<CallExpr>(E);
  if (!CE || !isDeviceSyncFunction(CE->getDirectCallee()))
    return false;
  // Climb to the statement of a compound statement that holds the call.
  const Stmt *Cur = E;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return false;
    const auto *Parent = Parents[0].get<Stmt>();
    if (!Parent)
      return false;
    if (const auto *CS = dyn_cast<CompoundStmt>(Parent)) {
      const Stmt *Prev = nullptr;
      for (auto It = CS->body_begin(); It != CS->body_end(); ++It) {
        if (*It != Cur) {
          Prev = *It;
          continue;
        }
        const Stmt *Next =
            std::next(It) != CS->body_end() ? *std::next(It) : nullptr;
        return containsClockRead(Cur) || containsClockRead(Prev) ||
               containsClockRead(Next);
      }
      return false;
    }
    Cur = Parent;
  }
}

/// `*t.data_ptr<float>()`, `t.data_ptr<float>()[i]`, or a pointer variable
/// initialized from it and then dereferenced.
bool SyncAnalysis::resultIsDereferenced(const Expr *Call) {
  const Stmt *Cur = Call;
  for (int I = 0; I < 4; ++I) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return false;
    if (const auto *Sub = Parents[0].get<ArraySubscriptExpr>())
      return true;
    if (const auto *UO = Parents[0].get<UnaryOperator>())
      return UO->getOpcode() == UO_Deref;
    if (const auto *VD = Parents[0].get<VarDecl>()) {
      const auto *Fn =
          dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
      if (!Fn || !Fn->getBody())
        return false;
      auto Ref = declRefExpr(to(varDecl(equalsNode(VD))));
      return !match(stmt(anyOf(hasDescendant(arraySubscriptExpr(
                                   hasBase(ignoringImpCasts(Ref)))),
                               hasDescendant(unaryOperator(
                                   hasOperatorName("*"),
                                   hasUnaryOperand(ignoringImpCasts(Ref)))))),
                    *Fn->getBody(), Ctx)
                  .empty();
    }
    const auto *P = Parents[0].get<Stmt>();
    if (!P || !isa<ImplicitCastExpr, ParenExpr>(P))
      return false;
    Cur = P;
  }
  return false;
}

/// `x.template item<T>()` or `x.cpu()` left unresolved in a template, on an
/// object declared as a tensor.
std::optional<FoundSync> SyncAnalysis::classifyUnresolved(const Expr *Member) {
  llvm::StringRef Name = memberName(Member);
  if ((Name != "item" && Name != "cpu") ||
      Devices.ofTensor(memberBase(Member)) == DeviceKind::Cpu)
    return std::nullopt;
  const SyncKind &Kind = Name == "item" ? ItemSync : CpuCopySync;
  FoundSync F;
  F.Sync = Member; // reported at the name, as in an instantiation
  F.Kind = &Kind;
  F.What = Kind.What;
  return F;
}

std::optional<FoundSync> SyncAnalysis::classify(const Expr *E) {
  auto found = [&](const SyncKind &Kind, llvm::StringRef Name = "") {
    FoundSync F;
    F.Sync = E;
    F.Kind = &Kind;
    F.What = Kind.What;
    if (F.What == "%0")
      F.What = ("'" + Name + "()'").str();
    return std::optional<FoundSync>(F);
  };
  auto onCpu = [&](const Expr *Tensor) {
    return Devices.ofTensor(Tensor) == DeviceKind::Cpu;
  };

  if (const CXXMethodDecl *M = tensorMethod(E)) {
    const auto *MC = cast<CXXMemberCallExpr>(E);
    const Expr *Self = MC->getImplicitObjectArgument();
    llvm::StringRef Name = M->getName();
    if (Name == "item")
      return onCpu(Self) ? std::nullopt : found(ItemSync);
    if (Name == "cpu")
      return onCpu(Self) ? std::nullopt : found(CpuCopySync);
    if (Name == "to") {
      if (onCpu(Self) || Devices.ofTensor(E) != DeviceKind::Cpu)
        return std::nullopt;
      return found(CpuCopySync);
    }
    if (Name == "nonzero" || Name == "masked_select" || Name == "argwhere" ||
        Name == "nonzero_numpy" || Name == "unique_consecutive")
      return onCpu(Self) ? std::nullopt : found(DataDependentSync, Name);
    if (Name == "is_nonzero" || Name == "equal" || Name == "allclose")
      return onCpu(Self) ? std::nullopt : found(BoolSync, Name);
    if (Name == "data_ptr" && Devices.ofTensor(Self) == DeviceKind::Cuda &&
        resultIsDereferenced(E))
      return found(DataPtrSync);
    return std::nullopt;
  }
  if (const Expr *Member = dependentTensorCallee(E))
    return classifyUnresolved(Member);
  const auto *CE = dyn_cast<CallExpr>(E);
  if (!CE)
    return std::nullopt;
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return std::nullopt;
  // `out << tensor` through at::operator<<, for any ostream.
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
      OC && OC->getOperator() == OO_LessLess && OC->getNumArgs() == 2) {
    if (isTensorType(ignoreWrappers(OC->getArg(1))->getType()) &&
        isInTorchNamespace(FD) && !onCpu(OC->getArg(1)))
      return found(PrintSync);
    return std::nullopt;
  }
  if (!FD->getIdentifier())
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  const Expr *First = CE->getNumArgs() ? CE->getArg(0) : nullptr;
  if (isDeviceSyncFunction(FD)) {
    std::string Qualified = FD->getQualifiedNameAsString();
    return found(DeviceSync, Qualified);
  }
  if (hasQualifiedName(FD, "torch::nn::utils::clip_grad_norm_"))
    return found(ClipGradSync);
  if (isTorchFunction(FD, {"nonzero", "masked_select", "argwhere",
                           "nonzero_numpy", "unique_consecutive", "_unique",
                           "_unique2", "unique_dim"}))
    return First && onCpu(First) ? std::nullopt
                                 : found(DataDependentSync, Name);
  if (isTorchFunction(FD, {"equal", "allclose", "is_nonzero"}))
    return First && onCpu(First) ? std::nullopt : found(BoolSync, Name);
  if (isTorchFunction(FD, {"print"}) && First &&
      isTensorType(ignoreWrappers(First)->getType()))
    return onCpu(First) ? std::nullopt : found(PrintSync);
  return std::nullopt;
}

namespace {

/// Finds, in the code outside LibTorch's headers, the signs that tensors
/// may live on a CUDA device. A CUDA selection: a name with "cuda" in it
/// (kCUDA, DeviceType::CUDA, cuda(), torch::cuda::...) or a "cuda..." string.
/// Device-generic code: a Device, DeviceType or TensorOptions parameter or
/// member, a local one not provably the CPU's, `t.device()` or `t.options()`
/// of a tensor not provably on the CPU. Branches dead under constant flags
/// (`bool force_cpu = true; if (!force_cpu) ...`) show neither.
class DeviceUseFinder : public RecursiveASTVisitor<DeviceUseFinder> {
public:
  DeviceUseFinder(ASTContext &Ctx, const SourceManager &SM)
      : SM(SM), Devices(Ctx) {}

  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        utils::isInLibTorchHeader(D->getLocation(), SM))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool shouldVisitTemplateInstantiations() const { return true; }

  /// Only the live branch of a condition a constant flag decides; the
  /// condition itself selects nothing.
  bool TraverseIfStmt(IfStmt *If) {
    std::optional<bool> V = Devices.constantCondition(If->getCond());
    if (!V)
      return RecursiveASTVisitor::TraverseIfStmt(If);
    return TraverseStmt(If->getInit()) &&
           TraverseStmt(If->getConditionVariableDeclStmt()) &&
           TraverseStmt(*V ? If->getThen() : If->getElse());
  }
  bool TraverseConditionalOperator(ConditionalOperator *CO) {
    std::optional<bool> V = Devices.constantCondition(CO->getCond());
    if (!V)
      return RecursiveASTVisitor::TraverseConditionalOperator(CO);
    return TraverseStmt(*V ? CO->getTrueExpr() : CO->getFalseExpr());
  }

  bool VisitDeclRefExpr(DeclRefExpr *E) {
    noteGeneric(E);
    return !noteIf(isCudaName(E->getDecl()));
  }
  bool VisitMemberExpr(MemberExpr *E) {
    noteGeneric(E);
    return !noteIf(isCudaName(E->getMemberDecl()));
  }
  bool VisitCallExpr(CallExpr *E) {
    noteGeneric(E);
    return !noteIf(isCudaName(E->getDirectCallee()));
  }
  bool VisitStringLiteral(StringLiteral *S) {
    return !noteIf(S->getCharByteWidth() == 1 &&
                   S->getString().starts_with("cuda"));
  }
  bool VisitValueDecl(ValueDecl *D) {
    Generic |= isa<ParmVarDecl, FieldDecl>(D) && isUserCode(D->getLocation()) &&
               utils::isDeviceValueType(D->getType());
    return true;
  }

  bool Found = false;
  bool Generic = false;

private:
  static bool isCudaName(const NamedDecl *D) {
    if (!D)
      return false;
    std::string Name = D->getQualifiedNameAsString();
    return llvm::StringRef(Name).contains_insensitive("cuda");
  }
  bool noteIf(bool Mention) {
    Found |= Mention;
    return Found;
  }
  /// Device-generic code counts in the project's own files, not in a
  /// library's headers found on the system include path.
  bool isUserCode(SourceLocation Loc) const {
    return Loc.isValid() && !SM.isInSystemHeader(SM.getExpansionLoc(Loc));
  }
  void noteGeneric(const Expr *E) {
    if (!Generic && !E->isValueDependent() && isUserCode(E->getExprLoc()))
      Generic = Devices.isDeviceGenericUse(E);
  }
  const SourceManager &SM;
  utils::DeviceAnalysis Devices;
};

/// The LibTorch dtype that holds values of a host arithmetic type.
struct DTypeInfo {
  llvm::StringRef Name;  // kFloat
  llvm::StringRef CType; // float: a type item<T>() is defined for
  bool Floating;
  int Rank; // wider is larger, within the floating or the integral types
};

std::optional<DTypeInfo> dtypeFor(QualType T) {
  const auto *BT = T.getCanonicalType()->getAs<BuiltinType>();
  if (!BT)
    return std::nullopt;
  switch (BT->getKind()) {
  case BuiltinType::Float:
    return DTypeInfo{"kFloat", "float", true, 1};
  case BuiltinType::Double:
    return DTypeInfo{"kDouble", "double", true, 2};
  case BuiltinType::Int:
    return DTypeInfo{"kInt", "int", false, 1};
  case BuiltinType::Long:
  case BuiltinType::LongLong:
  case BuiltinType::ULong:
  case BuiltinType::ULongLong:
    return DTypeInfo{"kLong", "int64_t", false, 2};
  default:
    return std::nullopt;
  }
}

} // namespace

HostSyncInLoopCheck::HostSyncInLoopCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      MaxCallDepth(Options.get("MaxCallDepth", 3U)),
      CheckCpuOnlyCode(Options.get("CheckCpuOnlyCode", false)),
      ProjectSelectsCuda(Options.get("ProjectSelectsCuda", "unknown")),
      DetectedProjectSelectsCuda(
          Options.get("DetectedProjectSelectsCuda", "unknown")) {
  for (llvm::StringRef Option :
       {"ProjectSelectsCuda", "DetectedProjectSelectsCuda"}) {
    std::string Value = Options.get(Option, "unknown").str();
    if (Value != "true" && Value != "false" && Value != "unknown")
      configurationDiag("invalid %0 '%1' for check '%2': expected true, "
                        "false or unknown")
          << Option << Value << Name;
  }
}

void HostSyncInLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "MaxCallDepth", MaxCallDepth);
  Options.store(Opts, "CheckCpuOnlyCode", CheckCpuOnlyCode);
  Options.store(Opts, "ProjectSelectsCuda", ProjectSelectsCuda);
}

bool HostSyncInLoopCheck::projectNeverSelectsCuda() const {
  // The user's word first; else what a whole-project run found.
  llvm::StringRef Said = ProjectSelectsCuda;
  if (Said == "unknown")
    Said = DetectedProjectSelectsCuda;
  return Said == "false";
}

HostSyncInLoopCheck::~HostSyncInLoopCheck() = default;

void HostSyncInLoopCheck::onStartOfTranslationUnit() {
  Analysis.reset();
  Reported.clear();
  MentionsCuda.reset();
  DeviceGeneric = false;
}

void HostSyncInLoopCheck::onEndOfTranslationUnit() { Analysis.reset(); }

void HostSyncInLoopCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  Finder->addMatcher(
      stmt(utils::isOutsideLibTorch(),
           anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt()))
          .bind("loop"),
      this);
}

namespace {

/// The fix for `total += x.item<T>();` whose total is read only after the
/// loop: accumulate on the device, read once after the loop.
struct AccumulateFix {
  llvm::SmallVector<FixItHint, 3> Hints;
};

std::optional<AccumulateFix>
accumulateOnDevice(const Expr *ItemCall, const Stmt *Loop, ASTContext &Ctx,
                   const SourceManager &SM, const LangOptions &LangOpts) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(ItemCall);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getTemplateSpecializationArgs() ||
      ItemCall->getBeginLoc().isMacroID() || Loop->getBeginLoc().isMacroID())
    return std::nullopt;
  auto parentOf = [&](const Stmt *S) -> const Stmt * {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    return Parents.size() == 1 ? Parents[0].get<Stmt>() : nullptr;
  };
  auto skipCasts = [&](const Stmt *S) {
    const Stmt *P = parentOf(S);
    while (P && isa<ImplicitCastExpr, ParenExpr>(P)) {
      S = P;
      P = parentOf(S);
    }
    return std::make_pair(S, P);
  };

  // `Total += Item;`, or `Total += Item * Factor;` (also Factor * Item and
  // Item / Factor) with a host arithmetic Factor, as a statement of its own.
  auto [Term, Parent] = skipCasts(ItemCall);
  const Expr *Factor = nullptr;
  BinaryOperatorKind FactorOp = BO_Mul;
  bool FactorFirst = false;
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Parent);
      BO && (BO->getOpcode() == BO_Mul || BO->getOpcode() == BO_Div)) {
    FactorOp = BO->getOpcode();
    FactorFirst = BO->getRHS()->IgnoreParenImpCasts() == ItemCall;
    if (FactorFirst && FactorOp == BO_Div)
      return std::nullopt;
    Factor = FactorFirst ? BO->getLHS() : BO->getRHS();
    if (!Factor->getType()->isArithmeticType() ||
        Factor->getBeginLoc().isMacroID())
      return std::nullopt;
    std::tie(Term, Parent) = skipCasts(BO);
  }
  const auto *Add = dyn_cast_or_null<CompoundAssignOperator>(Parent);
  if (!Add || Add->getOpcode() != BO_AddAssign || Add->getRHS() != Term)
    return std::nullopt;
  const Stmt *StmtParent = parentOf(Add);
  if (isa_and_nonnull<ExprWithCleanups>(StmtParent))
    StmtParent = parentOf(StmtParent); // temporaries in the statement
  if (!isa_and_nonnull<CompoundStmt>(StmtParent))
    return std::nullopt;
  const auto *LHS = dyn_cast<DeclRefExpr>(Add->getLHS()->IgnoreParens());
  const auto *Total = LHS ? dyn_cast<VarDecl>(LHS->getDecl()) : nullptr;
  if (!Total || !Total->hasLocalStorage() || isa<ParmVarDecl>(Total))
    return std::nullopt;

  // item<T>() of LibTorch; a look-alike may take a value (`item<1>()`),
  // whose argument has no type to read.
  const TemplateArgumentList *ItemArgs = M->getTemplateSpecializationArgs();
  if (ItemArgs->size() < 1 ||
      ItemArgs->get(0).getKind() != TemplateArgument::Type)
    return std::nullopt;
  // The sum on the device must round like the host's: item's type converts
  // to the total's without a narrower intermediate.
  std::optional<DTypeInfo> TotalType = dtypeFor(Total->getType());
  std::optional<DTypeInfo> ItemType = dtypeFor(ItemArgs->get(0).getAsType());
  if (!TotalType || !ItemType || (!TotalType->Floating && ItemType->Floating) ||
      (TotalType->Floating == ItemType->Floating &&
       ItemType->Rank > TotalType->Rank))
    return std::nullopt;
  // A factor must not widen the product: a tensor keeps its dtype when
  // multiplied by a host scalar, the host's arithmetic would not.
  if (Factor && !Factor->getType()->isIntegerType()) {
    std::optional<DTypeInfo> FactorType = dtypeFor(Factor->getType());
    if (!ItemType->Floating || !FactorType || FactorType->Rank > ItemType->Rank)
      return std::nullopt;
  }

  // The loop sits in a block, starts its line, and ends where code can be
  // added after it.
  if (!dyn_cast_or_null<CompoundStmt>(parentOf(Loop)))
    return std::nullopt;
  SourceRange LoopRange = Loop->getSourceRange();
  SourceLocation AfterLoop;
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    AfterLoop = Lexer::findLocationAfterToken(Do->getRParenLoc(), tok::semi, SM,
                                              LangOpts, false);
  else if (isa<CompoundStmt>(loopBody(Loop)))
    AfterLoop = Lexer::getLocForEndOfToken(LoopRange.getEnd(), 0, SM, LangOpts);
  if (AfterLoop.isInvalid() ||
      !SM.isBeforeInTranslationUnit(Total->getLocation(), LoopRange.getBegin()))
    return std::nullopt;
  SourceLocation LoopBegin = LoopRange.getBegin();
  unsigned Col = SM.getSpellingColumnNumber(LoopBegin);
  SourceLocation LineStart = LoopBegin.getLocWithOffset(-(int)(Col - 1));
  llvm::StringRef Indent = Lexer::getSourceText(
      CharSourceRange::getCharRange(LineStart, LoopBegin), SM, LangOpts);
  if (!Indent.trim().empty())
    return std::nullopt;

  // Every other use of the total is outside the loop and a plain read or
  // write: no reference or pointer to it can see the missing updates.
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(Total->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return std::nullopt;
  auto Refs =
      match(findAll(declRefExpr(to(varDecl(equalsNode(Total)))).bind("ref")),
            *Fn->getBody(), Ctx);
  for (const auto &Node : Refs) {
    const auto *Ref = Node.getNodeAs<DeclRefExpr>("ref");
    if (Ref == LHS)
      continue;
    SourceLocation L = Ref->getBeginLoc();
    if (!SM.isBeforeInTranslationUnit(L, LoopRange.getBegin()) &&
        !SM.isBeforeInTranslationUnit(LoopRange.getEnd(), L))
      return std::nullopt; // used inside the loop
    const Stmt *RefParent = parentOf(Ref);
    if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(RefParent);
        Cast && Cast->getCastKind() == CK_LValueToRValue)
      continue;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(RefParent);
        BO && BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == Ref)
      continue;
    return std::nullopt;
  }

  auto text = [&](const Expr *E) {
    return utils::sourceText(E->getSourceRange(), SM, LangOpts);
  };
  const Expr *Object = MC->getImplicitObjectArgument();
  std::string ObjectText = text(Object);
  if (ObjectText.empty())
    return std::nullopt;
  if (!isa<DeclRefExpr, CXXMemberCallExpr, CallExpr, ParenExpr>(
          ignoreWrappers(Object)))
    ObjectText = "(" + ObjectText + ")";
  std::string Ns = utils::torchNamespace(Ctx);
  std::string Value =
      ObjectText + ".detach().to(" + Ns + "::" + ItemType->Name.str() + ")";
  if (Factor) {
    std::string FactorText = text(Factor);
    if (!isa<DeclRefExpr, IntegerLiteral, FloatingLiteral, CallExpr, ParenExpr>(
            Factor->IgnoreImpCasts()))
      FactorText = "(" + FactorText + ")";
    Value = FactorFirst
                ? FactorText + " * " + Value
                : Value + (FactorOp == BO_Mul ? " * " : " / ") + FactorText;
  }

  std::string TotalName = Total->getName().str();
  std::string Acc = TotalName + "_device";
  while (!match(findAll(namedDecl(hasName(Acc))), *Fn->getBody(), Ctx).empty())
    Acc += "_"; // keep clear of names the function already uses
  AccumulateFix Fix;
  Fix.Hints.push_back(FixItHint::CreateInsertion(
      LoopBegin, Ns + "::Tensor " + Acc + ";\n" + Indent.str()));
  Fix.Hints.push_back(FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Add->getSourceRange()),
      Acc + " = " + Acc + ".defined() ? " + Acc + " + " + Value + " : " +
          (ItemType->Name == TotalType->Name
               ? Value
               : "(" + Value + ").to(" + Ns + "::" + TotalType->Name.str() +
                     ")")));
  Fix.Hints.push_back(FixItHint::CreateInsertion(
      AfterLoop, "\n" + Indent.str() + "if (" + Acc + ".defined())\n" +
                     Indent.str() + "  " + TotalName + " += " + Acc + ".item<" +
                     TotalType->CType.str() + ">();"));
  return Fix;
}

/// How a message names the function called at \p Call: 'f', or for a
/// lambda, lambda 'name' when it was stored in a variable.
std::string calleeName(const Expr *Call, const FunctionDecl *FD) {
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  if (!M || !M->getParent()->isLambda())
    return "'" + FD->getNameAsString() + "'";
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call))
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(OC->getArg(0)->IgnoreParenImpCasts()))
      return "lambda '" + Ref->getDecl()->getNameAsString() + "'";
  return "a lambda";
}

} // namespace

void HostSyncInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  if (!Loop || utils::isInLibTorchHeader(Loop->getBeginLoc(), SM) ||
      !isLoop(Loop, Ctx))
    return;
  // Code that never mentions a CUDA device runs on the CPU, where these calls
  // wait for nothing; device-generic code runs where its callers say, unless
  // the project never selects CUDA.
  if (!MentionsCuda) {
    DeviceUseFinder Finder(Ctx, SM);
    Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
    MentionsCuda = Finder.Found;
    DeviceGeneric = Finder.Generic;
  }
  if (!*MentionsCuda && !CheckCpuOnlyCode &&
      (!DeviceGeneric || projectNeverSelectsCuda()))
    return;
  // Loops in template instantiations are analyzed with their real types; a
  // site seen in several instantiations is reported once.
  if (!Analysis)
    Analysis =
        std::make_unique<SyncAnalysis>(Ctx, SM, getLangOpts(), MaxCallDepth);
  WalkResult R = Analysis->walkLoop(Loop);
  if (R.HasTrainingLoop || R.Sites.empty())
    return;
  unsigned LoopLine = SM.getExpansionLineNumber(Loop->getBeginLoc());
  const bool InInstantiation =
      !match(stmt(isInTemplateInstantiation()), *Loop, Ctx).empty();

  for (const Site &S : R.Sites) {
    SourceLocation Loc = S.Where->getExprLoc();
    if (!Reported.insert(Loc.getRawEncoding()).second)
      continue;
    const FoundSync &F = S.Sync;
    utils::recordPayload("torch-host-sync-in-loop", Loc, Loop, /*IsLoop=*/true,
                         Ctx);
    if (F.Through.empty()) {
      auto Diag = diag(Loc, "%0 synchronizes the host with the device per "
                            "iteration of the loop at line %1; %2")
                  << F.What << LoopLine << F.Kind->Hint;
      if (F.Kind == &ItemSync && !InInstantiation)
        if (std::optional<AccumulateFix> Fix =
                accumulateOnDevice(F.Sync, Loop, Ctx, SM, getLangOpts()))
          for (const FixItHint &H : Fix->Hints)
            Diag << H;
      continue;
    }
    std::string Path;
    for (size_t I = 1; I < F.Through.size(); ++I)
      Path += (I == 1 ? " (through '" : ", '") +
              F.Through[I]->getNameAsString() + "'";
    if (!Path.empty())
      Path += ")";
    diag(Loc, "call to %0 synchronizes the host with the device per "
              "iteration of the loop at line %1: %2 at line %3%4; %5")
        << calleeName(S.Where, F.Through.front()) << LoopLine << F.What
        << SM.getExpansionLineNumber(F.Sync->getExprLoc()) << Path
        << F.Kind->Hint;
    diag(F.Sync->getExprLoc(), "%0 synchronizes here", DiagnosticIDs::Note)
        << F.What;
  }
}

} // namespace clang::tidy::torch
