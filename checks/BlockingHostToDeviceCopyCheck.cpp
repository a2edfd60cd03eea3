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
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/TorchUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

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

/// A tensor a factory makes on the host (`torch::randn(...)`, directly or
/// through a variable): creating it on the device is the better fix, and
/// torch-host-tensor-to-device offers it. Host data (`from_blob`, `tensor`
/// of a container) stays with this check.
bool isMadeByFactory(const Expr *E, unsigned Depth = 0) {
  E = ignoreWrappers(E);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    return VD && VD->getInit() && Depth < MaxInitDepth &&
           isMadeByFactory(VD->getInit(), Depth + 1);
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD || !utils::isTensorFactory(FD) || FD->getName() == "from_blob")
    return false;
  if (FD->getName() == "tensor")
    return CE->getNumArgs() && isa<InitListExpr, CXXStdInitializerListExpr>(
                                   ignoreWrappers(CE->getArg(0)));
  return true;
}

} // namespace

void BlockingHostToDeviceCopyCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto TensorClass =
      cxxRecordDecl(hasAnyName("::at::Tensor", "::at::TensorBase"));
  auto Loop = stmt(anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt()));
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasAnyName("to", "cuda"), ofClass(TensorClass))),
          hasAncestor(Loop.bind("loop")), unless(isInTemplateInstantiation()))
          .bind("copy"),
      this);
}

void BlockingHostToDeviceCopyCheck::check(
    const MatchFinder::MatchResult &Result) {
  const auto *Copy = Result.Nodes.getNodeAs<CXXMemberCallExpr>("copy");
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  const LangOptions &LO = getLangOpts();
  if (utils::isInLibTorchHeader(Copy->getBeginLoc(), SM))
    return;
  // `do { } while (false)` is a macro idiom, not a loop.
  if (utils::isRunOnceLoop(Loop, Ctx))
    return;
  utils::DeviceAnalysis Devices(Ctx);
  const CXXMethodDecl *Method = Copy->getMethodDecl();
  const bool IsCuda = Method->getName() == "cuda";
  if (IsCuda && Copy->getNumArgs() != 0)
    return;
  const Expr *Target = nullptr;
  if (!IsCuda) {
    // to(TensorOptions options, bool non_blocking, ...) with a device.
    Target = utils::deviceTargetOfTo(Copy);
    if (!Target || Devices.ofDevice(Target) == DeviceKind::Cpu)
      return;
    // non_blocking already requested.
    if (Copy->getNumArgs() > 1 && !isa<CXXDefaultArgExpr>(Copy->getArg(1))) {
      bool NonBlocking = true;
      if (!Copy->getArg(1)->EvaluateAsBooleanCondition(NonBlocking, Ctx) ||
          NonBlocking)
        return;
    }
  }
  // Host data, per step, not pinned.
  const Expr *Source = Copy->getImplicitObjectArgument();
  if (isPinned(Source) || isMadeByFactory(Source))
    return;
  if (Devices.ofTensor(Source) != DeviceKind::Cpu)
    return;

  unsigned LoopLine = SM.getExpansionLineNumber(Loop->getBeginLoc());
  utils::recordPayload("torch-blocking-host-to-device-copy", Copy->getExprLoc(),
                       Loop, /*IsLoop=*/true, Ctx);
  auto Diag = diag(Copy->getExprLoc(),
                   "blocking copy of host data to the device in every "
                   "iteration of the loop at line %0; pin the source and "
                   "copy with non_blocking=true so the copy overlaps with "
                   "the computation")
              << LoopLine;
  if (Copy->getBeginLoc().isMacroID() || Copy->getEndLoc().isMacroID())
    return;
  std::string Ns = utils::torchNamespace(Ctx);
  // Pinning needs CUDA: a LibTorch without it throws. Where the target may be
  // the CPU at run time, pin only when it is not.
  if (IsCuda || Devices.ofDevice(Target) == DeviceKind::Cuda) {
    Diag << FixItHint::CreateInsertion(
        Lexer::getLocForEndOfToken(Source->getEndLoc(), 0, SM, LO),
        ".pin_memory()");
  } else {
    auto text = [&](const Expr *E) {
      return utils::sourceText(E->getSourceRange(), SM, LO);
    };
    std::string Src = text(Source);
    std::string IsCudaTest =
        isa<DeclRefExpr>(Target) && isRecordNamed(Target->getType(), "Device")
            ? text(Target) + ".is_cuda()"
            : Ns + "::Device(" + text(Target) + ").is_cuda()";
    Diag << FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Source->getSourceRange()),
        "(" + IsCudaTest + " ? " + Src + ".pin_memory() : " + Src + ")");
  }
  if (IsCuda) {
    Diag << FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Copy->getExprLoc(),
                                       Copy->getRParenLoc()),
        "to(" + Ns + "::kCUDA, /*non_blocking=*/true)");
    return;
  }
  if (Copy->getNumArgs() > 1 && !isa<CXXDefaultArgExpr>(Copy->getArg(1))) {
    Diag << FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(Copy->getArg(1)->getSourceRange()),
        "true");
    return;
  }
  Diag << FixItHint::CreateInsertion(
      Lexer::getLocForEndOfToken(Copy->getArg(0)->getEndLoc(), 0, SM, LO),
      ", /*non_blocking=*/true");
}

} // namespace clang::tidy::torch
