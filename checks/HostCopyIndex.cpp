//===--- HostCopyIndex.cpp - libtorch-tidy --------------------------------===//

#include "HostCopyIndex.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/ParentWalk.h"

namespace clang::tidy::torch {

namespace {

/// The index's name of the function around \p S, or "" (a lambda's body is
/// not in the index: when it runs is not known).
std::string enclosingUsr(const Stmt *S, ASTContext &Ctx,
                         const FunctionDecl *&Fn) {
  Fn = utils::enclosingFunction(S, Ctx);
  if (!Fn)
    return "";
  if (const auto *MD = dyn_cast<CXXMethodDecl>(Fn);
      MD && MD->getParent()->isLambda())
    return "";
  return utils::usrOf(Fn);
}

} // namespace

IndexedRepeat repeatWithIndex(const utils::RepeatReason &Local, const Stmt *S,
                              ASTContext &Ctx,
                              const utils::ProjectIndex *Index) {
  IndexedRepeat Result{Local, nullptr};
  if (!Index || (Local.Freq == utils::Frequency::Repeated && Local.Loop))
    return Result;
  const FunctionDecl *Fn = nullptr;
  std::string Usr = enclosingUsr(S, Ctx, Fn);
  if (Usr.empty())
    return Result;
  if (const utils::StepReason *Step = Index->perStep(Usr)) {
    // Per step by convention (a forward() nothing calls) is what this file
    // already says.
    if (Local.Freq == utils::Frequency::Repeated || Step->Caller.empty())
      return Result;
    Result.Repeat = {utils::Frequency::Repeated, nullptr, Fn};
    Result.Step = Step;
    return Result;
  }
  if (Index->runsOnce(Usr))
    Result.Repeat = {utils::Frequency::Once, nullptr, nullptr};
  return Result;
}

void noteStepReason(ClangTidyCheck &Check, SourceLocation Loc,
                    const FunctionDecl *Fn, const utils::StepReason &Step) {
  if (!Step.Loop.File.empty()) {
    bool Direct = Step.Caller == Step.LoopFunction;
    Check.diag(Loc,
               "%0 runs per step: %select{called|reached}1 from the loop at "
               "%2:%3 in '%4'%select{|, through '%5' at %6:%7}1",
               DiagnosticIDs::Note)
        << Fn << !Direct << Step.Loop.File << Step.Loop.Line
        << Step.LoopFunction << Step.Caller << Step.Call.File << Step.Call.Line;
    return;
  }
  Check.diag(Loc,
             "%0 runs per step: called from '%1' at %2:%3, which runs per "
             "step",
             DiagnosticIDs::Note)
      << Fn << Step.Caller << Step.Call.File << Step.Call.Line;
}

bool seesOnlyHostTensors(const Stmt *S, ASTContext &Ctx,
                         const utils::ProjectIndex *Index) {
  if (!Index)
    return false;
  const FunctionDecl *Fn = nullptr;
  std::string Usr = enclosingUsr(S, Ctx, Fn);
  utils::CudaReach Reach =
      Usr.empty() ? utils::CudaReach::Unknown : Index->cudaReach(Usr);
  if (Reach == utils::CudaReach::Unknown)
    return !Index->selectsCuda();
  return Reach == utils::CudaReach::No;
}

bool indexReturnsHostData(const FunctionDecl *FD,
                          const utils::ProjectIndex *Index) {
  if (!Index || !FD || FD->getDefinition() || utils::isInTorchNamespace(FD) ||
      utils::isInLibTorchHeader(FD->getLocation(),
                                FD->getASTContext().getSourceManager()))
    return false;
  return Index->returnsHostData(utils::usrOf(FD));
}

} // namespace clang::tidy::torch
