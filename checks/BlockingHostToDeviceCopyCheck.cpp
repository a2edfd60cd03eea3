//===--- BlockingHostToDeviceCopyCheck.cpp - libtorch-tidy ----------------===//
//
// A copy from pageable host memory to the device goes through a staging
// buffer and makes the host wait. From pinned memory with non_blocking=true it
// is a DMA that overlaps with the kernels already queued. The check reports
// such copies of per-step host data (a data loader's batch, a tensor provably
// on the CPU) inside loops. It never touches device-to-host copies: a
// non-blocking `.cpu()` would be read before it is complete.
//
//===----------------------------------------------------------------------===//

#include "BlockingHostToDeviceCopyCheck.h"
#include "TorchTidyModule.h"
#include "HostCopyIndex.h"
#include "HostDataAnalysis.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using hostdata::ActiveIndexScope;
using hostdata::isHostData;
using utils::DeviceKind;
using utils::ignoreWrappers;
using utils::isEnumNamed;
using utils::isRecordNamed;

namespace {

/// How many variables deep isPinned and isMadeByFactory follow
/// initializers: `torch::Tensor T = T;` compiles, and initializes T with
/// itself.
constexpr unsigned MaxInitDepth = 8;

/// The source was pinned: `.pin_memory()`, or a variable made by it.
bool isPinned(const Expr *E, unsigned Depth = 0) {
  E = ignoreWrappers(E);
  if (const CXXMethodDecl *M = utils::tensorMethod(E))
    return M->getName() == "pin_memory";
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
        VD && VD->getInit() && Depth < MaxInitDepth)
      return isPinned(VD->getInit(), Depth + 1);
  return false;
}

/// The device of a blocking copy to a device: null for `.cuda()`;
/// std::nullopt when \p Copy is no such copy (a move to the CPU, a dtype
/// conversion, non_blocking already requested).
std::optional<const Expr *> blockingCopyTarget(const CXXMemberCallExpr *Copy,
                                               utils::DeviceAnalysis &Devices,
                                               ASTContext &Ctx) {
  if (Copy->getMethodDecl()->getName() == "cuda")
    return Copy->getNumArgs() == 0 ? std::optional<const Expr *>(nullptr)
                                   : std::nullopt;
  // to(TensorOptions options, bool non_blocking, ...) with a device, or
  // with options that carry one (`pred.options()`).
  const Expr *Target = utils::deviceTargetOfTo(Copy);
  if (!Target)
    Target = utils::optionsTargetOfTo(Copy, Ctx);
  if (!Target || Devices.ofDevice(Target) == DeviceKind::Cpu)
    return std::nullopt;
  if (Copy->getNumArgs() > 1 && !isa<CXXDefaultArgExpr>(Copy->getArg(1))) {
    bool NonBlocking = true;
    if (!Copy->getArg(1)->EvaluateAsBooleanCondition(NonBlocking, Ctx) ||
        NonBlocking)
      return std::nullopt;
  }
  return Target;
}

template <typename Range> bool hasOneElement(Range &&R) {
  return std::distance(R.begin(), R.end()) == 1;
}

/// Whether \p FD is not an instantiation, or its template's only one: what
/// a template (`template <typename DataLoader> void train(...)`) does is
/// decided on its only instantiation, as for the code written out. With
/// several, one instantiation's host data may be another's device tensor.
bool isOnlyInstantiation(const FunctionDecl *FD) {
  if (!FD)
    return false;
  if (const FunctionTemplateDecl *T = FD->getPrimaryTemplate();
      T && !hasOneElement(T->specializations()))
    return false;
  if (const auto *Spec =
          dyn_cast<ClassTemplateSpecializationDecl>(FD->getDeclContext()))
    return hasOneElement(Spec->getSpecializedTemplate()->specializations());
  return true;
}

/// \p Text, in parentheses unless \p E is a name, a call or a member.
std::string parenthesized(const Expr *E, const std::string &Text) {
  if (isa<DeclRefExpr, CallExpr, MemberExpr, ParenExpr>(ignoreWrappers(E)))
    return Text;
  return "(" + Text + ")";
}

/// The fix-its of a blocking copy to \p Target (null for `.cuda()`): pin
/// the source and copy with non_blocking=true.
llvm::SmallVector<FixItHint, 3> copyFixes(const CXXMemberCallExpr *Copy,
                                          const Expr *Target,
                                          utils::DeviceAnalysis &Devices,
                                          ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  const bool IsCuda = Copy->getMethodDecl()->getName() == "cuda";
  const Expr *Source = Copy->getImplicitObjectArgument();
  std::string Ns = utils::torchNamespace(Ctx);
  llvm::SmallVector<FixItHint, 3> Fixes;
  // Pinning needs CUDA: a LibTorch without it throws. Where the target may be
  // the CPU at run time, pin only when it is not.
  if (IsCuda || Devices.ofDevice(Target) == DeviceKind::Cuda) {
    Fixes.push_back(FixItHint::CreateInsertion(
        Lexer::getLocForEndOfToken(Source->getEndLoc(), 0, SM, LO),
        ".pin_memory()"));
  } else {
    auto Text = [&](const Expr *E) {
      return utils::sourceText(E->getSourceRange(), SM, LO);
    };
    std::string Src = Text(Source);
    std::string IsCudaTest;
    if (isRecordNamed(ignoreWrappers(Target)->getType(), "TensorOptions"))
      IsCudaTest = parenthesized(Target, Text(Target)) + ".device().is_cuda()";
    else if (isa<DeclRefExpr>(Target) &&
             isRecordNamed(Target->getType(), "Device"))
      IsCudaTest = Text(Target) + ".is_cuda()";
    else
      IsCudaTest = Ns + "::Device(" + Text(Target) + ").is_cuda()";
    Fixes.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Source->getSourceRange()),
        "(" + IsCudaTest + " ? " + Src + ".pin_memory() : " + Src + ")"));
  }
  if (IsCuda) {
    Fixes.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Copy->getExprLoc(),
                                       Copy->getRParenLoc()),
        "to(" + Ns + "::kCUDA, /*non_blocking=*/true)"));
  } else if (Copy->getNumArgs() > 1 &&
             !isa<CXXDefaultArgExpr>(Copy->getArg(1))) {
    Fixes.push_back(FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Copy->getArg(1)->getSourceRange()),
        "true"));
  } else {
    Fixes.push_back(FixItHint::CreateInsertion(
        Lexer::getLocForEndOfToken(Copy->getArg(0)->getEndLoc(), 0, SM, LO),
        ", /*non_blocking=*/true"));
  }
  return Fixes;
}

} // namespace

void BlockingHostToDeviceCopyCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto TensorClass =
      cxxRecordDecl(hasAnyName("::at::Tensor", "::at::TensorBase"));
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasAnyName("to", "cuda"), ofClass(TensorClass))))
          .bind("copy"),
      this);
}

void BlockingHostToDeviceCopyCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *Copy = Result.Nodes.getNodeAs<CXXMemberCallExpr>("copy");
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  if (utils::isInLibTorchHeader(Copy->getBeginLoc(), SM))
    return;
  utils::DeviceAnalysis Devices(Ctx);
  std::optional<const Expr *> MaybeTarget =
      blockingCopyTarget(Copy, Devices, Ctx);
  if (!MaybeTarget)
    return;
  const Expr *Target = *MaybeTarget;
  const utils::ProjectIndex *Index = projectIndex(SM);
  if (!isPerStepHostData(Copy, Devices, Index, Ctx))
    return;
  // Per step: in a loop, or in a function that runs in one. A copy in a
  // constructor's member initializers is the object's set-up, per step only
  // where the object is constructed in a loop.
  if (!Frequency || FrequencyContext != &Ctx) {
    Frequency = std::make_unique<utils::RunFrequency>(Ctx);
    FrequencyContext = &Ctx;
  }
  IndexedRepeat Indexed =
      repeatWithIndex(Frequency->ofStmt(Copy), Copy, Ctx, Index);
  const utils::RepeatReason &Repeat = Indexed.Repeat;
  if (Repeat.Freq != utils::Frequency::Repeated)
    return;
  // Code that only ever sees host tensors copies nothing to a device
  // unless it names CUDA itself.
  if ((!Target || Devices.ofDevice(Target) != DeviceKind::Cuda) &&
      Copy->getMethodDecl()->getName() != "cuda" &&
      seesOnlyHostTensors(Copy, Ctx, Index))
    return;
  if (!isOnlyInstantiation(utils::enclosingFunction(Copy, Ctx)) ||
      !ReportedInTemplates.insert(Copy->getExprLoc()).second)
    return;
  report(Copy, Target, Indexed, Devices, Ctx);
}

/// Host data, not pinned, and not a factory's tensor (that one is
/// torch-host-tensor-to-device's: made on the device, it needs no copy).
bool BlockingHostToDeviceCopyCheck::isPerStepHostData(
    const CXXMemberCallExpr *Copy, utils::DeviceAnalysis &Devices,
    const utils::ProjectIndex *Index, ASTContext &Ctx) {
  const Expr *Source = Copy->getImplicitObjectArgument();
  if (isPinned(Source) || hostFactoryBehind(Source, Ctx))
    return false;
  ActiveIndexScope Scope(Index);
  return isHostData(Source, Devices, Ctx);
}

void BlockingHostToDeviceCopyCheck::report(const CXXMemberCallExpr *Copy,
                                           const Expr *Target,
                                           const IndexedRepeat &Indexed,
                                           utils::DeviceAnalysis &Devices,
                                           ASTContext &Ctx) {
  const utils::RepeatReason &Repeat = Indexed.Repeat;
  if (Repeat.Loop && !Repeat.Through)
    utils::recordPayload(getID(),
                         Copy->getExprLoc(), Repeat.Loop, /*IsLoop=*/true, Ctx);
  else
    utils::recordStatementPayload(getID(),
                                  Copy->getExprLoc(), Copy, Ctx);
  {
    auto Diag = diag(Copy->getExprLoc(),
                     "blocking copy of host data to the device %0; pin the "
                     "source and copy with non_blocking=true so the copy "
                     "overlaps with the computation")
                << utils::describeRepeat(Repeat);
    if (!Copy->getBeginLoc().isMacroID() && !Copy->getEndLoc().isMacroID())
      for (const FixItHint &Fix : copyFixes(Copy, Target, Devices, Ctx))
        Diag << Fix;
  }
  if (Repeat.Loop)
    diag(Repeat.Loop->getBeginLoc(), utils::RepeatLoopNote,
         DiagnosticIDs::Note);
  if (Indexed.Step)
    noteStepReason(*this, Copy->getExprLoc(), Repeat.Through, *Indexed.Step);
}

TORCH_TIDY_CHECK_FACTORY(BlockingHostToDeviceCopyCheck)

} // namespace clang::tidy::torch
