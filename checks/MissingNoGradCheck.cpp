//===--- MissingNoGradCheck.cpp - libtorch-tidy ---------------------------===//
//
// A forward pass with autograd on records the graph of every operation and
// keeps the activations the backward pass would need. Evaluation never runs
// that backward pass: the memory and the bookkeeping are wasted. The check
// reports forward passes in code that is evaluation by its shape (after
// eval(), in a loop over a test or validation loader, in a function named
// for inference that never needs gradients) when no guard turns autograd
// off around them, around every call of their function, or inside the
// forward() they run.
//
//===----------------------------------------------------------------------===//

#include "MissingNoGradCheck.h"
#include "TorchTidyModule.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "utils/AutogradFlow.h"
#include "utils/AutogradGuards.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/FreshName.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/ParentWalk.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxCallerDepth = 3;

enum class Why {
  AfterEval,
  TestLoop,
  EvalFunction,
  LoadedWeights,
  HostReads,
  Detached
};

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

bool isModuleClass(const CXXRecordDecl *RD) {
  return utils::isSameOrDerivedFrom(RD, "torch::nn::Module") ||
         utils::isSameOrDerivedFrom(RD, "torch::jit::Module");
}

/// eval() or train(false) on a module: true; train() or train(true):
/// false; anything else: std::nullopt.
std::optional<bool> evalModeCall(const CXXMemberCallExpr *MC, ASTContext &Ctx) {
  const CXXMethodDecl *M = MC->getMethodDecl();
  if (!M || !M->getIdentifier() || !isModuleClass(M->getParent()))
    return std::nullopt;
  if (M->getName() == "eval")
    return true;
  if (M->getName() != "train")
    return std::nullopt;
  if (MC->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(MC->getArg(0)))
    return false;
  std::optional<bool> On = utils::provableBool(MC->getArg(0), Ctx);
  if (!On)
    return std::nullopt;
  return !*On;
}

/// The last eval() of the function before \p Call, when no train() comes
/// between them in the source.
const CXXMemberCallExpr *evalBefore(const Expr *Call, const Stmt *Body,
                                    ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  const CXXMemberCallExpr *Last = nullptr;
  SourceLocation LastLoc;
  for (const BoundNodes &N :
       match(findAll(cxxMemberCallExpr().bind("mc")), *Body, Ctx)) {
    const auto *MC = N.getNodeAs<CXXMemberCallExpr>("mc");
    SourceLocation Loc = MC->getBeginLoc();
    if (!SM.isBeforeInTranslationUnit(Loc, Call->getBeginLoc()) ||
        (LastLoc.isValid() && SM.isBeforeInTranslationUnit(Loc, LastLoc)))
      continue;
    std::optional<bool> Eval = evalModeCall(MC, Ctx);
    if (!Eval)
      continue;
    Last = *Eval ? MC : nullptr;
    LastLoc = Loc;
  }
  return Last;
}

/// The name of a variable or member that the range of a range-for over a
/// test or validation loader names ("test_loader", "*val_loader").
std::string evaluationLoader(const CXXForRangeStmt *For, ASTContext &Ctx) {
  const Expr *Range = For->getRangeInit();
  if (!Range)
    return "";
  for (const BoundNodes &N :
       match(findAll(expr(anyOf(declRefExpr(), memberExpr())).bind("ref")),
             *Range, Ctx)) {
    const auto *E = N.getNodeAs<Expr>("ref");
    const NamedDecl *D = nullptr;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
      D = DRE->getDecl();
    else
      D = cast<MemberExpr>(E)->getMemberDecl();
    if (!isa<VarDecl, FieldDecl>(D) || !D->getIdentifier())
      continue;
    if (utils::hasWord(D->getName(), {"test", "val", "valid", "validation",
                                      "eval", "evaluation"}))
      return D->getNameAsString();
  }
  return "";
}

bool isEvaluationName(const FunctionDecl *FD) {
  if (!FD->getIdentifier() || FD->getName() == "TestBody")
    return false;
  return utils::hasWord(FD->getName(),
                        {"predict", "prediction", "infer", "inference",
                         "evaluate", "evaluation", "eval", "test", "testing",
                         "validate", "validation", "valid"});
}

/// The text before \p Loc on its line when it is all blanks, else
/// std::nullopt.
std::optional<std::string> indentOf(SourceLocation Loc,
                                    const SourceManager &SM) {
  auto [FID, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buf = SM.getBufferData(FID);
  size_t LineStart = Buf.rfind('\n', Offset ? Offset - 1 : 0);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  if (Offset < LineStart)
    LineStart = Offset;
  StringRef Before = Buf.slice(LineStart, Offset);
  if (!Before.trim().empty())
    return std::nullopt;
  return Before.str();
}

/// The variable, parameter or member a forward call's module is reached
/// from: `m` for `m->encoder->forward(x)`, `model_` for `model_(x)`.
const ValueDecl *moduleRoot(const Expr *Call) {
  const Expr *Obj = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call))
    Obj = MC->getImplicitObjectArgument();
  else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call))
    Obj = OC->getNumArgs() ? OC->getArg(0) : nullptr;
  for (unsigned Steps = 0; Obj && Steps < 8; ++Steps) {
    Obj = Obj->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Obj))
      return Ref->getDecl();
    if (const auto *ME = dyn_cast<MemberExpr>(Obj)) {
      if (isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()))
        return ME->getMemberDecl();
      Obj = ME->getBase();
    } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Obj);
               OC && OC->getOperator() == OO_Arrow) {
      Obj = OC->getArg(0);
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Obj)) {
      Obj = MC->getImplicitObjectArgument();
    } else {
      return nullptr;
    }
  }
  return nullptr;
}

bool mentions(const Stmt *S, const ValueDecl *D, ASTContext &Ctx) {
  return S &&
         !match(stmt(anyOf(hasDescendant(declRefExpr(to(equalsNode(D)))),
                           hasDescendant(memberExpr(member(equalsNode(D)))),
                           declRefExpr(to(equalsNode(D))),
                           memberExpr(member(equalsNode(D))))),
                *S, Ctx)
              .empty();
}

/// A call that loads weights (a callee named load or restore) into the
/// module reached from \p Root: it names Root in its arguments or its
/// object, or its object was built from Root (`Loader L(model); L.load(p)`).
bool loadsInto(const CallExpr *Call, const ValueDecl *Root, ASTContext &Ctx) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || !FD->getIdentifier() ||
      !utils::hasWord(FD->getName(), {"load", "restore"}))
    return false;
  for (const Expr *Arg : Call->arguments())
    if (mentions(Arg, Root, Ctx))
      return true;
  const auto *MC = dyn_cast<CXXMemberCallExpr>(Call);
  const Expr *Obj = MC ? MC->getImplicitObjectArgument() : nullptr;
  if (!Obj)
    return false;
  if (mentions(Obj, Root, Ctx))
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(Obj->IgnoreParenImpCasts());
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return VD && VD->hasLocalStorage() && mentions(VD->getInit(), Root, Ctx);
}

/// The call before \p Call in \p Body that loads trained weights into the
/// module \p Call runs: torch::load(model, path), a checkpoint helper's
/// load() over the model, or the torch::jit::load() that made the module.
const CallExpr *weightsLoadBefore(const Expr *Call, const Stmt *Body,
                                  ASTContext &Ctx) {
  const ValueDecl *Root = moduleRoot(Call);
  if (!Root)
    return nullptr;
  if (const auto *VD = dyn_cast<VarDecl>(Root);
      VD && VD->hasLocalStorage() && VD->getInit())
    for (const BoundNodes &N :
         match(findAll(callExpr().bind("c")), *VD->getInit(), Ctx)) {
      const auto *C = N.getNodeAs<CallExpr>("c");
      const FunctionDecl *FD = C->getDirectCallee();
      if (FD && FD->getIdentifier() && utils::hasWord(FD->getName(), {"load"}))
        return C;
    }
  const SourceManager &SM = Ctx.getSourceManager();
  // `model = torch::jit::load(path);`
  auto Loaded = callExpr(callee(functionDecl(hasName("load")))).bind("c");
  auto HasLoad = ignoringImplicit(expr(anyOf(Loaded, hasDescendant(Loaded))));
  auto ToRoot = declRefExpr(to(equalsNode(Root)));
  for (const BoundNodes &N : match(
           findAll(expr(anyOf(
               cxxOperatorCallExpr(hasOverloadedOperatorName("="),
                                   hasArgument(0, ToRoot),
                                   hasArgument(1, HasLoad)),
               binaryOperator(isAssignmentOperator(), hasLHS(ToRoot),
                              hasRHS(HasLoad))))),
           *Body, Ctx)) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    if (SM.isBeforeInTranslationUnit(C->getBeginLoc(), Call->getBeginLoc()))
      return C;
  }
  for (const BoundNodes &N : match(findAll(callExpr().bind("c")), *Body, Ctx)) {
    const auto *C = N.getNodeAs<CallExpr>("c");
    if (SM.isBeforeInTranslationUnit(C->getBeginLoc(), Call->getBeginLoc()) &&
        loadsInto(C, Root, Ctx))
      return C;
  }
  return nullptr;
}

/// A forward pass followed, in its block, by an explicit device synchronize:
/// a warm-up or a timed run of a benchmark, which measures the forward as
/// it is written.
bool isTimedRun(const Expr *Call, ASTContext &Ctx) {
  // The statement of the innermost block that holds the call, through the
  // declaration of a local it initializes.
  DynTypedNode Cur = DynTypedNode::create(*Call);
  const Stmt *Statement = Call;
  const CompoundStmt *Block = nullptr;
  for (unsigned Steps = 0; !Block && Steps < 64; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      return false;
    if (const auto *P = Parents[0].get<CompoundStmt>())
      Block = P;
    else if (const auto *P = Parents[0].get<Stmt>())
      Statement = P;
    Cur = Parents[0];
  }
  if (!Block)
    return false;
  auto Sync = callExpr(callee(functionDecl(hasAnyName(
      "::torch::cuda::synchronize", "::c10::cuda::device_synchronize",
      "::cudaDeviceSynchronize", "::cudaStreamSynchronize"))));
  bool After = false;
  for (const Stmt *S : Block->body()) {
    if (After && !match(stmt(anyOf(Sync, hasDescendant(Sync))), *S, Ctx)
                      .empty())
      return true;
    After = After || S == Statement;
  }
  return false;
}

/// A call whose result is thrown away: a statement of its own.
bool isDiscarded(const Expr *E, ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*E);
  for (unsigned Steps = 0; Steps < 8; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.size() != 1)
      return false;
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P)
      return false;
    if (isa<CompoundStmt>(P))
      return true;
    if (!isa<ExprWithCleanups, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
             ImplicitCastExpr>(P))
      return false;
    Cur = Parents[0];
  }
  return false;
}

/// A function whose result cannot carry a graph to its callers.
bool returnsNoTensor(const FunctionDecl *FD) {
  QualType T = FD->getReturnType();
  return T->isVoidType() || T->isBuiltinType() || T->isEnumeralType();
}

bool holdsTensors(QualType T, unsigned Depth = 0);

/// A template argument that is, or a pack (std::tuple's) that holds, such a
/// type.
bool argumentHoldsTensors(const TemplateArgument &Arg, unsigned Depth) {
  if (Arg.getKind() == TemplateArgument::Pack)
    return llvm::any_of(Arg.pack_elements(), [&](const TemplateArgument &A) {
      return argumentHoldsTensors(A, Depth);
    });
  return Arg.getKind() == TemplateArgument::Type &&
         holdsTensors(Arg.getAsType(), Depth + 1);
}

/// Whether a value of type \p T can carry tensors: a tensor or an IValue, a
/// container, tuple or pair of them, or a struct with such a field.
bool holdsTensors(QualType T, unsigned Depth) {
  T = T.getNonReferenceType();
  if (utils::isTensorType(T))
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  if (!RD || Depth > 3)
    return false;
  if (RD->getIdentifier() && RD->getName() == "IValue")
    return true;
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD))
    for (const TemplateArgument &Arg : Spec->getTemplateArgs().asArray())
      if (argumentHoldsTensors(Arg, Depth))
        return true;
  if (!RD->hasDefinition() || RD->isInStdNamespace())
    return false;
  return llvm::any_of(RD->fields(), [&](const FieldDecl *F) {
    return holdsTensors(F->getType(), Depth + 1);
  });
}

/// Whether \p S is \p Outer or inside it, in the same function.
bool encloses(const Stmt *Outer, const Stmt *S, ASTContext &Ctx) {
  if (!Outer)
    return false;
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    if (Cur.get<Stmt>() == Outer)
      return true;
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty() || Parents[0].get<FunctionDecl>() ||
        Parents[0].get<LambdaExpr>())
      return false;
    Cur = Parents[0];
  }
  return false;
}

/// The statement after the one that holds \p Eval, in the innermost block
/// around \p Eval that also holds \p Call: a guard there covers \p Call
/// and nothing before eval(). Null where eval() and \p Call share a
/// statement of that block.
const Stmt *statementAfterEval(const Expr *Eval, const Expr *Call,
                               ASTContext &Ctx) {
  auto [EvalStmt, Block] = utils::statementInBlock(Eval, Ctx);
  while (Block && !encloses(Block, Call, Ctx))
    std::tie(EvalStmt, Block) = utils::statementInBlock(Block, Ctx);
  if (!Block || encloses(EvalStmt, Call, Ctx))
    return nullptr;
  for (auto It = Block->body_begin(); It != Block->body_end(); ++It)
    if (*It == EvalStmt && It + 1 != Block->body_end())
      return *(It + 1);
  return nullptr;
}

/// The expression a guard in a lambda covers: what the pass's value
/// reaches before its graph ends, unless that is a direct initialization,
/// whose source range is not the value's alone.
const Expr *scopedGuardTarget(const utils::HostReadFacts &Facts,
                              ASTContext &Ctx) {
  if (!Facts.Reach)
    return nullptr;
  DynTypedNodeList Parents = Ctx.getParents(*Facts.Reach);
  const auto *VD = Parents.size() == 1 ? Parents[0].get<VarDecl>() : nullptr;
  if (!VD)
    return Facts.Reach;
  return VD->getInitStyle() == VarDecl::CInit
             ? Facts.Reach->IgnoreUnlessSpelledInSource()
             : nullptr;
}
} // namespace

struct MissingNoGradCheck::Context {
  const FunctionDecl *Fn = nullptr;
  const Stmt *Body = nullptr;
  Why Reason = Why::EvalFunction;
  const CXXMemberCallExpr *Eval = nullptr;
  /// The call that loaded the module's weights.
  const CallExpr *Load = nullptr;
  /// The innermost loop around the call, in its function.
  const Stmt *Loop = nullptr;
  /// Where the region around the call trains: the outermost block that
  /// holds the call and needs no gradients (a checkpoint's sample pass in a
  /// training loop), which the guard opens.
  const CompoundStmt *Block = nullptr;
  /// Where no such block exists: the expression a guard in a lambda
  /// covers alone (a target network's pass, detached in the step).
  const Expr *Scoped = nullptr;
  std::string Name;
};

MissingNoGradCheck::MissingNoGradCheck(StringRef Name,
                                       ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      Guard(Options.get("Guard", "NoGradGuard").str()) {
  if (Guard != "NoGradGuard" && Guard != "InferenceMode")
    configurationDiag("invalid Guard '%0' for check '%1': expected "
                      "'NoGradGuard' or 'InferenceMode'")
        << Guard << Name;
}

void MissingNoGradCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "Guard", Guard);
}

void MissingNoGradCheck::onStartOfTranslationUnit() {
  Training.reset();
  Calls.reset();
  Reported.clear();
  Inserted.clear();
  Wrapped.clear();
}

void MissingNoGradCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto ModuleClass = cxxRecordDecl(anyOf(
      isSameOrDerivedFrom(hasName("::torch::nn::Module")),
      isSameOrDerivedFrom(hasName("::torch::jit::Module"))));
  // AnyModule::forward runs the module it holds (a DQN's type-erased
  // online and target networks).
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(
              hasName("forward"),
              ofClass(cxxRecordDecl(anyOf(
                  ModuleClass, hasName("::torch::nn::AnyModule")))))))
          .bind("forward"),
      this);
  Finder->addMatcher(
      cxxOperatorCallExpr(
          utils::isOutsideLibTorch(), hasOverloadedOperatorName("()"),
          callee(cxxMethodDecl(ofClass(classTemplateSpecializationDecl(
              hasName("::torch::nn::ModuleHolder"))))))
          .bind("forward"),
      this);
}

bool MissingNoGradCheck::isEvaluation(const Expr *Call, const FunctionDecl *FD,
                                      Context &C) {
  C.Fn = FD;
  C.Body = FD->getBody();
  // The innermost loop, and the first test loop, around the call.
  DynTypedNode Cur = DynTypedNode::create(*Call);
  std::string Loader;
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx->getParents(Cur);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      break;
    const Stmt *P = Parents[0].get<Stmt>();
    if (P && isLoop(P) && !utils::isRunOnceLoop(P, *Ctx) && !C.Loop)
      C.Loop = P;
    if (const auto *For = dyn_cast_or_null<CXXForRangeStmt>(P);
        For && Loader.empty() && Cur.get<Stmt>() == For->getBody())
      Loader = evaluationLoader(For, *Ctx);
    Cur = Parents[0];
  }
  const Stmt *Region = C.Loop ? C.Loop : C.Body;
  if ((C.Eval = evalBefore(Call, C.Body, *Ctx))) {
    C.Reason = Why::AfterEval;
    // Gradients needed before eval() are the training before evaluation.
    if (!C.Loop) {
      const SourceManager &SM = Ctx->getSourceManager();
      for (const BoundNodes &N :
           match(findAll(callExpr().bind("c")), *C.Body, *Ctx)) {
        const auto *Other = N.getNodeAs<CallExpr>("c");
        if (SM.isBeforeInTranslationUnit(C.Eval->getBeginLoc(),
                                         Other->getBeginLoc()) &&
            Training->needsGradientsIn(Other))
          return false;
      }
      return true;
    }
    return idleAround(Call, Region, C);
  }
  if (!Loader.empty()) {
    C.Reason = Why::TestLoop;
    C.Name = Loader;
    return idleAround(Call, Region, C);
  }
  // A function that trains after all may still hold a pass that only the
  // host reads (below).
  if (isEvaluationName(FD) &&
      (!holdsTensors(FD->getReturnType()) || callersOnlyReadOnHost(FD)) &&
      !Training->needsGradientsIn(C.Body)) {
    C.Reason = Why::EvalFunction;
    C.Name = FD->getNameAsString();
    return true;
  }
  // A function that loads trained weights into the module, runs it and
  // keeps no graph for its callers: inference, whatever its name.
  if (returnsNoTensor(FD) && !Training->needsGradientsIn(C.Body) &&
      (C.Load = weightsLoadBefore(Call, C.Body, *Ctx))) {
    C.Reason = Why::LoadedWeights;
    return true;
  }
  // Whatever the code calls itself: an output that only the host reads
  // (printed, its sizes or values read, saved, detached) can never use the
  // graph recorded for it.
  utils::HostReadFacts Facts;
  if (utils::onlyHostReads(Call, *Ctx, &Facts) && !isTimedRun(Call, *Ctx)) {
    // A shape probe (a forward on a made-up input, outside any loop, to
    // learn the size of a layer's output): its graph is dropped with the
    // output at once and the code runs once; nothing to save.
    if (!C.Loop && utils::onlyShapeReads(Call, *Ctx))
      return false;
    C.Reason = Facts.Detached ? Why::Detached : Why::HostReads;
    return idleAround(Call, Region, C);
  }
  return false;
}

bool MissingNoGradCheck::idleAround(const Expr *Call, const Stmt *Region,
                                    Context &C) {
  if (!Training->needsGradientsIn(Region))
    return true;
  // A block that trains nothing may still hand the output to code after it
  // that does, unless the host alone reads the output.
  utils::HostReadFacts Facts;
  if (!utils::onlyHostReads(Call, *Ctx, &Facts))
    return false;
  // Blocks nest, so the first one out from the call that trains ends the
  // search: every block around it trains too.
  DynTypedNode Cur = DynTypedNode::create(*Call);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    DynTypedNodeList Parents = Ctx->getParents(Cur);
    if (Parents.empty() || Parents[0].get<FunctionDecl>())
      break;
    const Stmt *P = Parents[0].get<Stmt>();
    if (P && P == Region)
      break;
    if (const auto *Block = dyn_cast_or_null<CompoundStmt>(P)) {
      if (Training->needsGradientsIn(Block))
        break;
      C.Block = Block;
    }
    Cur = Parents[0];
  }
  // No block of its own (a DQN's target pass, detached next to the loss):
  // a guard for the whole block would turn autograd off for the step, one
  // scoped to the pass's expression does not.
  if (!C.Block)
    C.Scoped = scopedGuardTarget(Facts, *Ctx);
  return C.Block || C.Scoped;
}

// A function that returns tensors hands their graph to its callers, who may
// train with it (PPO's evaluate_actions computes the loss's log-probs): its
// name decides only when its calls are in view and the host alone reads
// what each returns.
bool MissingNoGradCheck::callersOnlyReadOnHost(const FunctionDecl *FD) {
  const llvm::SmallVector<const Stmt *, 4> *Sites = Calls->callsOf(FD);
  if (!Sites || Sites->empty())
    return false;
  return llvm::all_of(*Sites, [&](const Stmt *Site) {
    const auto *E = dyn_cast<Expr>(Site);
    return E && (isDiscarded(E, *Ctx) || utils::onlyHostReads(E, *Ctx));
  });
}

bool MissingNoGradCheck::guarded(const Stmt *S, unsigned Depth) {
  if (utils::guardedInBlocks(S, *Ctx))
    return true;
  const FunctionDecl *FD = utils::enclosingFunction(S, *Ctx);
  if (!FD || Depth >= MaxCallerDepth)
    return false;
  const llvm::SmallVector<const Stmt *, 4> *Sites = Calls->callsOf(FD);
  if (!Sites || Sites->empty()) {
    // Called from other files only: the project index knows whether every
    // call there is guarded.
    const utils::ProjectIndex *Index =
        projectIndex(Ctx->getSourceManager());
    return Index && Index->calledOnlyWithoutGrad(utils::usrOf(FD));
  }
  return llvm::all_of(*Sites, [&](const Stmt *Site) {
    return guarded(Site, Depth + 1);
  });
}

/// The module class whose forward() \p Call runs.
static const CXXRecordDecl *calledModule(const Expr *Call) {
  const CXXRecordDecl *Module = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Call)) {
    Module = MC->getMethodDecl() ? MC->getMethodDecl()->getParent() : nullptr;
  } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Call)) {
    const auto *M = dyn_cast_or_null<CXXMethodDecl>(OC->getDirectCallee());
    const auto *Spec = M ? dyn_cast<ClassTemplateSpecializationDecl>(
                               M->getParent())
                         : nullptr;
    if (Spec && Spec->getTemplateArgs().size() > 0 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      Module = Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  }
  return Module;
}

/// A loss module (torch::nn::CrossEntropyLoss, a user's FocalLoss): it
/// records a graph only when its inputs carry one, which the model's own
/// forward pass reports.
static bool isLossModule(const CXXRecordDecl *Module) {
  return Module && Module->getIdentifier() &&
         Module->getName().contains_insensitive("loss");
}

bool MissingNoGradCheck::calleeGuards(const Expr *Call) {
  const CXXRecordDecl *Module = calledModule(Call);
  if (!Module || !Module->hasDefinition())
    return false;
  for (const CXXMethodDecl *M : Module->methods()) {
    if (!M->getIdentifier() || M->getName() != "forward")
      continue;
    const FunctionDecl *Def = M->getDefinition();
    const auto *Body =
        Def ? dyn_cast_or_null<CompoundStmt>(Def->getBody()) : nullptr;
    if (Body && utils::blockGuards(Body, nullptr, *Ctx))
      return true;
  }
  return false;
}

void MissingNoGradCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<Expr>("forward");
  Ctx = Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  SourceLocation Loc = SM.getExpansionLoc(Call->getExprLoc());
  if (utils::isInLibTorchHeader(Loc, SM) || Reported.contains(Loc))
    return;
  const FunctionDecl *FD = utils::enclosingFunction(Call, *Ctx);
  if (!FD || !FD->hasBody())
    return;
  // Submodules called from a module's forward() run in whatever mode the
  // caller of that forward() set.
  if (const auto *M = dyn_cast<CXXMethodDecl>(FD);
      M && (M->getOverloadedOperator() == OO_Call ||
            (M->getIdentifier() && M->getName() == "forward")))
    return;
  if (isLossModule(calledModule(Call)))
    return;
  if (!Training)
    Training = std::make_unique<utils::TrainingCode>(*Ctx);
  if (!Calls)
    Calls = std::make_unique<utils::RunFrequency>(*Ctx);
  Context C;
  if (!isEvaluation(Call, FD, C) || guarded(Call, 0) || calleeGuards(Call))
    return;
  Reported.insert(Loc);
  report(Call, C);
}

std::optional<FixItHint> MissingNoGradCheck::guardFix(const Expr *Call,
                                                      const Context &C,
                                                      const char *&NoFix) {
  const SourceManager &SM = Ctx->getSourceManager();
  // The first statement of the function, when nothing in it needs
  // gradients; else of the loop body; else the statement after eval().
  const Stmt *Before = C.Block ? C.Block->body_front() : nullptr;
  if (const auto *Body = dyn_cast<CompoundStmt>(C.Body);
      !Before && Body && !Body->body_empty() &&
      !Training->needsGradientsIn(C.Body))
    Before = Body->body_front();
  const Stmt *LoopBody = nullptr;
  if (const auto *For = dyn_cast_or_null<CXXForRangeStmt>(C.Loop))
    LoopBody = For->getBody();
  else if (const auto *F = dyn_cast_or_null<ForStmt>(C.Loop))
    LoopBody = F->getBody();
  else if (const auto *W = dyn_cast_or_null<WhileStmt>(C.Loop))
    LoopBody = W->getBody();
  else if (const auto *D = dyn_cast_or_null<DoStmt>(C.Loop))
    LoopBody = D->getBody();
  if (const auto *Block = dyn_cast_or_null<CompoundStmt>(LoopBody);
      !Before && Block && !Block->body_empty())
    Before = Block->body_front();
  if (!Before && C.Eval && !C.Loop) {
    Before = statementAfterEval(C.Eval, Call, *Ctx);
    if (!Before)
      NoFix = "no block around the call starts after eval()";
  }
  if (!Before || Before->getBeginLoc().isMacroID())
    return std::nullopt;
  // A guard in a block that ends before the call would never cover it.
  if (!encloses(utils::statementInBlock(Before, *Ctx).second, Call, *Ctx)) {
    NoFix = "the block the guard would go into does not hold the call";
    return std::nullopt;
  }
  SourceLocation At = Before->getBeginLoc();
  std::optional<std::string> Indent = indentOf(At, SM);
  if (Inserted.contains(At))
    return FixItHint();
  Inserted.insert(At);
  // Free in the whole function: a parameter or a global of the name would
  // clash with the guard or be hidden by it.
  std::string Var = Guard == "InferenceMode" ? "inference_mode" : "no_grad";
  if (!utils::isNameFreeIn(*C.Fn, Var, *Ctx))
    Var = utils::freshNameIn(*C.Fn, Var + "_guard", *Ctx);
  std::string Type = Guard == "InferenceMode"
                         ? std::string("c10::InferenceMode")
                         : utils::torchNamespace(*Ctx) + "::NoGradGuard";
  return FixItHint::CreateInsertion(
      At, Type + " " + Var + ";" + (Indent ? "\n" + *Indent : " "));
}

llvm::SmallVector<FixItHint, 2>
MissingNoGradCheck::scopedFix(const Context &C, const char *&NoFix) {
  SourceRange Range = C.Scoped->getSourceRange();
  if (Range.getBegin().isMacroID() || Range.getEnd().isMacroID()) {
    NoFix = "the expression comes from a macro";
    return {};
  }
  // Two passes in one expression share its guard.
  if (!Wrapped.insert(Range.getBegin()).second) {
    NoFix = nullptr;
    return {};
  }
  std::string Var = "no_grad";
  if (!utils::isNameFreeIn(*C.Fn, Var, *Ctx))
    Var = utils::freshNameIn(*C.Fn, Var + "_guard", *Ctx);
  SourceLocation End = Lexer::getLocForEndOfToken(
      Range.getEnd(), 0, Ctx->getSourceManager(), Ctx->getLangOpts());
  return {FixItHint::CreateInsertion(Range.getBegin(),
                                     "[&] { " + utils::torchNamespace(*Ctx) +
                                         "::NoGradGuard " + Var + "; return "),
          FixItHint::CreateInsertion(End, "; }()")};
}

void MissingNoGradCheck::report(const Expr *Call, const Context &C) {
  std::string Where;
  switch (C.Reason) {
  case Why::AfterEval:
    Where = "after eval()";
    break;
  case Why::TestLoop:
    Where = "in the loop over '" + C.Name + "'";
    break;
  case Why::EvalFunction:
    Where = "in evaluation function '" + C.Name + "'";
    break;
  case Why::LoadedWeights:
    Where = "of a module whose trained weights are loaded";
    break;
  case Why::HostReads:
    Where = "whose output only the host reads";
    break;
  case Why::Detached:
    Where = "whose output is only detached or read on the host";
    break;
  }
  SourceLocation Loc = Ctx->getSourceManager().getExpansionLoc(
      Call->getExprLoc());
  utils::recordStatementPayload(getID(), Loc, Call, *Ctx);
  const char *NoFix = "the code around the call also needs gradients";
  std::optional<FixItHint> Fix;
  llvm::SmallVector<FixItHint, 2> Scoped;
  if (C.Scoped)
    Scoped = scopedFix(C, NoFix);
  else
    Fix = guardFix(Call, C, NoFix);
  {
    // A scoped pass's output may still enter a loss as a constant (a
    // detached target), which an inference tensor cannot.
    auto Diag = diag(Loc, "forward pass %0 runs with autograd on: it records "
                          "the graph and keeps activations for a backward() "
                          "that never comes; %1")
                << Where
                << (C.Scoped ? "turn autograd off for this expression alone "
                               "with a 'torch::NoGradGuard' in a lambda (the "
                               "step around it needs gradients)"
                    : Guard == "InferenceMode"
                        ? "turn autograd off with 'c10::InferenceMode' (its "
                          "outputs can never enter autograd later)"
                        : "turn autograd off with 'torch::NoGradGuard' "
                          "('c10::InferenceMode' is faster where the outputs "
                          "never enter autograd later)");
    if (Fix && !Fix->CodeToInsert.empty())
      Diag << *Fix;
    for (const FixItHint &Hint : Scoped)
      Diag << Hint;
  }
  if (C.Eval)
    diag(C.Eval->getExprLoc(), "evaluation mode set here",
         DiagnosticIDs::Note);
  if (C.Load)
    diag(C.Load->getExprLoc(),
         "weights loaded here; nothing in %0 needs gradients",
         DiagnosticIDs::Note)
        << C.Fn;
  if (C.Scoped ? Scoped.empty() && NoFix : !Fix)
    diag(Loc, "no guard is inserted: %0", DiagnosticIDs::Note) << NoFix;
}

TORCH_TIDY_CHECK_FACTORY(MissingNoGradCheck)

} // namespace clang::tidy::torch
