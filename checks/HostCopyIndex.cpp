//===--- HostCopyIndex.cpp - libtorch-tidy --------------------------------===//

#include "HostCopyIndex.h"
#include "HostSyncAnalysis.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/ParentWalk.h"

namespace clang::tidy::torch {

namespace {

/// The function whose own code \p S is; null inside a lambda, whose body
/// runs when the lambda is called, not when it is made (the index does not
/// say when that is).
const FunctionDecl *ownFunction(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 512; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty() || Parents[0].get<LambdaExpr>())
      return nullptr;
    if (const auto *FD = Parents[0].get<FunctionDecl>())
      return FD;
    Cur = Parents[0];
  }
  return nullptr;
}

/// The index's name of the function around \p S, or "".
std::string enclosingUsr(const Stmt *S, ASTContext &Ctx,
                         const FunctionDecl *&Fn) {
  Fn = ownFunction(S, Ctx);
  return Fn ? utils::usrOf(Fn) : "";
}

/// A method of a class that names CUDA in one of its methods here: the
/// device is often a member its constructor chooses (`device == "cuda" ?
/// kCUDA : kCPU`), which the index's call graph does not follow to the
/// other methods.
bool classNamesCuda(const FunctionDecl *Fn, ASTContext &Ctx) {
  const auto *MD = dyn_cast_or_null<CXXMethodDecl>(Fn);
  if (!MD)
    return false;
  for (const Decl *D : MD->getParent()->decls()) {
    const auto *M = dyn_cast<CXXMethodDecl>(D);
    const FunctionDecl *Def = M ? M->getDefinition() : nullptr;
    if (Def && hostsync::mentionsCuda(Def, Ctx, Ctx.getSourceManager()))
      return true;
  }
  return false;
}

} // namespace

IndexedRepeat repeatWithIndex(const utils::RepeatReason &Local, const Stmt *S,
                              ASTContext &Ctx,
                              const utils::ProjectIndex *Index) {
  IndexedRepeat Result{Local, nullptr};
  // What this file shows to repeat keeps its own reason.
  if (!Index || Local.Freq == utils::Frequency::Repeated)
    return Result;
  const FunctionDecl *Fn = nullptr;
  std::string Usr = enclosingUsr(S, Ctx, Fn);
  if (Usr.empty())
    return Result;
  if (const utils::StepReason *Step = Index->perStep(Usr)) {
    // Per step by convention (a forward() nothing calls) is what this file
    // already says.
    if (Step->Caller.empty())
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
    return Index->neverSelectsCuda();
  return Reach == utils::CudaReach::No && !classNamesCuda(Fn, Ctx);
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
