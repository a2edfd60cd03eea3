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
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/ParentWalk.h"
#include "utils/RunFrequency.h"
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
  // The user's word first; else the project index's; else what a
  // whole-project run found.
  llvm::StringRef Said = ProjectSelectsCuda;
  if (Said != "unknown")
    return Said == "false";
  if (const utils::ProjectIndex *Index = projectIndex(SM))
    return !Index->selectsCuda();
  return DetectedProjectSelectsCuda == "false";
}

HostSyncInLoopCheck::~HostSyncInLoopCheck() = default;

void HostSyncInLoopCheck::onStartOfTranslationUnit() {
  Analysis.reset();
  Calls.reset();
  Reported.clear();
  MentionsCuda.reset();
  DeviceGeneric = false;
}

void HostSyncInLoopCheck::onEndOfTranslationUnit() {
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
bool HostSyncInLoopCheck::mayRunOnDevice(ASTContext &Ctx,
                                         const SourceManager &SM) {
  if (!MentionsCuda) {
    DeviceMentions Mentions = findDeviceMentions(Ctx, SM);
    MentionsCuda = Mentions.Cuda;
    DeviceGeneric = Mentions.Generic;
  }
  return *MentionsCuda || CheckCpuOnlyCode ||
         (DeviceGeneric && !projectNeverSelectsCuda(SM));
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
         llvm::all_of(*Sites,
                      [&](const Stmt *Call) { return isOnCpuBranch(Call, Ctx); });
}

void HostSyncInLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  if (!Loop || utils::isInLibTorchHeader(Loop->getBeginLoc(), SM) ||
      !isLoop(Loop, Ctx) || isPerDeviceLoop(Loop))
    return;
  if (!mayRunOnDevice(Ctx, SM))
    return;
  // Loops in template instantiations are analyzed with their real types; a
  // site seen in several instantiations is reported once.
  if (!Analysis)
    Analysis =
        std::make_unique<SyncAnalysis>(Ctx, SM, getLangOpts(), MaxCallDepth);
  WalkResult R = Analysis->walkLoop(Loop);
  if (R.HasTrainingLoop || R.Sites.empty() || runsOnlyOnCpu(Loop, Ctx))
    return;
  const bool InInstantiation =
      !match(stmt(isInTemplateInstantiation()), *Loop, Ctx).empty();
  for (const Finding &Found : findingsOf(R, SM).Reported)
    report(Found, Loop, InInstantiation, Ctx);
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
                               getLangOpts());
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

TORCH_TIDY_CHECK_FACTORY(HostSyncInLoopCheck)

} // namespace clang::tidy::torch
