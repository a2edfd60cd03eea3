//===--- HostSyncInLoopCheck.cpp - libtorch-tidy --------------------------===//
//
// Reports the syncs HostSyncAnalysis finds in one iteration of a loop that
// may run on a CUDA device, with the advice that fits how the value is used
// and, for `total += x.item<T>()`, the accumulate-on-device fix.
//
//===----------------------------------------------------------------------===//

#include "HostSyncInLoopCheck.h"
#include "HostSyncAccumulateFix.h"
#include "HostSyncAnalysis.h"
#include "TorchTidyModule.h"
#include "utils/ClosedProgram.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/ParentWalk.h"
#include "utils/RunFrequency.h"
#include "utils/TrainingCode.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using namespace hostsync;

HostSyncInLoopCheck::HostSyncInLoopCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      MaxCallDepth(Options.get("MaxCallDepth", 3U)),
      CheckCpuOnlyCode(Options.get("CheckCpuOnlyCode", false)),
      ProjectSelectsCuda(Options.get("ProjectSelectsCuda", "unknown")),
      DetectedProjectSelectsCuda(
          Options.get("DetectedProjectSelectsCuda",
                      Options.getLocalOrGlobal("TorchProjectSelectsCuda",
                                               "unknown"))) {
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

bool HostSyncInLoopCheck::projectNeverSelectsCuda(const SourceManager &SM) {
  // The user's word first; else what a whole-project run found.
  llvm::StringRef Said = ProjectSelectsCuda;
  if (Said == "unknown")
    Said = DetectedProjectSelectsCuda;
  if (Said == "unknown")
    if (const utils::ProjectIndex *Index = projectIndex(SM))
      return Index->neverSelectsCuda();
  return Said == "false";
}

HostSyncInLoopCheck::~HostSyncInLoopCheck() = default;

/// What one call of a function runs outside its loops, and what of it is
/// worth reporting (Reported points into R).
struct HostSyncInLoopCheck::FunctionWalk {
  WalkResult R;
  Findings F;
};

void HostSyncInLoopCheck::onStartOfTranslationUnit() {
  Analysis.reset();
  Calls.reset();
  Reported.clear();
  FunctionWalks.clear();
  AccumulatorNames.clear();
  MentionsCuda.reset();
  ClosedProgram.reset();
  DeviceGeneric = false;
}

void HostSyncInLoopCheck::onEndOfTranslationUnit() {
  FunctionWalks.clear();
  Analysis.reset();
  Calls.reset();
}

void HostSyncInLoopCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  Finder->addMatcher(
      stmt(utils::isOutsideLibTorch(),
           anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt()))
          .bind("loop"),
      this);
  // With a project index: the functions that run per step.
  Finder->addMatcher(
      functionDecl(utils::isOutsideLibTorch(), isDefinition()).bind("function"),
      this);
}

namespace {

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

/// The functions after the first that a sync was reached through:
/// " (through 'g', 'h')", or "".
std::string throughPath(const FoundSync &F) {
  std::string Path;
  for (size_t I = 1; I < F.Through.size(); ++I)
    Path += (I == 1 ? " (through '" : ", '") +
            F.Through[I]->getNameAsString() + "'";
  return Path.empty() ? Path : Path + ")";
}

} // namespace

/// Code that never mentions a CUDA device runs on the CPU, where these calls
/// wait for nothing; device-generic code runs where its callers say, unless
/// the project never selects CUDA.
bool HostSyncInLoopCheck::unitMayRunOnDevice(ASTContext &Ctx,
                                             const SourceManager &SM) {
  if (!MentionsCuda) {
    DeviceMentions Mentions = findDeviceMentions(Ctx, SM);
    MentionsCuda = Mentions.Cuda;
    DeviceGeneric = Mentions.Generic;
  }
  if (*MentionsCuda)
    return true;
  if (!DeviceGeneric || projectNeverSelectsCuda(SM))
    return false;
  // A whole program in view that never names CUDA runs on the CPU, however
  // generic its code is written.
  if (!ClosedProgram)
    ClosedProgram = utils::devicesClosedInUnit(Ctx);
  return !*ClosedProgram;
}

/// Whether the code of \p FD may see CUDA tensors. The user's word on the
/// project first; else a project index knows where the function is called
/// from: from code that selects CUDA, or only from programs that never do.
/// Where it does not know, the translation unit's signs decide; a function
/// the index says runs per step sees what the step runs on, in a project
/// that selects CUDA.
bool HostSyncInLoopCheck::mayRunOnDevice(const FunctionDecl *FD, bool PerStep,
                                         ASTContext &Ctx,
                                         const SourceManager &SM) {
  if (CheckCpuOnlyCode)
    return true;
  const utils::ProjectIndex *Index = projectIndex(SM);
  if (Index && FD && ProjectSelectsCuda == "unknown") {
    utils::CudaReach Reach = Index->cudaReach(utils::usrOf(FD));
    if (Reach != utils::CudaReach::Unknown)
      return Reach == utils::CudaReach::Yes;
  }
  if (unitMayRunOnDevice(Ctx, SM))
    return true;
  return PerStep && Index && !projectNeverSelectsCuda(SM);
}

/// A loop in a function whose every call in this file is on the CPU branch
/// of a device test (`if (device_ == kCPU) fitOnCpu(); else ...`) runs on
/// the CPU, where a sync waits for nothing.
bool HostSyncInLoopCheck::runsOnlyOnCpu(const Stmt *Loop, ASTContext &Ctx) {
  const FunctionDecl *FD = utils::enclosingFunction(Loop, Ctx);
  if (!FD)
    return false;
  if (!Calls)
    Calls = std::make_unique<utils::RunFrequency>(Ctx);
  const llvm::SmallVector<const Stmt *, 4> *Sites = Calls->callsOf(FD);
  return Sites && !Sites->empty() &&
         llvm::all_of(*Sites, [&](const Stmt *Call) {
           return isOnCpuBranch(Call, Ctx);
         });
}

void HostSyncInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  if (const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop"))
    checkLoop(Loop, Ctx, SM);
  else if (const auto *FD = Result.Nodes.getNodeAs<FunctionDecl>("function"))
    checkFunction(FD, Ctx, SM);
}

hostsync::SyncAnalysis &HostSyncInLoopCheck::analysis(ASTContext &Ctx,
                                                      const SourceManager &SM) {
  if (!Analysis)
    Analysis = std::make_unique<SyncAnalysis>(Ctx, SM, getLangOpts(),
                                              MaxCallDepth, projectIndex(SM));
  return *Analysis;
}

void HostSyncInLoopCheck::checkLoop(const Stmt *Loop, ASTContext &Ctx,
                                    const SourceManager &SM) {
  if (utils::isInLibTorchHeader(Loop->getBeginLoc(), SM) ||
      !isLoop(Loop, Ctx) || isPerDeviceLoop(Loop))
    return;
  // Loops in template instantiations are analyzed with their real types; a
  // site seen in several instantiations is reported once.
  WalkResult R = analysis(Ctx, SM).walkLoop(Loop);
  // A loop around a training loop runs per epoch, unless it steps itself.
  if (R.Sites.empty() ||
      (R.HasTrainingLoop && !utils::stepsEachIteration(Loop, Ctx)))
    return;
  Findings Worth = findingsOf(R, SM);
  // The device is asked only with something to report: a stored result is
  // replayed while the project index gives the answers it asked for.
  if (Worth.Reported.empty() ||
      !mayRunOnDevice(utils::enclosingFunction(Loop, Ctx), /*PerStep=*/false,
                      Ctx, SM) ||
      runsOnlyOnCpu(Loop, Ctx))
    return;
  const bool InInstantiation =
      !match(stmt(isInTemplateInstantiation()), *Loop, Ctx).empty();
  for (const Finding &Found : Worth.Reported) {
    // A sync in a function that runs per step is reported there, once.
    if (!Found.S->Sync.Through.empty() &&
        reportedPerStep(Found.S->Sync, Ctx, SM))
      continue;
    report(Found, Loop, InInstantiation, Ctx);
  }
}

namespace {

/// A sync whose value the function returns: its caller's use decides
/// whether the program needs it, and a loop that calls it sees that use.
bool reportedInFunction(const Finding &Found) {
  return Found.S->Sync.Use != UseKind::Returned;
}

} // namespace

const HostSyncInLoopCheck::FunctionWalk &
HostSyncInLoopCheck::walkOf(const FunctionDecl *FD, ASTContext &Ctx,
                            const SourceManager &SM) {
  std::unique_ptr<FunctionWalk> &W = FunctionWalks[FD];
  if (!W) {
    W = std::make_unique<FunctionWalk>();
    W->R = analysis(Ctx, SM).walkFunction(FD);
    W->F = findingsOf(W->R, SM);
  }
  return *W;
}

/// Why \p FD runs per step, when the index says so and its syncs are
/// reported at the function: it may see CUDA tensors and runs no training
/// loop itself.
const utils::StepReason *
HostSyncInLoopCheck::perStepReason(const FunctionDecl *FD, ASTContext &Ctx,
                                   const SourceManager &SM) {
  const utils::ProjectIndex *Index = projectIndex(SM);
  if (!Index || !FD->hasBody() ||
      utils::isInLibTorchHeader(FD->getLocation(), SM))
    return nullptr;
  // Only a function with a sync to report asks the index: a stored result
  // is replayed while the index gives the answers it asked for, so each
  // question is one more reason to analyze the file again.
  const FunctionWalk &W = walkOf(FD, Ctx, SM);
  if (W.F.Reported.empty() || W.R.HasTrainingLoop)
    return nullptr;
  const utils::StepReason *Why = Index->perStep(utils::usrOf(FD));
  if (!Why || !mayRunOnDevice(FD, /*PerStep=*/true, Ctx, SM))
    return nullptr;
  return Why;
}

/// Whether a function on the way to the sync \p F runs per step and
/// reports the sync itself.
bool HostSyncInLoopCheck::reportedPerStep(const FoundSync &F, ASTContext &Ctx,
                                          const SourceManager &SM) {
  return llvm::any_of(F.Through, [&](const FunctionDecl *FD) {
    if (!perStepReason(FD, Ctx, SM))
      return false;
    return llvm::any_of(walkOf(FD, Ctx, SM).F.Reported,
                        [&](const Finding &Found) {
                          return Found.S->Sync.Sync == F.Sync &&
                                 reportedInFunction(Found);
                        });
  });
}

/// A function the project index says runs per step: the syncs of one call,
/// outside its loops (reported per iteration at the loops).
void HostSyncInLoopCheck::checkFunction(const FunctionDecl *FD,
                                        ASTContext &Ctx,
                                        const SourceManager &SM) {
  if (!projectIndex(SM))
    return;
  const utils::StepReason *Why = perStepReason(FD, Ctx, SM);
  if (!Why)
    return;
  for (const Finding &Found : walkOf(FD, Ctx, SM).F.Reported) {
    if (!reportedInFunction(Found) ||
        (!Found.S->Sync.Through.empty() &&
         reportedPerStep(Found.S->Sync, Ctx, SM)))
      continue;
    reportPerStep(Found, FD, *Why, Ctx);
  }
}

/// One warning per site, then its notes: the loop, the sync a call reaches,
/// and the iteration's first copy to the CPU a second copy could join.
void HostSyncInLoopCheck::report(const Finding &Found, const Stmt *Loop,
                                 bool InInstantiation, ASTContext &Ctx) {
  const Site &S = *Found.S;
  SourceLocation Loc = S.Where->getExprLoc();
  if (!Reported.insert(Loc.getRawEncoding()).second)
    return;
  const FoundSync &F = S.Sync;
  utils::recordPayload(getID(), Loc, Loop, /*IsLoop=*/true,
                       Ctx);
  // A second copy to the CPU could travel with the first.
  const char *Hint = Found.FirstCopy ? MergeCopiesHint : hintFor(F);
  if (F.Through.empty()) {
    std::optional<AccumulateFix> Fix;
    if (F.Kind == &ItemSync && !InInstantiation)
      Fix = accumulateOnDevice(F.Sync, Loop, Ctx, Ctx.getSourceManager(),
                               getLangOpts(), AccumulatorNames);
    diag(Loc, "%0 synchronizes the host with the device per iteration of "
              "the loop; %1")
        << F.What << Hint
        << llvm::ArrayRef<FixItHint>(Fix ? Fix->Hints
                                         : llvm::SmallVector<FixItHint, 3>());
  } else {
    diag(Loc, "call to %0 synchronizes the host with the device per "
              "iteration of the loop: %1%2; %3")
        << calleeName(S.Where, F.Through.front()) << F.What << throughPath(F)
        << Hint;
  }
  diag(Loop->getBeginLoc(), "loop here", DiagnosticIDs::Note);
  if (!F.Through.empty())
    diag(F.Sync->getExprLoc(), "%0 synchronizes here", DiagnosticIDs::Note)
        << F.What;
  if (Found.FirstCopy)
    diag(Found.FirstCopy->getExprLoc(),
         "the iteration's first copy to the CPU is here; one copy of both "
         "needs one synchronization",
         DiagnosticIDs::Note);
}


/// One warning per site, then its notes: why the function runs per step,
/// the sync a call reaches, and the first copy to the CPU a second copy
/// could join.
void HostSyncInLoopCheck::reportPerStep(const Finding &Found,
                                        const FunctionDecl *FD,
                                        const utils::StepReason &Why,
                                        ASTContext &Ctx) {
  const Site &S = *Found.S;
  SourceLocation Loc = S.Where->getExprLoc();
  if (!Reported.insert(Loc.getRawEncoding()).second)
    return;
  const FoundSync &F = S.Sync;
  utils::recordStatementPayload(getID(), Loc, S.Where, Ctx);
  const char *Hint = Found.FirstCopy ? MergeCopiesHint : hintFor(F);
  if (F.Through.empty())
    diag(Loc, "%0 synchronizes the host with the device in every call of "
              "%1, which runs per step; %2")
        << F.What << FD << Hint;
  else
    diag(Loc, "call to %0 synchronizes the host with the device in every "
              "call of %1, which runs per step: %2%3; %4")
        << calleeName(S.Where, F.Through.front()) << FD << F.What
        << throughPath(F) << Hint;
  notePerStep(FD, Why, Ctx.getSourceManager());
  if (!F.Through.empty())
    diag(F.Sync->getExprLoc(), "%0 synchronizes here", DiagnosticIDs::Note)
        << F.What;
  if (Found.FirstCopy)
    diag(Found.FirstCopy->getExprLoc(),
         "the call's first copy to the CPU is here; one copy of both needs "
         "one synchronization",
         DiagnosticIDs::Note);
}

namespace {

/// Where the call \p Call of \p FD is, when its file is part of this
/// translation unit (at the function's name on that line, else at the
/// line's first character); invalid otherwise.
SourceLocation callLocation(const utils::SourcePlace &Call,
                            const FunctionDecl *FD, const SourceManager &SM) {
  if (Call.File.empty() || Call.Line == 0)
    return {};
  llvm::Expected<FileEntryRef> File = SM.getFileManager().getFileRef(Call.File);
  if (!File) {
    llvm::consumeError(File.takeError());
    return {};
  }
  FileID FID = SM.translateFile(*File);
  if (FID.isInvalid())
    return {};
  SourceLocation Line = SM.translateLineCol(FID, Call.Line, 1);
  bool Invalid = false;
  llvm::StringRef Text = SM.getCharacterData(Line, &Invalid);
  if (Invalid)
    return {};
  Text = Text.take_until([](char C) { return C == '\n'; });
  size_t Column =
      FD->getIdentifier() ? Text.find(FD->getName()) : llvm::StringRef::npos;
  if (Column == llvm::StringRef::npos)
    Column = std::min(Text.find_first_not_of(" \t"), Text.size());
  return Line.getLocWithOffset(Column);
}

} // namespace

/// The note at the call that repeats the function when this translation
/// unit holds it, else at the function: the loop that repeats it, in
/// whichever file, and the call that leads there; or the convention (a
/// module's forward() or a functor's operator() that no project code
/// calls).
void HostSyncInLoopCheck::notePerStep(const FunctionDecl *FD,
                                      const utils::StepReason &Why,
                                      const SourceManager &SM) {
  SourceLocation At = FD->getLocation();
  if (SourceLocation Call = callLocation(Why.Call, FD, SM); Call.isValid())
    At = Call;
  if (Why.Loop.File.empty() && Why.Caller.empty()) {
    diag(At, "%0 runs per step: a module's forward() or a functor's "
             "operator() that the project never calls itself",
             DiagnosticIDs::Note)
        << FD;
    return;
  }
  if (Why.Loop.File.empty()) {
    diag(At, "%0 runs per step: it is called by '%1' at %2:%3, which runs "
             "per step as a module's forward() or a functor's operator()",
         DiagnosticIDs::Note)
        << FD << Why.Caller << Why.Call.File << Why.Call.Line;
    return;
  }
  if (Why.Caller == Why.LoopFunction) {
    diag(At, "%0 runs per step: it is called at %1:%2 in the loop of '%3' "
             "at %4:%5",
         DiagnosticIDs::Note)
        << FD << Why.Call.File << Why.Call.Line << Why.LoopFunction
        << Why.Loop.File << Why.Loop.Line;
    return;
  }
  diag(At, "%0 runs per step: it is called by '%1' at %2:%3, which the "
           "loop of '%4' at %5:%6 repeats",
       DiagnosticIDs::Note)
      << FD << Why.Caller << Why.Call.File << Why.Call.Line
      << Why.LoopFunction << Why.Loop.File << Why.Loop.Line;
}

TORCH_TIDY_CHECK_FACTORY(HostSyncInLoopCheck)

} // namespace clang::tidy::torch
