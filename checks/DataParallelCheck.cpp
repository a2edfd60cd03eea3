//===--- DataParallelCheck.cpp - libtorch-tidy ----------------------------===//
//
// data_parallel() runs in one process: on every call it scatters the input,
// copies the module's parameters and buffers to every device (replicate),
// runs the replicas in threads and gathers the outputs on one device, where
// the gradients also meet. Called per step, that copy and the single-device
// gather are paid every step; one process per GPU with c10d (an all-reduce
// of the gradients after backward()) pays neither. There is no mechanical
// rewrite, so the check only says so.
//
//===----------------------------------------------------------------------===//

#include "DataParallelCheck.h"
#include "TorchTidyModule.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/ParentWalk.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// How many devices a devices argument names: 0 for every GPU (absent or
/// nullopt), the count of a written list or of a local vector's elements,
/// and nothing when the code does not tell.
std::optional<unsigned> deviceCount(const Expr *Arg, ASTContext &Ctx);

bool isNullopt(const Expr *E) {
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  return Ref && Ref->getDecl()->getName() == "nullopt";
}

/// A local vector of devices: its initial elements, plus those appended
/// outside loops; every GPU's worth (2) when one is appended in a loop.
std::optional<unsigned> localVectorCount(const VarDecl *VD, ASTContext &Ctx) {
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  if (!Body || !VD->isLocalVarDecl())
    return std::nullopt;
  unsigned N = 0;
  if (const Expr *Init = VD->getInit()) {
    const InitListExpr *List = utils::writtenTensorList(Init);
    if (List)
      N = List->getNumInits();
    else if (!isa<CXXConstructExpr>(utils::ignoreTemporaries(Init)) ||
             cast<CXXConstructExpr>(utils::ignoreTemporaries(Init))
                     ->getNumArgs() != 0)
      return std::nullopt;
  }
  auto Appends = cxxMemberCallExpr(
      on(declRefExpr(to(varDecl(equalsNode(VD))))),
      callee(cxxMethodDecl(hasAnyName("push_back", "emplace_back"))));
  for (const BoundNodes &B :
       match(findAll(cxxMemberCallExpr(Appends).bind("append")), *Body, Ctx)) {
    const auto *Call = B.getNodeAs<Stmt>("append");
    if (!match(stmt(hasAncestor(
                   stmt(anyOf(forStmt(), whileStmt(), doStmt(),
                              cxxForRangeStmt()),
                        hasAncestor(stmt(equalsNode(Body)))))),
               *Call, Ctx)
             .empty())
      return 2;
    ++N;
  }
  return N;
}

std::optional<unsigned> deviceCount(const Expr *Arg, ASTContext &Ctx) {
  if (!Arg || isa<CXXDefaultArgExpr>(Arg))
    return 0;
  const Expr *E = utils::ignoreWrappers(Arg);
  if (isNullopt(E))
    return 0;
  if (const InitListExpr *List = utils::writtenTensorList(Arg))
    return List->getNumInits();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl()))
      return localVectorCount(VD, Ctx);
  return std::nullopt;
}

bool isDeviceCount(const Expr *E) {
  const auto *Call = dyn_cast<CallExpr>(utils::ignoreWrappers(E));
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  return FD && FD->getIdentifier() && FD->getName() == "device_count";
}

/// Whether `device_count() op N` (or `N op device_count()`) being \p Holds
/// means one device at most.
bool impliesOneDevice(const BinaryOperator *B, bool Holds, ASTContext &Ctx) {
  bool CountLeft = isDeviceCount(B->getLHS());
  if (!CountLeft && !isDeviceCount(B->getRHS()))
    return false;
  Expr::EvalResult R;
  const Expr *Other = CountLeft ? B->getRHS() : B->getLHS();
  if (!Other->EvaluateAsInt(R, Ctx))
    return false;
  int64_t N = R.Val.getInt().getExtValue();
  BinaryOperatorKind Op = CountLeft ? B->getOpcode()
                                    : BinaryOperator::reverseComparisonOp(
                                          B->getOpcode());
  if (!Holds)
    Op = BinaryOperator::negateComparisonOp(Op);
  switch (Op) {
  case BO_EQ:
  case BO_LE:
    return N <= 1;
  case BO_LT:
    return N <= 2;
  default:
    return false;
  }
}

/// Whether \p S runs only where device_count() says one device at most:
/// in the branch of an `if` on it that means so.
bool inSingleDeviceBranch(const Stmt *S, ASTContext &Ctx) {
  const Stmt *Cur = S;
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    const auto *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!P)
      return false;
    if (const auto *If = dyn_cast<IfStmt>(P)) {
      const auto *Cond =
          dyn_cast<BinaryOperator>(If->getCond()->IgnoreParenImpCasts());
      bool InThen = If->getThen() == Cur, InElse = If->getElse() == Cur;
      if (Cond && Cond->isComparisonOp() && (InThen || InElse) &&
          impliesOneDevice(Cond, InThen, Ctx))
        return true;
    }
    Cur = P;
  }
  return false;
}

} // namespace

void DataParallelCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  Finder->addMatcher(
      callExpr(utils::isOutsideLibTorch(), unless(isInTemplateInstantiation()),
               callee(functionDecl(
                   hasName("::torch::nn::parallel::data_parallel"))))
          .bind("call"),
      this);
}

void DataParallelCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  ASTContext &Ctx = *Result.Context;
  if (Call->getBeginLoc().isMacroID())
    return;
  std::optional<unsigned> Devices =
      deviceCount(Call->getNumArgs() > 2 ? Call->getArg(2) : nullptr, Ctx);
  if (!Devices || *Devices == 1 || inSingleDeviceBranch(Call, Ctx) ||
      utils::DeviceAnalysis(Ctx).isInDeadBranch(Call))
    return;
  if (!Frequency || FrequencyContext != &Ctx) {
    Frequency = std::make_unique<utils::RunFrequency>(Ctx);
    FrequencyContext = &Ctx;
  }
  utils::RepeatReason Repeat = Frequency->ofStmt(Call);
  if (Repeat.Freq != utils::Frequency::Repeated)
    return;
  diag(Call->getBeginLoc(),
       "data_parallel() over %0 copies the module to each device and gathers "
       "the outputs on one, %1; train with one process per GPU instead")
      << (*Devices == 0 ? "every GPU" : "several devices")
      << utils::describeRepeat(Repeat);
  diag(Call->getBeginLoc(),
       "one process per GPU: c10d's ProcessGroupNCCL, parameters broadcast "
       "once, gradients all-reduced after backward()",
       DiagnosticIDs::Note);
  if (Repeat.Loop)
    diag(Repeat.Loop->getBeginLoc(), utils::RepeatLoopNote,
         DiagnosticIDs::Note);
}

TORCH_TIDY_CHECK_FACTORY(DataParallelCheck)

} // namespace clang::tidy::torch
