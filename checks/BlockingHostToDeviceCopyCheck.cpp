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
#include "HostTensorToDeviceCheck.h"
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

/// How many calls and variables deep isHostData follows the source.
constexpr unsigned MaxSourceDepth = 8;

/// The project index of the copy being checked, for isHostData: the values
/// of functions of other files that return host data. Set only while
/// check() runs (clang-tidy checks one translation unit at a time).
const utils::ProjectIndex *ActiveIndex = nullptr;

class ActiveIndexScope {
public:
  explicit ActiveIndexScope(const utils::ProjectIndex *Index) {
    ActiveIndex = Index;
  }
  ~ActiveIndexScope() { ActiveIndex = nullptr; }
};

bool isHostData(const Expr *E, utils::DeviceAnalysis &Devices, ASTContext &Ctx,
                unsigned Depth = 0);

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
      const auto *Other = ArgRef ? dyn_cast<VarDecl>(ArgRef->getDecl()) : nullptr;
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
  const auto *Container =
      dyn_cast<MemberExpr>(Take->getImplicitObjectArgument()->IgnoreParenImpCasts());
  if (!Container || !isa<CXXThisExpr>(Container->getBase()->IgnoreParenImpCasts()))
    return false;
  const auto *Field = dyn_cast<FieldDecl>(Container->getMemberDecl());
  return Field &&
         containerHoldsHostData(Field, Index, Devices, Ctx, Depth + 1);
}

/// Host data the project loads itself: what DeviceAnalysis proves on the
/// CPU, and also the values of its own load and collate functions, through
/// local variables and the ops that keep the device.
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
    return Value && isHostData(Value, Devices, Ctx, Depth + 1);
  }
  if (const CXXMethodDecl *M = utils::tensorMethod(E)) {
    // Ops on a tensor keep its device; to() and cuda() may change it.
    llvm::StringRef Name = M->getName();
    if (Name == "to" || Name == "cuda" ||
        !utils::isTensorType(M->getReturnType()))
      return false;
    return isHostData(cast<CXXMemberCallExpr>(E)->getImplicitObjectArgument(),
                      Devices, Ctx, Depth + 1);
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
  if (!FD)
    return false;
  return stacksHostData(CE, Devices, Ctx, Depth) ||
         returnsHostData(FD, Devices, Ctx, Depth) ||
         indexReturnsHostData(FD, ActiveIndex);
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
  // to(TensorOptions options, bool non_blocking, ...) with a device.
  const Expr *Target = utils::deviceTargetOfTo(Copy);
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
    std::string IsCudaTest =
        isa<DeclRefExpr>(Target) && isRecordNamed(Target->getType(), "Device")
            ? Text(Target) + ".is_cuda()"
            : Ns + "::Device(" + Text(Target) + ").is_cuda()";
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

bool isHostDataValue(const Expr *E, ASTContext &Ctx) {
  utils::DeviceAnalysis Devices(Ctx);
  return isHostData(E, Devices, Ctx);
}

TORCH_TIDY_CHECK_FACTORY(BlockingHostToDeviceCopyCheck)

} // namespace clang::tidy::torch
