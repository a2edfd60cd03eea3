//===--- HostSyncAnalysis.cpp - libtorch-tidy -----------------------------===//
//
// A host-device synchronization stalls the CPU until the GPU has drained its
// queue; once per iteration of a training loop it also keeps the CPU from
// queueing the next step ahead. For each loop the analysis walks what one
// iteration runs: the loop's condition, increment and body, the bodies of
// functions and lambdas called from it (same translation unit, MaxCallDepth
// calls deep), skipping what runs rarely (a branch under `i % n`, an early
// exit, assert(), nested loops, which are reported at their own loop). An
// outer loop whose body holds a whole training or evaluation loop is an epoch
// loop: what it runs after its inner loop happens once per epoch and is not
// reported.
//
//===----------------------------------------------------------------------===//

#include "HostSyncAnalysis.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/Operators.h"
#include "utils/ParentWalk.h"
#include "utils/TrainingCode.h"
#include "clang-tidy/utils/DeclRefExprUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::hostsync {

using utils::DeviceKind;
using utils::ignoreTemporaries;
using utils::ignoreWrappers;
using utils::isInTorchNamespace;
using utils::isTensorType;
using utils::isTorchFunction;
using utils::tensorMethod;

const SyncKind ItemSync = {
    "'item()'",
    "accumulate on the device and read the value once after the loop"};
const char *const MergeCopiesHint =
    "this iteration already copies a tensor to the CPU: concatenate both on "
    "the device and copy them in one transfer";

namespace {

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
const SyncKind PrintSync = {"printing a tensor",
                            "print it after the loop or every N steps"};
const SyncKind DeviceSync = {
    "%0", "remove it: reading a result synchronizes when it is needed"};
const SyncKind DataPtrSync = {
    "reading 'data_ptr()' of a device tensor on the host",
    "copy the data to the host once after the loop"};
const SyncKind ClipGradSync = {
    "'clip_grad_norm_()'",
    "it reads the total norm back to the host on every call; clip less often "
    "or compute the clip coefficient on the device"};

const SyncKind MaskIndexSync = {
    "boolean-mask indexing",
    "it runs 'nonzero' to size its output, so the host waits for it; keep "
    "the shape fixed ('where' with the mask, or multiply by it) or move it "
    "out of the loop"};
const SyncKind BincountSync = {
    "%0", "its output size depends on the largest value, so the host waits "
          "for it; count into a fixed-size tensor with 'index_add_' or "
          "'scatter_add_', or move it out of the loop"};
const SyncKind RepeatInterleaveSync = {
    "%0", "with a tensor of repeats its output size depends on the data, so "
          "the host waits for it; pass 'output_size' when the total is known, "
          "or move it out of the loop"};
const SyncKind HostIndexCopy = {
    "indexing with a host tensor",
    "an index tensor made on the host is copied to the device at every use; "
    "make it on the device"};

const char *const ControlHint =
    "copy the tensor once with .cpu() before the loop, or keep the "
    "computation on the device";
const char *const LogHint = "log it every N steps";
const char *const OtherItemHint =
    "keep the computation on the device, or read the value once after the "
    "loop";

bool hasQualifiedName(const FunctionDecl *FD, llvm::StringRef Name) {
  return FD && FD->getIdentifier() && FD->getQualifiedNameAsString() == Name;
}

} // namespace

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

namespace {

/// Whether a branch leaves the loop or the function, or ends the program
/// (`std::exit(1)`, `abort()`, any [[noreturn]] call): it runs at most once.
bool isEarlyExit(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return !CS->body_empty() && isEarlyExit(CS->body_back());
  if (const auto *EC = dyn_cast<ExprWithCleanups>(S))
    S = EC->getSubExpr(); // `throw std::runtime_error("...")`
  if (const auto *CE = dyn_cast<CallExpr>(S))
    return CE->getDirectCallee() && CE->getDirectCallee()->isNoReturn();
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

// ---- Error paths: branches that only report a failure ---------------------

/// Whether \p T is a std::basic_ostream or derives from one (a base that
/// depends on a template parameter is not known to be one).
bool isOstreamType(QualType T) {
  return utils::isSameOrDerivedFrom(
      T.getNonReferenceType()->getAsCXXRecordDecl(), "std::basic_ostream");
}

/// `out << value` on a stream: a std::ostream, or any class whose operator<<
/// hands the object back for the next insertion (a logger's record).
bool isInsertion(const CXXOperatorCallExpr *OC) {
  if (OC->getOperator() != OO_LessLess || OC->getNumArgs() != 2)
    return false;
  QualType Out = OC->getArg(0)->getType();
  if (isOstreamType(Out))
    return true;
  const auto *RD = Out.getNonReferenceType()->getAsCXXRecordDecl();
  const FunctionDecl *FD = OC->getDirectCallee();
  if (!RD || !FD)
    return false;
  QualType Result = FD->getReturnType();
  return Result->isReferenceType() &&
         Result.getNonReferenceType()->getAsCXXRecordDecl() == RD;
}

/// The stream at the left end of an `out << a << b` chain, or null.
const Expr *insertionStream(const Expr *E) {
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(ignoreTemporaries(E));
  while (OC && OC->getOperator() == OO_LessLess && OC->getNumArgs() == 2) {
    const Expr *Out = ignoreTemporaries(OC->getArg(0));
    const auto *Inner = dyn_cast<CXXOperatorCallExpr>(Out);
    if (!Inner || Inner->getOperator() != OO_LessLess)
      return isOstreamType(Out->getType()) ? Out : nullptr;
    OC = Inner;
  }
  return nullptr;
}

bool isNamedRef(const Expr *E, std::initializer_list<llvm::StringRef> Names) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(ignoreTemporaries(E));
  if (!Ref || !Ref->getDecl()->getIdentifier())
    return false;
  llvm::StringRef Name = Ref->getDecl()->getName();
  return llvm::any_of(Names, [&](llvm::StringRef N) { return N == Name; });
}

enum class ReportKind { Work, Print, Failure };

/// What one statement of a branch does: reports a failure (writes to
/// stderr, throws, ends the program or leaves), prints, or does work.
ReportKind reportKind(const Stmt *S) {
  if (isa<NullStmt>(S))
    return ReportKind::Print;
  if (isa<ReturnStmt, BreakStmt, ContinueStmt, GotoStmt, CXXThrowExpr>(S))
    return ReportKind::Failure;
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return ReportKind::Work;
  E = ignoreTemporaries(E);
  if (const Expr *Out = insertionStream(E))
    return isNamedRef(Out, {"cerr", "clog"}) ? ReportKind::Failure
                                             : ReportKind::Print;
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return ReportKind::Work;
  if (FD->isNoReturn() || FD->getName() == "perror")
    return ReportKind::Failure;
  if (FD->getName() == "puts" || FD->getName().ends_with("printf"))
    return CE->getNumArgs() && isNamedRef(CE->getArg(0), {"stderr"})
               ? ReportKind::Failure
               : ReportKind::Print;
  return ReportKind::Work;
}

/// Whether every statement of \p S prints or reports a failure; \p Failure
/// tells whether one of them reports a failure.
bool onlyReports(const Stmt *S, bool &Failure) {
  if (!S)
    return false;
  if (const auto *CS = dyn_cast<CompoundStmt>(S))
    return !CS->body_empty() && llvm::all_of(CS->body(), [&](const Stmt *B) {
      return onlyReports(B, Failure);
    });
  ReportKind K = reportKind(S);
  Failure |= K == ReportKind::Failure;
  return K != ReportKind::Work;
}

/// A condition that tests a value (a comparison, a negation, a predicate
/// call), not a plain flag such as `verbose`.
bool isValueTest(const Expr *Cond) {
  return Cond && !isa<DeclRefExpr, MemberExpr>(Cond->IgnoreParenImpCasts());
}

/// The branch of a bounds or validity check that only reports the failure:
/// it prints to stderr, throws or ends the program, or it only prints while
/// the other branch does the normal work.
bool isErrorBranch(const Stmt *Branch, const Stmt *Other, const Expr *Cond) {
  bool Failure = false;
  if (!onlyReports(Branch, Failure) || !isValueTest(Cond))
    return false;
  bool OtherFailure = false;
  return Failure || (Other && !onlyReports(Other, OtherFailure));
}

// ---- Dtype conversions -----------------------------------------------------

/// Options that provably name no device: a ScalarType or TypeMeta,
/// torch::dtype(...), TensorOptions(), and setters other than device() on
/// them. `to()` with such options keeps the tensor where it is.
bool optionsWithoutDevice(const Expr *E, unsigned Depth = 0) {
  E = ignoreWrappers(E);
  if (!E || Depth > 8)
    return false;
  QualType T = E->getType();
  if (utils::isEnumNamed(T, "ScalarType") ||
      utils::isRecordNamed(T, "TypeMeta"))
    return true;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return CE->getNumArgs() == 0 && utils::isRecordNamed(T, "TensorOptions");
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || !M->getIdentifier() || !M->getParent()->getIdentifier() ||
        M->getParent()->getName() != "TensorOptions")
      return false;
    llvm::StringRef Name = M->getName();
    return (Name == "dtype" || Name == "requires_grad" || Name == "layout" ||
            Name == "memory_format" || Name == "pinned_memory") &&
           optionsWithoutDevice(MC->getImplicitObjectArgument(), Depth + 1);
  }
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return isTorchFunction(CE->getDirectCallee(),
                           {"dtype", "requires_grad", "layout"});
  return false;
}

/// `t.to(kHalf)`, `t.to(y.dtype())`, `t.to(torch::dtype(kFloat), true)`: a
/// dtype conversion, which keeps the device.
bool isDtypeOnlyTo(const CXXMemberCallExpr *MC) {
  return MC->getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(MC->getArg(0)) &&
         optionsWithoutDevice(MC->getArg(0));
}

// ---- Implicit syncs: boolean masks, data-dependent sizes --------------------

/// `kBool`, `ScalarType::Bool`, or a variable initialized from one.
bool isBoolDtype(const Expr *E, unsigned Depth = 0) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(ignoreWrappers(E));
  if (!Ref || Depth > 3 || !utils::isEnumNamed(Ref->getType(), "ScalarType"))
    return false;
  if (const auto *EC = dyn_cast<EnumConstantDecl>(Ref->getDecl()))
    return EC->getName() == "Bool";
  const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
  return VD && VD->getType().isConstQualified() && VD->getInit() &&
         isBoolDtype(VD->getInit(), Depth + 1);
}

/// Whether some expression inside \p S names the bool dtype.
bool mentionsBoolDtype(const Stmt *S) {
  if (!S)
    return false;
  if (const auto *E = dyn_cast<Expr>(S); E && isBoolDtype(E))
    return true;
  return llvm::any_of(S->children(),
                      [](const Stmt *C) { return mentionsBoolDtype(C); });
}

bool isPredicateName(llvm::StringRef Name) {
  return llvm::is_contained({"gt",         "lt",          "ge",
                             "le",         "eq",          "ne",
                             "greater",    "less",        "greater_equal",
                             "less_equal", "not_equal",   "logical_and",
                             "logical_or", "logical_not", "logical_xor",
                             "isnan",      "isinf",       "isfinite",
                             "isposinf",   "isneginf",    "signbit"},
                            Name);
}


/// Whether the tensor \p E provably holds bools: a comparison or logical op,
/// a conversion to kBool, a factory given kBool, or a local variable that
/// keeps such a value.
bool isBoolTensor(const Expr *E, ASTContext &Ctx, unsigned Depth = 0) {
  E = ignoreWrappers(E);
  if (!E || Depth > 4 || !isTensorType(E->getType()))
    return false;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    return VD && VD->isLocalVarDecl() && VD->getInit() &&
           utils::isNeverReassigned(VD, Ctx) &&
           isBoolTensor(VD->getInit(), Ctx, Depth + 1);
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (utils::isComparisonOperator(OC->getOperator()))
      return true;
    if (!utils::isBitwiseOrLogicalOperator(OC->getOperator()))
      return false;
    return llvm::all_of(OC->arguments(), [&](const Expr *A) {
      return !isTensorType(ignoreWrappers(A)->getType()) ||
             isBoolTensor(A, Ctx, Depth + 1);
    });
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  if (tensorMethod(E) || utils::isInTorchNamespace(FD)) {
    if (isPredicateName(Name))
      return true;
    if (Name == "to" || Name == "toType" || utils::isTensorFactory(FD))
      return llvm::any_of(CE->arguments(),
                          [](const Expr *A) { return mentionsBoolDtype(A); });
  }
  return false;
}

/// The tensors among the indices of `t.index({...})`, `t[i]`,
/// `t.index_select(d, i)` and `torch::index_select(t, d, i)`; \p Self is set
/// to the indexed tensor. Empty for any other call.
llvm::SmallVector<const Expr *, 2> indexTensors(const Expr *E,
                                                const Expr *&Self) {
  llvm::SmallVector<const Expr *, 2> Indices;
  auto AddIfTensor = [&](const Expr *I) {
    if (isTensorType(ignoreWrappers(I)->getType()))
      Indices.push_back(I);
  };
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->getOperator() == OO_Subscript && OC->getNumArgs() == 2 &&
        isTensorType(OC->getArg(0)->getType())) {
      Self = OC->getArg(0);
      AddIfTensor(OC->getArg(1));
    }
    return Indices;
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (const CXXMethodDecl *M = tensorMethod(E)) {
    Self = cast<CXXMemberCallExpr>(E)->getImplicitObjectArgument();
    if (M->getName() == "index_select" && CE->getNumArgs() == 2)
      AddIfTensor(CE->getArg(1));
    if (M->getName() != "index" || CE->getNumArgs() != 1)
      return Indices;
    const auto *List =
        dyn_cast<CXXStdInitializerListExpr>(ignoreTemporaries(CE->getArg(0)));
    const auto *Init =
        List ? dyn_cast<InitListExpr>(ignoreTemporaries(List->getSubExpr()))
             : nullptr;
    if (Init)
      for (const Expr *I : Init->inits())
        AddIfTensor(I);
    return Indices;
  }
  if (isTorchFunction(FD, {"index_select"}) && CE->getNumArgs() == 3) {
    Self = CE->getArg(0);
    AddIfTensor(CE->getArg(2));
  }
  return Indices;
}

/// A module's forward pass: `m->forward(x)`, `m(x)` on a module holder or
/// a module object.
bool isForwardPass(const Expr *E) {
  auto IsModule = [](const CXXRecordDecl *RD) {
    return RD && (utils::isSameOrDerivedFrom(RD, "torch::nn::Module") ||
                  utils::isSameOrDerivedFrom(RD, "torch::nn::ModuleHolder"));
  };
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    return M && M->getIdentifier() && M->getName() == "forward" &&
           IsModule(M->getParent());
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Call && Op->getNumArgs() > 0)
      return IsModule(
          Op->getArg(0)->getType()->getAsCXXRecordDecl());
  return false;
}

/// Device work a later sync waits for: a forward pass, or a training step's
/// backward() or optimizer step(); in a template, a call of forward,
/// backward or step on an object of a dependent type.
enum class StepWork { None, Forward, Train };

StepWork stepWorkOf(const Expr *E) {
  if (isForwardPass(E))
    return StepWork::Forward;
  const auto *CE = dyn_cast<CallExpr>(E);
  if (!CE)
    return StepWork::None;
  llvm::StringRef Dependent = dependentMemberName(CE);
  if (!Dependent.empty())
    return Dependent == "forward"                           ? StepWork::Forward
           : Dependent == "backward" || Dependent == "step" ? StepWork::Train
                                                            : StepWork::None;
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return StepWork::None;
  if (FD->getName() == "backward")
    return utils::isInTorchNamespace(FD) || tensorMethod(E) ? StepWork::Train
                                                            : StepWork::None;
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  return M && FD->getName() == "step" &&
                 utils::isSameOrDerivedFrom(M->getParent(),
                                            "torch::optim::Optimizer")
             ? StepWork::Train
             : StepWork::None;
}

/// A sync found at \p E, its message naming \p Name where the kind has %0.
FoundSync makeFound(const Expr *E, const SyncKind &Kind,
                    llvm::StringRef Name = "") {
  FoundSync F;
  F.Sync = E;
  F.Kind = &Kind;
  F.What = Kind.What;
  if (F.What == "%0")
    F.What = ("'" + Name + "()'").str();
  return F;
}

} // namespace

/// The advice that fits how the synced value is used: an accumulation is
/// kept on the device, an index or a condition comes from a host copy made
/// once, a logged value is logged less often.
/// A copy to the CPU whose one element is read (`data_ptr<T>()[0]`) is
/// advised as item() is.
const char *hintFor(const FoundSync &F) {
  bool ReadsValue = F.Kind == &ItemSync || F.Kind == &CpuCopySync;
  if (!ReadsValue)
    return F.Kind->Hint;
  switch (F.Use) {
  case UseKind::Accumulate:
    return ItemSync.Hint;
  case UseKind::Control:
  case UseKind::Exit:
    return ControlHint;
  case UseKind::Log:
    return LogHint;
  default:
    return F.Kind == &ItemSync ? OtherItemHint : F.Kind->Hint;
  }
}

namespace {

/// A sync the program needs, or one that waits for nothing more: its value
/// decides leaving the loop, or it reads results after the iteration's
/// deliberate timing synchronize.
bool isNeededSync(const Site &S, const WalkResult &R, const SourceManager &SM) {
  return S.Sync.Use == UseKind::Exit ||
         (R.TimingSync.isValid() &&
          SM.isBeforeInTranslationUnit(R.TimingSync, S.Where->getExprLoc()));
}

/// A copy to the CPU whose data host code then reads, or a value read back
/// for host-only code (a token id looked up in a vocabulary).
bool isHostOnlyCopy(const Site &S) {
  return (S.Sync.Kind == &CpuCopySync || S.Sync.Kind == &ItemSync) &&
         S.Sync.Use == UseKind::HostOnly && !S.Sync.FirstCopy;
}

} // namespace

/// Whether the walked code runs device work between \p First and \p Second,
/// whose waits then differ by that work.
static bool workBetween(const WalkResult &R, SourceLocation First,
                        SourceLocation Second, const SourceManager &SM) {
  if (SM.isBeforeInTranslationUnit(Second, First))
    std::swap(First, Second);
  return llvm::any_of(R.Work, [&](SourceLocation W) {
    return SM.isBeforeInTranslationUnit(First, W) &&
           SM.isBeforeInTranslationUnit(W, Second);
  });
}

/// A sync that only waits for what is queued and reads a result (item(), a
/// copy, a print, a synchronize); one that computes on the device first and
/// sizes further work by it (nonzero, a mask index, a norm) makes a round
/// trip of device work of its own.
static bool onlyReadsResults(const SyncKind *K) {
  return K == &ItemSync || K == &CpuCopySync || K == &BoolSync ||
         K == &PrintSync || K == &DeviceSync || K == &DataPtrSync;
}

/// The sync that drains the device's queue in every run of the walked code
/// and that the program needs: a copy whose data host code reads, or a
/// value deciding leaving the loop, made here (not in a called function,
/// whose branches are not seen) and outside every branch.
static const Site *neededDrain(const WalkResult &R) {
  for (const Site &S : R.Sites)
    if (S.Always && S.Sync.Through.empty() &&
        (isHostOnlyCopy(S) || S.Sync.Use == UseKind::Exit))
      return &S;
  return nullptr;
}

/// What of an iteration's syncs is worth reporting: not the syncs the
/// program needs, nor its first copy whose data host code reads; a later
/// copy is reported with the first when device work runs between them
/// (otherwise it waits only for the few ops since the first). Where a
/// needed sync drains the queue in every iteration of a loop that runs a
/// forward pass and trains nothing (an evaluation), a sync with no such
/// work between the two waits only for a few ops more, next to the pass,
/// when it only reads a result. In a training step each extra round trip
/// stalls the step before its backward(), and in a loop of small ops (a
/// hand-written NMS) it is the iteration's cost: both stay reported.
Findings findingsOf(const WalkResult &R, const SourceManager &SM) {
  Findings F;
  const Site *Drain = R.Work.empty() || R.Trains ? nullptr : neededDrain(R);
  for (const Site &S : R.Sites) {
    if (isNeededSync(S, R, SM))
      continue;
    if (Drain && &S != Drain && onlyReadsResults(S.Sync.Kind) &&
        !workBetween(R, Drain->Where->getEndLoc(), S.Where->getEndLoc(), SM))
      continue;
    // A later copy to the CPU (one element logged, say) waits, like a second
    // host copy, only for the work since the first.
    bool AfterFirstCopy = F.HostCopy && S.Sync.Kind == &CpuCopySync;
    if (!isHostOnlyCopy(S) && !AfterFirstCopy) {
      F.Reported.push_back({&S, S.Sync.FirstCopy});
      continue;
    }
    if (!F.HostCopy) {
      F.HostCopy = &S;
      continue;
    }
    if (workBetween(R, F.HostCopy->Where->getEndLoc(), S.Where->getEndLoc(),
                    SM))
      F.Reported.push_back({&S, F.HostCopy->Sync.Sync});
  }
  return F;
}

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
    walkIf(If, R, Depth);
    return;
  }
  if (walkedConditional(S, R, Depth))
    return;
  if (const auto *E = dyn_cast<Expr>(S)) {
    if (StepWork W = stepWorkOf(E); W != StepWork::None) {
      R.Work.push_back(E->getBeginLoc());
      R.Trains |= W == StepWork::Train;
    }
    if (std::optional<FoundSync> Found = classify(E))
      addSite(E, *Found, R);
    else if (const auto *CE = dyn_cast<CallExpr>(E))
      walkCall(CE, R, Depth);
  }
  for (const Stmt *Child : S->children())
    walk(Child, R, Depth);
}

/// A call that is no sync itself: the syncs of the user function it calls,
/// and the lambdas it hands to a standard algorithm, which run for every
/// element.
void SyncAnalysis::walkCall(const CallExpr *CE, WalkResult &R,
                            unsigned Depth) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return;
  if (Depth < MaxCallDepth && isUserFunction(FD, SM) &&
      !isInAssert(CE->getExprLoc(), SM, LangOpts)) {
    const Summary &Sum = summarize(FD, Depth + 1);
    if (Sum.First) {
      FoundSync Chained = *Sum.First;
      Chained.Through.insert(Chained.Through.begin(), FD);
      if (Chained.Use == UseKind::Returned)
        Chained.Use = useOfSync(CE);
      R.Sites.push_back({CE, Chained, R.Branches == 0});
    }
    if (Sum.RunsWork)
      R.Work.push_back(CE->getBeginLoc());
    R.Trains |= Sum.Trains;
    R.HasTrainingLoop |= Sum.HasTrainingLoop;
  }
  if (!FD->isInStdNamespace())
    return;
  for (const Expr *Arg : CE->arguments())
    if (const auto *L = dyn_cast<LambdaExpr>(ignoreWrappers(Arg)))
      walk(L->getBody(), R, Depth);
}

/// An if statement: its condition, and the branches that run per iteration.
/// A condition whose branch leaves the loop decides leaving it (the program
/// needs that value); a branch that only reports a failed check is no
/// per-iteration work. Conditions inside macros (TORCH_CHECK) are the
/// library's checks and stay walked.
void SyncAnalysis::walkIf(const IfStmt *If, WalkResult &R, unsigned Depth) {
  const Stmt *Then = If->getThen();
  const Stmt *Else = If->getElse();
  const Expr *Cond = If->getCond();
  bool ThenExits = isEarlyExit(Then);
  bool ElseExits = isEarlyExit(Else);
  walk(If->getInit(), R, Depth);
  walk(If->getConditionVariableDeclStmt(), R, Depth);
  if (!(ThenExits || ElseExits) || If->getBeginLoc().isMacroID())
    walk(Cond, R, Depth);
  // A branch dead under a constant flag (`bool verbose = false;`) never
  // runs.
  std::optional<bool> Constant = Devices.constantCondition(Cond);
  if (!hasRemainder(Cond) && !ThenExits && Constant != false &&
      !isErrorBranch(Then, Else, Cond))
    walkBranch(Then, R, Depth);
  if (!ElseExits && Constant != true && !isErrorBranch(Else, Then, Cond))
    walkBranch(Else, R, Depth);
}

void SyncAnalysis::walkBranch(const Stmt *S, WalkResult &R, unsigned Depth) {
  ++R.Branches;
  walk(S, R, Depth);
  --R.Branches;
}

/// A switch, `c ? a : b`, `a && b` or `a || b`: what runs only under a
/// condition is walked as a branch. False for any other statement.
bool SyncAnalysis::walkedConditional(const Stmt *S, WalkResult &R,
                                     unsigned Depth) {
  if (const auto *Switch = dyn_cast<SwitchStmt>(S)) {
    walk(Switch->getInit(), R, Depth);
    walk(Switch->getCond(), R, Depth);
    walkBranch(Switch->getBody(), R, Depth);
    return true;
  }
  if (const auto *CO = dyn_cast<ConditionalOperator>(S)) {
    walk(CO->getCond(), R, Depth);
    walkBranch(CO->getTrueExpr(), R, Depth);
    walkBranch(CO->getFalseExpr(), R, Depth);
    return true;
  }
  const auto *BO = dyn_cast<BinaryOperator>(S);
  if (!BO || !BO->isLogicalOp())
    return false;
  walk(BO->getLHS(), R, Depth);
  walkBranch(BO->getRHS(), R, Depth);
  return true;
}

/// Records a sync found in the walked code, with how its value is used; a
/// deliberate timing sync is remembered instead.
void SyncAnalysis::addSite(const Expr *E, FoundSync Found, WalkResult &R) {
  if (isInAssert(E->getExprLoc(), SM, LangOpts))
    return;
  if (isTimingSync(E)) {
    if (R.TimingSync.isInvalid() ||
        SM.isBeforeInTranslationUnit(E->getExprLoc(), R.TimingSync))
      R.TimingSync = E->getExprLoc();
    return;
  }
  Found.Use = useOfSync(E);
  if ((Found.Kind == &DataDependentSync || Found.Kind == &MaskIndexSync) &&
      countDecidesExit(E))
    Found.Use = UseKind::Exit;
  // At the sync itself: a call a template leaves unresolved is reported at
  // its member name.
  R.Sites.push_back({Found.Sync, Found, R.Branches == 0});
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
    Findings F = findingsOf(R, SM);
    if (!F.Reported.empty()) {
      Sum.First = F.Reported.front().S->Sync;
      Sum.First->FirstCopy = F.Reported.front().FirstCopy;
    } else if (F.HostCopy) {
      Sum.First = F.HostCopy->Sync; // counts with the caller's own copies
    }
    Sum.HasTrainingLoop = R.HasTrainingLoop;
    Sum.RunsWork = !R.Work.empty();
    Sum.Trains = R.Trains;
  }
  return Summaries[Key] = Sum;
}

/// A loop that runs a training or evaluation step: it calls backward(), an
/// optimizer's step() or a module's forward(), or iterates a data loader.
/// In a module's own methods a loop of forwards goes over layers or time
/// steps: there only backward() or a step counts.
bool SyncAnalysis::isTrainingLoop(const Stmt *Loop) {
  if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop)) {
    QualType RangeType = RF->getRangeInit()->getType();
    if (const auto *RD = RangeType.getNonReferenceType()->getAsCXXRecordDecl())
      if (RD->getName().contains("DataLoader"))
        return true;
  }
  bool ForwardCounts =
      !utils::runsWithinAStep(utils::enclosingFunction(Loop, Ctx));
  return containsTrainingStep(loopBody(Loop), /*CallBudget=*/1,
                              ForwardCounts);
}

bool SyncAnalysis::containsTrainingStep(const Stmt *S, unsigned CallBudget,
                                        bool ForwardCounts) {
  if (!S || isa<LambdaExpr>(S))
    return false;
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    // In a template: `model->forward(x)`, `optimizer.step()` on objects of
    // a dependent type.
    llvm::StringRef Dependent = dependentMemberName(CE);
    if (Dependent == "backward" || Dependent == "step" ||
        (ForwardCounts && Dependent == "forward"))
      return true;
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD && FD->getIdentifier()) {
      llvm::StringRef Name = FD->getName();
      if (Name == "backward" || Name == "step" ||
          (ForwardCounts && Name == "forward"))
        return true;
      if (CallBudget > 0 && isUserFunction(FD, SM) &&
          containsTrainingStep(FD->getDefinition()->getBody(), CallBudget - 1,
                               ForwardCounts))
        return true;
    }
    // model(x) through ModuleHolder::operator().
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
        ForwardCounts && OC && OC->getOperator() == OO_Call && FD &&
        FD->getQualifiedNameAsString().find("ModuleHolder") !=
            std::string::npos)
      return true;
  }
  for (const Stmt *Child : S->children())
    if (containsTrainingStep(Child, CallBudget, ForwardCounts))
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

namespace {

/// The arguments of a construction the code writes, without defaulted ones
/// (`std::vector<int64_t>{id}` passes its allocator by default).
unsigned explicitArgs(const CXXConstructExpr *CE) {
  return llvm::count_if(CE->arguments(), [](const Expr *Arg) {
    return !isa<CXXDefaultArgExpr>(Arg);
  });
}

/// The one parent of \p S; of an element of a braced list, the list's
/// semantic form (its syntactic form is a second parent).
std::optional<DynTypedNode> onlyParent(const Stmt &S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(S);
  if (Parents.size() == 1)
    return Parents[0];
  // An element the semantic form converts (`{b, row}` making TensorIndex
  // objects): the conversion, not the syntactic list.
  if (Parents.size() == 2)
    for (unsigned I = 0; I < 2; ++I)
      if (Parents[1 - I].get<InitListExpr>() && !Parents[I].get<InitListExpr>())
        return Parents[I];
  for (const DynTypedNode &P : Parents)
    if (const auto *List = P.get<InitListExpr>();
        List && List->isSemanticForm())
      return P;
  return std::nullopt;
}

/// How many stores (local variables, host containers) a synced value is
/// followed through.
constexpr unsigned MaxStores = 3;

/// A local variable holding a host container (not a tensor): the values a
/// loop stores in it stay on the host.
const VarDecl *localContainer(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(ignoreWrappers(E));
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->isLocalVarDecl())
    return nullptr;
  QualType T = VD->getType().getNonReferenceType();
  return T->isRecordType() && !isTensorType(T) ? VD : nullptr;
}

/// The container of `ids[i]` on the left of `ids[i] = v`.
const VarDecl *containerOfSubscript(const Expr *LHS) {
  const auto *OC = dyn_cast<CXXOperatorCallExpr>(LHS->IgnoreParenImpCasts());
  if (!OC || OC->getOperator() != OO_Subscript || OC->getNumArgs() != 2)
    return nullptr;
  return localContainer(OC->getArg(0));
}

/// The left side of the assignment whose right side is \p E (through
/// implicit conversions and temporaries), or null.
const Expr *assignedBy(const Expr *E, ASTContext &Ctx) {
  const Stmt *Cur = E;
  for (unsigned Step = 0; Step < 8; ++Step) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    const Stmt *Parent = Parents.size() == 1 ? Parents[0].get<Stmt>() : nullptr;
    if (!Parent)
      return nullptr;
    if (const auto *BO = dyn_cast<BinaryOperator>(Parent))
      return BO->getOpcode() == BO_Assign && BO->getRHS() == Cur ? BO->getLHS()
                                                                 : nullptr;
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Parent))
      return OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
                     OC->getArg(1) == Cur
                 ? OC->getArg(0)
                 : nullptr;
    const auto *Construct = dyn_cast<CXXConstructExpr>(Parent);
    if (!isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
             CXXBindTemporaryExpr, ExprWithCleanups>(Parent) &&
        !(Construct && explicitArgs(Construct) == 1))
      return nullptr;
    Cur = Parent;
  }
  return nullptr;
}

/// The variable or member an assignment's left side names.
const ValueDecl *assignedDecl(const Expr *LHS) {
  LHS = LHS->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(LHS))
    return Ref->getDecl();
  if (const auto *ME = dyn_cast<MemberExpr>(LHS))
    return ME->getMemberDecl();
  return nullptr;
}

/// The innermost loop around \p S in its function.
const Stmt *enclosingLoop(const Stmt *S, ASTContext &Ctx) {
  if (!S)
    return nullptr;
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Step = 0; Step < 256; ++Step) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.size() != 1 || Parents[0].get<FunctionDecl>() ||
        Parents[0].get<LambdaExpr>())
      return nullptr;
    Cur = Parents[0];
    if (const auto *P = Cur.get<Stmt>(); P && isLoop(P, Ctx))
      return P;
  }
  return nullptr;
}

bool isHostReadMethod(llvm::StringRef Name) {
  // Not item(): `t.cpu().item()` is the same sync as `t.item()`.
  return Name == "data_ptr" || Name == "const_data_ptr" ||
         Name == "mutable_data_ptr" || Name == "accessor" ||
         Name.starts_with("packed_accessor");
}

/// The use of an operand of a built-in operator; std::nullopt where the
/// value flows on (arithmetic, comparisons, logic).
std::optional<UseKind> useInOperator(const Stmt *Parent, const Stmt *Cur) {
  if (const auto *UO = dyn_cast<UnaryOperator>(Parent))
    return UO->isArithmeticOp() ? std::nullopt : std::optional(UseKind::Other);
  if (const auto *CA = dyn_cast<CompoundAssignOperator>(Parent))
    return CA->getRHS() == Cur && (CA->getOpcode() == BO_AddAssign ||
                                   CA->getOpcode() == BO_SubAssign)
               ? UseKind::Accumulate
               : UseKind::Other;
  const auto *BO = cast<BinaryOperator>(Parent);
  return BO->isAdditiveOp() || BO->isMultiplicativeOp() ||
                 BO->isComparisonOp() || BO->isLogicalOp()
             ? std::nullopt
             : std::optional(UseKind::Other);
}

/// The use of a statement's condition: leaving the loop decides an exit,
/// anything else is control. A body or branch that is a single expression
/// uses nothing.
UseKind useAsCondition(const Stmt *Parent, const Stmt *Cur) {
  if (const auto *If = dyn_cast<IfStmt>(Parent)) {
    if (If->getCond() != Cur)
      return UseKind::Other;
    return (isEarlyExit(If->getThen()) || isEarlyExit(If->getElse())) &&
                   !If->getBeginLoc().isMacroID()
               ? UseKind::Exit
               : UseKind::Control;
  }
  if (const auto *W = dyn_cast<WhileStmt>(Parent))
    return W->getCond() == Cur ? UseKind::Exit : UseKind::Other;
  if (const auto *D = dyn_cast<DoStmt>(Parent))
    return D->getCond() == Cur ? UseKind::Exit : UseKind::Other;
  if (const auto *F = dyn_cast<ForStmt>(Parent))
    return F->getCond() == Cur ? UseKind::Control : UseKind::Other;
  return cast<SwitchStmt>(Parent)->getCond() == Cur ? UseKind::Control
                                                     : UseKind::Other;
}

/// The use of the object of a member call: a host read of a host copy, or a
/// tensor method whose result carries the value on.
std::optional<UseKind> useAsObject(const MemberExpr *ME) {
  const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
  if (!M || !M->getIdentifier())
    return UseKind::Other;
  // `t.item().toInt()`: a c10::Scalar converted to a number.
  if (M->getParent()->getIdentifier() && M->getParent()->getName() == "Scalar")
    return M->getName().starts_with("to") ? std::nullopt
                                          : std::optional(UseKind::Other);
  if (!utils::isTensorRecord(M->getParent()))
    return UseKind::Other;
  // `copy.data_ptr<float>()[0]`: one element read flows on (useIn).
  if (M->getName().ends_with("data_ptr"))
    return std::nullopt;
  if (isHostReadMethod(M->getName()))
    return UseKind::HostOnly;
  // `copy[0].item<int64_t>()`: the number read from a host copy is the
  // copy's data; where it goes decides.
  if (M->getName() == "item")
    return std::nullopt;
  return isTensorType(M->getReturnType()) ? std::nullopt
                                          : std::optional(UseKind::Other);
}

/// `copy[i].item<int>()`: one element of a tensor read as a number, as
/// `copy.data_ptr<int>()[i]` reads it; null for anything else.
const Expr *elementRead(const Stmt *Parent, const Stmt *Cur, ASTContext &Ctx) {
  const auto *ME = dyn_cast<MemberExpr>(Parent);
  const auto *M = ME ? dyn_cast<CXXMethodDecl>(ME->getMemberDecl()) : nullptr;
  if (!M || !M->getIdentifier() || M->getName() != "item")
    return nullptr;
  const auto *Index =
      dyn_cast<CXXOperatorCallExpr>(cast<Expr>(Cur)->IgnoreImplicitAsWritten());
  if (!Index || Index->getOperator() != OO_Subscript)
    return nullptr;
  std::optional<DynTypedNode> Call = onlyParent(*ME, Ctx);
  return Call ? Call->get<CXXMemberCallExpr>() : nullptr;
}

/// The use of an argument of an overloaded operator: a stream insertion
/// logs a value and writes a tensor out, a subscript indexes, `+=` sums.
std::optional<UseKind> useInOperatorCall(const CXXOperatorCallExpr *OC,
                                         const Stmt *Cur) {
  bool IsFirst = OC->getNumArgs() > 0 && OC->getArg(0) == Cur;
  // Arithmetic and comparisons compute a new value: its use decides.
  if (utils::isArithmeticOperator(OC->getOperator()) ||
      utils::isComparisonOperator(OC->getOperator()))
    return std::nullopt;
  switch (OC->getOperator()) {
  case OO_LessLess:
    if (IsFirst || !isInsertion(OC))
      return UseKind::Other;
    return isTensorType(OC->getArg(1)->getType()) ? UseKind::HostOnly
                                                  : UseKind::Log;
  case OO_Subscript:
    return IsFirst ? std::nullopt : std::optional(UseKind::Control);
  case OO_PlusEqual:
  case OO_MinusEqual:
    return IsFirst ? UseKind::Other : UseKind::Accumulate;
  default:
    return UseKind::Other;
  }
}

/// The use of an argument of a call: formatting logs it, an integer handed
/// to LibTorch is an index, a size or a bound.
UseKind useAsArgument(const CallExpr *CE, const Stmt *Cur) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return UseKind::Other;
  std::string Qualified = FD->getQualifiedNameAsString();
  if (FD->isVariadic() || Qualified == "std::to_string" ||
      llvm::StringRef(Qualified).starts_with("fmt::"))
    return UseKind::Log;
  const auto *Arg = dyn_cast<Expr>(Cur);
  if (Arg && Arg->getType()->isIntegerType() &&
      (tensorMethod(CE) || utils::isInTorchNamespace(FD)))
    return UseKind::Control;
  return UseKind::Other;
}

/// A function of the host's own: neither LibTorch's nor one that formats its
/// arguments for a log.
bool isHostFunction(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || tensorMethod(CE) || isInTorchNamespace(FD) || FD->isVariadic())
    return false;
  std::string Qualified = FD->getQualifiedNameAsString();
  return Qualified != "std::to_string" &&
         !llvm::StringRef(Qualified).starts_with("fmt::");
}

/// Data only the host can use: a string, a record, a pointer; not a number,
/// a tensor or a c10::Scalar.
bool isHostDataType(QualType T) {
  T = T.getNonReferenceType();
  if (T->isDependentType() || isTensorType(T) ||
      utils::isRecordNamed(T, "Scalar"))
    return false;
  return T->isRecordType() || T->isPointerType();
}

/// A call that finds host data by the value: the project's own function
/// returning host data, or a container's subscript or at(). Not the standard
/// library's helpers (std::make_pair(step, loss) only keeps the value).
bool isLookup(const CallExpr *CE) {
  if (!isHostDataType(CE->getType()))
    return false;
  if (isa<CXXOperatorCallExpr>(CE))
    return true; // a subscript
  const FunctionDecl *FD = CE->getDirectCallee();
  return !FD->isInStdNamespace() ||
         (FD->getIdentifier() && FD->getName() == "at");
}

/// Whether a host copy's data pointer \p Cur goes on to \p Parent as one
/// element read (`p[0]`, `*p`) or unchanged (a cast); anything else reads
/// the copy on the host.
bool pointerFlowsTo(const Stmt *Parent, const Stmt *Cur) {
  if (isa<ImplicitCastExpr, ParenExpr>(Parent))
    return true;
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Parent))
    return AS->getBase() == Cur;
  const auto *UO = dyn_cast<UnaryOperator>(Parent);
  return UO && UO->getOpcode() == UO_Deref;
}

/// How \p Parent uses its child \p Cur, or std::nullopt when the value
/// flows on through it (casts, arithmetic, comparisons, tensor views).
std::optional<UseKind> useIn(const Stmt *Parent, const Stmt *Cur) {
  if (isa<ImplicitCastExpr, ParenExpr, ExplicitCastExpr,
          MaterializeTemporaryExpr, CXXBindTemporaryExpr, ExprWithCleanups,
          InitListExpr, CXXStdInitializerListExpr>(Parent))
    return std::nullopt;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Parent)) {
    // `t.index({b, row, col})`: an integer made a tensor index is an index.
    if (utils::isRecordNamed(CE->getType(), "TensorIndex"))
      return UseKind::Control;
    return explicitArgs(CE) == 1 ? std::nullopt : std::optional(UseKind::Other);
  }
  if (isa<UnaryOperator, BinaryOperator>(Parent))
    return useInOperator(Parent, Cur);
  if (const auto *CO = dyn_cast<ConditionalOperator>(Parent))
    return CO->getCond() == Cur ? std::optional(UseKind::Control)
                                : std::nullopt;
  if (isa<IfStmt, WhileStmt, DoStmt, ForStmt, SwitchStmt>(Parent))
    return useAsCondition(Parent, Cur);
  if (const auto *AS = dyn_cast<ArraySubscriptExpr>(Parent))
    return AS->getIdx() == Cur ? UseKind::Control : UseKind::Other;
  if (isa<ReturnStmt>(Parent))
    return UseKind::Returned;
  if (const auto *ME = dyn_cast<MemberExpr>(Parent))
    return useAsObject(ME);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Parent))
    return useInOperatorCall(OC, Cur);
  if (const auto *CE = dyn_cast<CallExpr>(Parent))
    return CE->getCallee() == Cur ? std::nullopt
                                  : std::optional(useAsArgument(CE, Cur));
  return UseKind::Other;
}

} // namespace

/// How the value a sync brings to the host is used.
UseKind SyncAnalysis::useOfSync(const Expr *E) {
  UseRoot = E;
  UseLoop = enclosingLoop(E, Ctx);
  return useOf(E, 0);
}

/// How the value of \p E is used, followed through casts, arithmetic,
/// host functions of it and up to two local variables it is stored in.
UseKind SyncAnalysis::useOf(const Expr *E, unsigned Depth) {
  const Stmt *Cur = E;
  for (unsigned Step = 0; Step < 32; ++Step) {
    std::optional<DynTypedNode> Node = onlyParent(*Cur, Ctx);
    if (!Node)
      return UseKind::Other;
    if (const auto *Ptr = dyn_cast<Expr>(Cur);
        Ptr && Ptr->getType()->isPointerType()) {
      const auto *Parent = dyn_cast_or_null<Expr>(Node->get<Stmt>());
      if (!Parent || !pointerFlowsTo(Parent, Cur))
        return UseKind::HostOnly;
      if (Parent->getType()->isPointerType()) {
        Cur = Parent;
        continue;
      }
      return useOfElement(Parent, Depth);
    }
    if (const auto *VD = Node->get<VarDecl>())
      return Depth < MaxStores ? useOfVariable(VD, Depth + 1)
                               : UseKind::Other;
    const Stmt *Parent = Node->get<Stmt>();
    if (!Parent)
      return UseKind::Other;
    if (std::optional<UseKind> Use = useInStatement(Parent, Cur, Depth))
      return *Use;
    Cur = Parent;
  }
  return UseKind::Other;
}

/// One element read from a host copy's data: printed or summed, it is a
/// value the loop could leave on the device, as item()'s; otherwise the
/// host reads its copy.
UseKind SyncAnalysis::useOfElement(const Expr *Element, unsigned Depth) {
  UseKind Use = useOf(Element, Depth);
  return Use == UseKind::Log || Use == UseKind::Accumulate ? Use
                                                           : UseKind::HostOnly;
}

/// useIn(), and the uses it cannot tell from the two nodes alone: stores,
/// host functions of the value, and a `for` condition that tests a value
/// the body read (`for (...; tok != eos; ...) { tok = ...item...; }`),
/// which decides leaving the loop.
std::optional<UseKind> SyncAnalysis::useInStatement(const Stmt *Parent,
                                                    const Stmt *Cur,
                                                    unsigned Depth) {
  if (std::optional<UseKind> Use = useInAssignment(Parent, Cur, Depth))
    return Use;
  if (const VarDecl *Container = containerStoredInto(Parent, Cur))
    return useOfContainer(Container, Depth + 1);
  if (const Expr *Element = elementRead(Parent, Cur, Ctx))
    return useOfElement(Element, Depth);
  if (const auto *CE = dyn_cast<CallExpr>(Parent))
    if (std::optional<UseKind> Use = useInHostCall(CE, Cur, Depth))
      return Use;
  if (const auto *F = dyn_cast<ForStmt>(Parent);
      F && F->getCond() == Cur && Depth > 0 && isInside(UseRoot, F->getBody()))
    return UseKind::Exit;
  return useIn(Parent, Cur);
}

/// `v = x.item<float>();` (also a host record's operator=, as of a string):
/// the uses of v; `total = total + v`: a sum. std::nullopt for anything but
/// such an assignment (a tensor assigned a value computed from it uses it as
/// before).
std::optional<UseKind> SyncAnalysis::useInAssignment(const Stmt *Parent,
                                                     const Stmt *Cur,
                                                     unsigned Depth) {
  const Expr *LHS = nullptr;
  const Expr *RHS = nullptr;
  if (const auto *BO = dyn_cast<BinaryOperator>(Parent);
      BO && BO->getOpcode() == BO_Assign) {
    LHS = BO->getLHS();
    RHS = BO->getRHS();
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Parent);
             OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
             OC->getArg(1) == Cur && !isTensorType(OC->getType())) {
    LHS = OC->getArg(0);
    RHS = OC->getArg(1);
  } else {
    return std::nullopt;
  }
  const auto *Ref = dyn_cast<DeclRefExpr>(LHS->IgnoreParens());
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (RHS != Cur)
    return UseKind::Other;
  if (const VarDecl *Container = containerOfSubscript(LHS))
    return useOfContainer(Container, Depth + 1);
  if (!VD || Depth >= MaxStores)
    return UseKind::Other;
  auto Self = declRefExpr(to(varDecl(equalsNode(VD))));
  if (!match(stmt(hasDescendant(Self)), *RHS, Ctx).empty())
    return UseKind::Accumulate;
  return useOfVariable(VD, Depth + 1);
}

/// An argument of a host function, whose result carries the value on: it
/// decides leaving the loop where the result does. Else a lookup that turns
/// the value into host data (`vocab.word(id)`, `names[id]` of a container of
/// strings, a decoding of a host copy) is host-only code, and any other call
/// just uses it. std::nullopt where \p CE is no such call, or returns
/// nothing.
std::optional<UseKind> SyncAnalysis::useInHostCall(const CallExpr *CE,
                                                   const Stmt *Cur,
                                                   unsigned Depth) {
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
    if (OC->getOperator() != OO_Subscript || OC->getNumArgs() != 2 ||
        OC->getArg(1) != Cur || isTensorType(OC->getArg(0)->getType()) ||
        !isHostDataType(OC->getType()))
      return std::nullopt;
  } else if (!llvm::is_contained(CE->arguments(), Cur) ||
             !isHostFunction(CE) || CE->getType()->isVoidType()) {
    return std::nullopt;
  }
  if (useOf(CE, Depth) == UseKind::Exit)
    return UseKind::Exit;
  // `logits = model.decode_step(token_ids)`: host data the project's own
  // function turns into what the sync reads next iteration. The host must
  // have the value before it can start the next step.
  if (const auto *Arg = dyn_cast<Expr>(Cur);
      Arg && !isTensorType(Arg->getType()) && feedsTheSync(CE))
    return UseKind::Exit;
  // `std::floor(v)`, `std::max(a, v)`: a number computed from the value, as
  // arithmetic is; its use decides.
  if (const FunctionDecl *FD = CE->getDirectCallee();
      FD && FD->isInStdNamespace() && CE->getType()->isArithmeticType())
    return useOf(CE, Depth);
  return isLookup(CE) ? UseKind::HostOnly : UseKind::Other;
}

/// Whether \p CE's result is assigned to a variable (or member) that the
/// followed sync reads: a value carried from one iteration to the next.
bool SyncAnalysis::feedsTheSync(const CallExpr *CE) {
  const Expr *LHS = assignedBy(CE, Ctx);
  const ValueDecl *Target = LHS ? assignedDecl(LHS) : nullptr;
  if (!Target || !UseRoot)
    return false;
  // A variable of the iteration's own starts afresh every iteration.
  if (const auto *VD = dyn_cast<VarDecl>(Target);
      VD && UseLoop && VD->isLocalVarDecl() &&
      SM.isPointWithin(SM.getExpansionLoc(VD->getLocation()),
                       SM.getExpansionLoc(UseLoop->getBeginLoc()),
                       SM.getExpansionLoc(UseLoop->getEndLoc())))
    return false;
  auto Reads = expr(anyOf(declRefExpr(to(valueDecl(equalsNode(Target)))),
                          memberExpr(member(equalsNode(Target)))));
  return !match(expr(anyOf(Reads, hasDescendant(Reads))), *UseRoot, Ctx)
              .empty();
}

/// The parent of \p Cur that carries a tensor's rows on: a view or an op of
/// it (`idx.select(1, 0)`, `idx + 1`), or an op it selects rows of
/// (`torch::index_select(t, 0, idx)`); null for anything else.
static const Stmt *rowCarrier(const Stmt *Parent, const Stmt *Cur) {
  if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
          CXXBindTemporaryExpr, ExprWithCleanups>(Parent))
    return Parent;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Parent))
    return explicitArgs(CE) == 1 ? Parent : nullptr;
  if (const auto *ME = dyn_cast<MemberExpr>(Parent))
    return ME; // its call decides below
  const auto *Call = dyn_cast<CallExpr>(Parent);
  if (!Call || !isTensorType(Call->getType()) ||
      (isa<CXXOperatorCallExpr>(Call) &&
       !utils::isArithmeticOperator(
           cast<CXXOperatorCallExpr>(Call)->getOperator())))
    return nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
      MC && MC->getCallee() == Cur)
    return tensorMethod(MC) ? MC : nullptr;
  const FunctionDecl *FD = Call->getDirectCallee();
  bool IsArg = llvm::is_contained(Call->arguments(), Cur);
  return IsArg && FD && (tensorMethod(Call) || isInTorchNamespace(FD))
             ? Call
             : nullptr;
}

/// The local tensor variable that \p E (or a view or op of it) initializes
/// or is assigned to, or null.
static const VarDecl *tensorStoredInto(const Expr *E, ASTContext &Ctx) {
  const Stmt *Cur = E;
  for (unsigned Step = 0; Step < 16; ++Step) {
    std::optional<DynTypedNode> Node = onlyParent(*Cur, Ctx);
    if (!Node)
      return nullptr;
    if (const auto *VD = Node->get<VarDecl>())
      return VD->isLocalVarDecl() && isTensorType(VD->getType()) ? VD : nullptr;
    const Stmt *Parent = Node->get<Stmt>();
    if (const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
        OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2 &&
        OC->getArg(1) == Cur) {
      const auto *Ref = dyn_cast<DeclRefExpr>(ignoreWrappers(OC->getArg(0)));
      const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      return VD && VD->hasLocalStorage() ? VD : nullptr;
    }
    Cur = Parent ? rowCarrier(Parent, Cur) : nullptr;
    if (!Cur)
      return nullptr;
  }
  return nullptr;
}

/// Whether the number of rows a data-dependent op returns decides leaving
/// its loop: the result is stored, and its size is read in the condition
/// that ends the loop (`while (idx.size(0) > 0)`, `if (!keep.numel())
/// break;`). A hand-written NMS cannot know when to stop without the count,
/// whatever form computes it.
bool SyncAnalysis::countDecidesExit(const Expr *Sync) {
  const VarDecl *VD = tensorStoredInto(Sync, Ctx);
  const auto *Fn =
      VD ? dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod())
         : nullptr;
  if (!Fn || !Fn->getBody() || !UseLoop)
    return false;
  for (const DeclRefExpr *Ref :
       tidy::utils::decl_ref_expr::allDeclRefExprs(*VD, *Fn->getBody(), Ctx)) {
    if (!isInside(Ref, UseLoop))
      continue;
    std::optional<DynTypedNode> Member = onlyParent(*Ref, Ctx);
    const Stmt *Up = Member ? Member->get<Stmt>() : nullptr;
    while (Up && isa<ImplicitCastExpr, ParenExpr>(Up)) {
      std::optional<DynTypedNode> Next = onlyParent(*Up, Ctx);
      Up = Next ? Next->get<Stmt>() : nullptr;
    }
    const auto *ME = dyn_cast_or_null<MemberExpr>(Up);
    std::optional<DynTypedNode> CallNode =
        ME ? onlyParent(*ME, Ctx) : std::nullopt;
    const auto *Size = CallNode ? CallNode->get<CXXMemberCallExpr>() : nullptr;
    const CXXMethodDecl *M = Size ? tensorMethod(Size) : nullptr;
    if (M && M->getIdentifier() &&
        llvm::is_contained({"sizes", "size", "numel", "sym_size", "sym_numel"},
                           M->getName()) &&
        useOf(Size, 1) == UseKind::Exit)
      return true;
  }
  return false;
}

/// A local host container \p Parent stores the value \p Cur into:
/// `ids.push_back(v)`, `ids.emplace_back(v)`, `ids.insert(it, v)`.
const VarDecl *SyncAnalysis::containerStoredInto(const Stmt *Parent,
                                                 const Stmt *Cur) const {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Parent);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !llvm::is_contained(MC->arguments(), Cur))
    return nullptr;
  llvm::StringRef Name = M->getName();
  if (Name != "push_back" && Name != "emplace_back" && Name != "insert" &&
      Name != "push" && Name != "emplace")
    return nullptr;
  return localContainer(MC->getImplicitObjectArgument());
}

/// The uses of a host container that a loop fills, in that loop's
/// iteration: what happens to it after the loop reads the values once.
UseKind SyncAnalysis::useOfContainer(const VarDecl *VD, unsigned Depth) {
  if (Depth > MaxStores || !UseLoop)
    return UseKind::Other;
  return useOfVariable(VD, Depth, loopBody(UseLoop));
}

/// Whether \p S is written inside \p Outer.
bool SyncAnalysis::isInside(const Stmt *S, const Stmt *Outer) const {
  return utils::isWrittenWithin(S, Outer, SM);
}

/// The strongest use of a local variable in its function, or in \p Within
/// only when given.
UseKind SyncAnalysis::useOfVariable(const VarDecl *VD, unsigned Depth,
                                    const Stmt *Within) {
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!VD->isLocalVarDecl() || !Fn || !Fn->getBody())
    return UseKind::Other;
  std::optional<UseKind> Strongest;
  for (const DeclRefExpr *Ref : tidy::utils::decl_ref_expr::allDeclRefExprs(
           *VD, *Fn->getBody(), Ctx)) {
    if (Within && !isInside(Ref, Within))
      continue;
    UseKind Use = useOf(Ref, Depth);
    if (!Strongest || Use > *Strongest)
      Strongest = Use;
  }
  return Strongest.value_or(UseKind::Other);
}

/// A tensor the code moved to a device: `.cuda()`, `.to(d)` with a device
/// that is not provably the CPU, or a local variable initialized from one.
bool SyncAnalysis::isMovedToDevice(const Expr *Tensor, unsigned Depth) {
  const Expr *E = ignoreWrappers(Tensor);
  if (!E || Depth > 4)
    return false;
  if (Devices.ofTensor(E) == DeviceKind::Cuda)
    return true;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    return VD && VD->isLocalVarDecl() && VD->getInit() &&
           utils::isNeverReassigned(VD, Ctx) &&
           isMovedToDevice(VD->getInit(), Depth + 1);
  }
  const CXXMethodDecl *M = tensorMethod(E);
  if (!M)
    return false;
  const auto *MC = cast<CXXMemberCallExpr>(E);
  if (const Expr *Target = utils::deviceTargetOfTo(MC))
    return Devices.ofDevice(Target) != DeviceKind::Cpu;
  // Views and conversions keep the device of their tensor.
  return isTensorType(M->getReturnType()) && M->getName() != "cpu" &&
         isMovedToDevice(MC->getImplicitObjectArgument(), Depth + 1);
}

/// The syncs and copies no call names: indexing with a boolean mask or with
/// a host index tensor, and ops whose output size depends on the data.
std::optional<FoundSync> SyncAnalysis::classifyImplicit(const Expr *E) {
  const Expr *Self = nullptr;
  for (const Expr *Index : indexTensors(E, Self)) {
    if (onCpu(Self))
      return std::nullopt;
    if (isBoolTensor(Index, Ctx))
      return makeFound(E, MaskIndexSync);
    if (onCpu(Index) && isMovedToDevice(Self))
      return makeFound(E, HostIndexCopy);
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || CE->getNumArgs() == 0)
    return std::nullopt;
  const CXXMethodDecl *M = tensorMethod(E);
  if (!M && !utils::isInTorchNamespace(FD))
    return std::nullopt;
  const Expr *Input =
      M ? cast<CXXMemberCallExpr>(E)->getImplicitObjectArgument()
        : CE->getArg(0);
  llvm::StringRef Name = FD->getName();
  if (Name == "bincount")
    return onCpu(Input) ? std::nullopt
                        : std::optional(makeFound(E, BincountSync, Name));
  // repeat_interleave(repeats) and (self, repeats): a tensor of repeats and
  // no output_size (the last parameter).
  if (Name == "repeat_interleave" && FD->getNumParams() > 0 &&
      isTensorType(FD->getParamDecl(M                         ? 0
                                    : FD->getNumParams() == 2 ? 0
                                                              : 1)
                       ->getType()) &&
      isa<CXXDefaultArgExpr>(CE->getArg(CE->getNumArgs() - 1)))
    return onCpu(Input)
               ? std::nullopt
               : std::optional(makeFound(E, RepeatInterleaveSync, Name));
  return std::nullopt;
}

std::optional<FoundSync> SyncAnalysis::classify(const Expr *E) {
  if (std::optional<FoundSync> Implicit = classifyImplicit(E))
    return Implicit;
  if (tensorMethod(E))
    return classifyTensorMethod(cast<CXXMemberCallExpr>(E));
  if (const Expr *Member = dependentTensorCallee(E))
    return classifyUnresolved(Member);
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return classifyCall(CE);
  return std::nullopt;
}

/// A sync through a method of at::Tensor: `t.item()`, `t.cpu()`, ...
std::optional<FoundSync>
SyncAnalysis::classifyTensorMethod(const CXXMemberCallExpr *MC) {
  const Expr *Self = MC->getImplicitObjectArgument();
  llvm::StringRef Name = MC->getMethodDecl()->getName();
  // Every sync below but data_ptr's needs a tensor not provably on the CPU.
  auto Unless = [&](const SyncKind &Kind, llvm::StringRef What = "") {
    return onCpu(Self) ? std::nullopt
                       : std::optional(makeFound(MC, Kind, What));
  };
  if (Name == "item")
    return Unless(ItemSync);
  if (Name == "cpu")
    return Unless(CpuCopySync);
  if (Name == "to") {
    if (isDtypeOnlyTo(MC) || Devices.ofTensor(MC) != DeviceKind::Cpu)
      return std::nullopt;
    return Unless(CpuCopySync);
  }
  if (Name == "nonzero" || Name == "masked_select" || Name == "argwhere" ||
      Name == "nonzero_numpy" || Name == "unique_consecutive")
    return Unless(DataDependentSync, Name);
  if (Name == "is_nonzero" || Name == "equal" || Name == "allclose")
    return Unless(BoolSync, Name);
  if (Name == "data_ptr" && Devices.ofTensor(Self) == DeviceKind::Cuda &&
      resultIsDereferenced(MC))
    return makeFound(MC, DataPtrSync);
  return std::nullopt;
}

/// A sync through a free function or an operator: `out << t`,
/// torch::cuda::synchronize(), clip_grad_norm_, at::nonzero(t), ...
std::optional<FoundSync> SyncAnalysis::classifyCall(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD)
    return std::nullopt;
  // `out << tensor` through at::operator<<, for any ostream.
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
      OC && OC->getOperator() == OO_LessLess && OC->getNumArgs() == 2) {
    if (isTensorType(ignoreWrappers(OC->getArg(1))->getType()) &&
        isInTorchNamespace(FD) && !onCpu(OC->getArg(1)))
      return makeFound(CE, PrintSync);
    return std::nullopt;
  }
  if (!FD->getIdentifier())
    return std::nullopt;
  llvm::StringRef Name = FD->getName();
  const Expr *First = CE->getNumArgs() ? CE->getArg(0) : nullptr;
  // The first argument's device decides; a call without one may sync.
  auto Unless = [&](const SyncKind &Kind, llvm::StringRef What = "") {
    return First && onCpu(First) ? std::nullopt
                                 : std::optional(makeFound(CE, Kind, What));
  };
  if (isDeviceSyncFunction(FD))
    return makeFound(CE, DeviceSync, FD->getQualifiedNameAsString());
  if (hasQualifiedName(FD, "torch::nn::utils::clip_grad_norm_"))
    return makeFound(CE, ClipGradSync);
  if (isTorchFunction(FD, {"nonzero", "masked_select", "argwhere",
                           "nonzero_numpy", "unique_consecutive", "_unique",
                           "_unique2", "unique_dim"}))
    return Unless(DataDependentSync, Name);
  if (isTorchFunction(FD, {"equal", "allclose", "is_nonzero"}))
    return Unless(BoolSync, Name);
  if (isTorchFunction(FD, {"print"}) && First &&
      isTensorType(ignoreWrappers(First)->getType()))
    return Unless(PrintSync);
  return std::nullopt;
}

bool SyncAnalysis::onCpu(const Expr *Tensor) {
  return Devices.ofTensor(Tensor) == DeviceKind::Cpu;
}

namespace {

/// Finds, in the code outside LibTorch's headers, the signs that tensors
/// may live on a CUDA device. A CUDA selection: a name with "cuda" in it
/// (kCUDA, DeviceType::CUDA, cuda(), torch::cuda::...) or a "cuda..." string.
/// Device-generic code: a Device, DeviceType or TensorOptions parameter or
/// member, a local one not provably the CPU's, `t.device()` or `t.options()`
/// of a tensor not provably on the CPU, the parameters an optimizer holds.
/// Branches dead under constant flags (`bool force_cpu = true; if
/// (!force_cpu) ...`) show neither.
class DeviceUseFinder : public RecursiveASTVisitor<DeviceUseFinder> {
public:
  DeviceUseFinder(ASTContext &Ctx, const SourceManager &SM)
      : Ctx(Ctx), SM(SM), Devices(Ctx) {}

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
    return !noteIf(isCudaName(E->getDecl()) && !isProbe(E->getDecl()) &&
                   !utils::storedOnlyInUnreadDevice(E, Ctx));
  }
  bool VisitMemberExpr(MemberExpr *E) {
    noteGeneric(E);
    return !noteIf(isCudaName(E->getMemberDecl()));
  }
  bool VisitCallExpr(CallExpr *E) {
    noteGeneric(E);
    Generic |= readsOptimizerParameters(E) && isUserCode(E->getExprLoc());
    return !noteIf(isCudaName(E->getDirectCallee()) &&
                   !isProbe(E->getDirectCallee()));
  }
  bool VisitStringLiteral(StringLiteral *S) {
    return !noteIf(S->getCharByteWidth() == 1 &&
                   S->getString().starts_with("cuda") &&
                   !utils::storedOnlyInUnreadDevice(S, Ctx));
  }
  bool VisitValueDecl(ValueDecl *D) {
    Generic |= isa<ParmVarDecl, FieldDecl>(D) && isUserCode(D->getLocation()) &&
               utils::isDeviceValueType(D->getType());
    return true;
  }

  bool Found = false;
  bool Generic = false;

private:
  /// `group.params()` of an optimizer's parameter group: a model's
  /// parameters, on the device the training code chose.
  static bool readsOptimizerParameters(const CallExpr *E) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
    const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
    return M && M->getIdentifier() && M->getName() == "params" &&
           M->getParent()->getIdentifier() &&
           M->getParent()->getName() == "OptimizerParamGroup";
  }
  static bool isCudaName(const NamedDecl *D) {
    if (!D)
      return false;
    std::string Name = D->getQualifiedNameAsString();
    return llvm::StringRef(Name).contains_insensitive("cuda");
  }
  /// `torch::cuda::is_available()`, `device_count()`, `manual_seed()`: a
  /// question about CUDA, or a seed for it, puts nothing on a GPU.
  static bool isProbe(const NamedDecl *D) {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    return FD && FD->getIdentifier() &&
           llvm::is_contained({"is_available", "device_count",
                               "cudnn_is_available", "manual_seed",
                               "manual_seed_all"},
                              FD->getName());
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
  ASTContext &Ctx;
  const SourceManager &SM;
  utils::DeviceAnalysis Devices;
};

/// A Device or DeviceType, or a map entry keyed by one.
bool isDeviceKeyed(QualType T) {
  auto IsDevice = [](QualType D) {
    return utils::isRecordNamed(D, "Device") ||
           utils::isEnumNamed(D, "DeviceType");
  };
  if (IsDevice(T))
    return true;
  const auto *Pair = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  if (!Pair || !Pair->getIdentifier() || Pair->getName() != "pair")
    return false;
  const TemplateArgumentList &Args = Pair->getTemplateArgs();
  return Args.size() == 2 && Args[0].getKind() == TemplateArgument::Type &&
         IsDevice(Args[0].getAsType());
}


/// `kCPU` or `DeviceType::CPU`, also as a Device made from it.
bool isCpuDeviceConstant(const Expr *E) {
  E = E->IgnoreImplicit();
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    E = Cast->getSubExpr()->IgnoreImplicit();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    if (Construct->getNumArgs() >= 1)
      E = Construct->getArg(0)->IgnoreImplicit();
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  if (!Ref || !Ref->getDecl()->getIdentifier() ||
      !utils::isEnumNamed(Ref->getType(), "DeviceType"))
    return false;
  llvm::StringRef Name = Ref->getDecl()->getName();
  return isa<EnumConstantDecl>(Ref->getDecl()) ? Name == "CPU"
                                               : Name == "kCPU";
}

/// Whether \p Cond holds exactly when a device is the CPU (true: `d ==
/// kCPU`, `t.is_cpu()`), exactly when it is not (false: `d != kCPU`), or
/// says nothing of it.
std::optional<bool> cpuTest(const Expr *Cond) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(Cond)) {
    if (U->getOpcode() != UO_LNot)
      return std::nullopt;
    std::optional<bool> Inner = cpuTest(U->getSubExpr());
    return Inner ? std::optional<bool>(!*Inner) : std::nullopt;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Cond)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (M && M->getIdentifier() && M->getName() == "is_cpu")
      return true;
    return std::nullopt;
  }
  const Expr *LHS = nullptr, *RHS = nullptr;
  bool Equal = false;
  if (const auto *BO = dyn_cast<BinaryOperator>(Cond);
      BO && BO->isEqualityOp()) {
    LHS = BO->getLHS();
    RHS = BO->getRHS();
    Equal = BO->getOpcode() == BO_EQ;
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Cond);
             OC && OC->getNumArgs() == 2 &&
             (OC->getOperator() == OO_EqualEqual ||
              OC->getOperator() == OO_ExclaimEqual)) {
    LHS = OC->getArg(0);
    RHS = OC->getArg(1);
    Equal = OC->getOperator() == OO_EqualEqual;
  }
  if (!LHS || isCpuDeviceConstant(LHS) == isCpuDeviceConstant(RHS))
    return std::nullopt;
  return Equal;
}


} // namespace

DeviceMentions findDeviceMentions(ASTContext &Ctx, const SourceManager &SM) {
  DeviceUseFinder Finder(Ctx, SM);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  DeviceMentions Mentions;
  Mentions.Cuda = Finder.Found;
  Mentions.Generic = Finder.Generic;
  return Mentions;
}

bool mentionsCuda(const Decl *D, ASTContext &Ctx, const SourceManager &SM) {
  DeviceUseFinder Finder(Ctx, SM);
  Finder.TraverseDecl(const_cast<Decl *>(D));
  return Finder.Found;
}

bool isPerDeviceLoop(const Stmt *Loop) {
  const auto *RF = dyn_cast<CXXForRangeStmt>(Loop);
  return RF && RF->getLoopVariable() &&
         isDeviceKeyed(RF->getLoopVariable()->getType());
}


bool isOnCpuBranch(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 512; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return false;
    const auto *P = Parents[0].get<Stmt>();
    if (!P || isa<LambdaExpr>(P))
      return false;
    if (const auto *If = dyn_cast<IfStmt>(P); If && If->getCond()) {
      std::optional<bool> Test = cpuTest(If->getCond());
      const Stmt *Child = Cur.get<Stmt>();
      if (Test && ((*Test && Child == If->getThen()) ||
                   (!*Test && Child == If->getElse())))
        return true;
    }
    Cur = Parents[0];
  }
  return false;
}
} // namespace clang::tidy::torch::hostsync
