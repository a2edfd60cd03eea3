//===--- ProjectFactsCollector.cpp - libtorch-tidy ------------------------===//

#include "ProjectFactsCollector.h"
#include "ConvBiasModuleAnalysis.h"
#include "CudaLibrarySettings.h"
#include "HostDataAnalysis.h"
#include "HostSyncAnalysis.h"
#include "SampleCostAnalysis.h"
#include "utils/AutogradGuards.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/ProjectIndex.h"
#include "utils/TorchCheck.h"
#include "utils/TrainingCode.h"
#include "utils/UnitTestCode.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include <atomic>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

std::atomic<bool> FactsEnabled{false};
bool FactsAlone = false;
std::string LastFacts;

/// How a message names a function: 'Class::name' for a method.
std::string displayName(const FunctionDecl *FD) {
  std::string Name = FD->getNameAsString();
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
    if (MD->getParent()->getIdentifier())
      return MD->getParent()->getName().str() + "::" + Name;
  return Name;
}

/// How a message names a member: 'Class::name'.
std::string displayName(const FieldDecl *Field) {
  if (const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
      RD && RD->getIdentifier())
    return RD->getName().str() + "::" + Field->getNameAsString();
  return Field->getNameAsString();
}

/// The module class a `ModuleHolder<Impl>` holds, or null.
const CXXRecordDecl *heldModule(const CXXRecordDecl *RD) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
  if (!Spec || Spec->getName() != "ModuleHolder" ||
      Spec->getTemplateArgs().size() == 0 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
}

/// The names of the calls that make a loop a training loop.
bool isTrainingStepName(llvm::StringRef Name) {
  return Name == "backward" || Name == "forward" || Name == "step";
}

/// Whether \p S steps a model: calls backward/forward/step (also on a
/// dependent type), a ModuleHolder's operator(), or iterates a data loader.
/// Steps says whether it does more than run a forward: backward, step or a
/// data loader.
class TrainingStepFinder : public RecursiveASTVisitor<TrainingStepFinder> {
public:
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (FD && FD->getIdentifier())
      see(FD->getName());
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
        OC && OC->getOperator() == OO_Call && FD)
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
        Found |= heldModule(MD->getParent()) != nullptr;
    return !Steps;
  }
  bool VisitCXXDependentScopeMemberExpr(CXXDependentScopeMemberExpr *E) {
    if (E->getMember().isIdentifier())
      see(E->getMember().getAsString());
    return !Steps;
  }
  bool VisitCXXForRangeStmt(CXXForRangeStmt *RF) {
    QualType T = RF->getRangeInit()->getType().getNonReferenceType();
    if (const auto *RD = T->getAsCXXRecordDecl())
      Steps |= RD->getName().contains("DataLoader");
    Found |= Steps;
    return !Steps;
  }

  bool Found = false;
  bool Steps = false;

private:
  void see(llvm::StringRef Name) {
    if (!isTrainingStepName(Name))
      return;
    Found = true;
    Steps |= Name != "forward";
  }
};

/// Whether \p S steps a model; with \p BeyondForward, whether it does more
/// than run a forward.
bool stepsModel(const Stmt *S, bool BeyondForward) {
  TrainingStepFinder Finder;
  Finder.TraverseStmt(const_cast<Stmt *>(S));
  return BeyondForward ? Finder.Steps : Finder.Found;
}

/// The functions (and constructors) code names.
class FunctionNames : public RecursiveASTVisitor<FunctionNames> {
public:
  void insertNamesOf(Stmt *S) { TraverseStmt(S); }

  bool VisitDeclRefExpr(DeclRefExpr *E) { return add(E->getDecl()); }
  bool VisitMemberExpr(MemberExpr *E) { return add(E->getMemberDecl()); }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    return add(E->getConstructor());
  }

  llvm::DenseSet<const FunctionDecl *> Names;

private:
  bool add(const Decl *D) {
    if (const auto *FD = dyn_cast_or_null<FunctionDecl>(D))
      Names.insert(FD->getCanonicalDecl());
    return true;
  }
};

/// The parts of a loop that repeat: a for's condition, increment and body,
/// a range-for's variable and body, a while's or do's condition and body.
llvm::SmallVector<Stmt *, 4> repeatedParts(Stmt *Loop) {
  if (auto *For = dyn_cast<ForStmt>(Loop))
    return {For->getCond(), For->getInc(), For->getBody()};
  if (auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return {Range->getLoopVarStmt(), Range->getBody()};
  if (auto *While = dyn_cast<WhileStmt>(Loop))
    return {While->getCond(), While->getBody()};
  if (auto *Do = dyn_cast<DoStmt>(Loop))
    return {Do->getBody(), Do->getCond()};
  return {};
}

/// The parts of a loop that run once: a for's init, a range-for's init and
/// range.
llvm::SmallVector<Stmt *, 3> onceParts(Stmt *Loop) {
  if (auto *For = dyn_cast<ForStmt>(Loop))
    return {For->getInit()};
  if (auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return {Range->getInit(), Range->getRangeStmt()};
  return {};
}

/// The loop that repeats what is in it, with what the facts say of it.
struct LoopFrame {
  const Stmt *Loop;
  utils::SourcePlace Where;
};

/// The function whose body is being walked.
struct FunctionFrame {
  std::string Usr;
  size_t Fact; // index in Facts.Functions
  std::vector<LoopFrame> Loops;
  /// A method of a module class: part of the model's computation.
  bool InModule = false;
};

class FactsWalker : public RecursiveASTVisitor<FactsWalker> {
public:
  FactsWalker(ASTContext &Ctx, utils::FileFacts &Facts)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Facts(Facts), Devices(Ctx) {
    // An argument that is a parameter of the caller is judged by the
    // caller's own calls in this file.
    Devices.followCallers();
  }

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return false; }

  void walk() {
    TraverseDecl(Ctx.getTranslationUnitDecl());
    finish();
  }

  bool TraverseDecl(Decl *D) {
    if (!D || isa<TranslationUnitDecl>(D))
      return RecursiveASTVisitor::TraverseDecl(D);
    if (!isProjectCode(D->getLocation()))
      return true;
    auto *FD = dyn_cast<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody() ||
        (isa<CXXMethodDecl>(FD) &&
         cast<CXXMethodDecl>(FD)->getParent()->isLambda()))
      return RecursiveASTVisitor::TraverseDecl(D);
    const auto *Method = dyn_cast<CXXMethodDecl>(FD);
    bool InModule = Method && utils::isSameOrDerivedFrom(Method->getParent(),
                                                         "torch::nn::Module");
    Functions.push_back({utils::usrOf(FD), recordFunction(FD), {}, InModule});
    // A guard of an enclosing function does not reach a local class's
    // methods.
    unsigned OuterGuards = std::exchange(NoGradGuards, 0);
    recordOwnWork(FD);
    if (InModule)
      recordModuleLayers(Method);
    bool Result = RecursiveASTVisitor::TraverseDecl(D);
    Functions.pop_back();
    NoGradGuards = OuterGuards;
    return Result;
  }

  /// What a lambda's body calls runs when the lambda runs, which is not
  /// known here: its calls are not recorded, and the functions it names
  /// have a caller the index does not see (as when their address is
  /// taken), so they are never said to run once.
  bool TraverseLambdaExpr(LambdaExpr *E) {
    NamedInLambda.insertNamesOf(E->getBody());
    return true;
  }

  /// A guard that turns autograd off covers the rest of its block: the
  /// calls there are made without gradients.
  bool TraverseCompoundStmt(CompoundStmt *S) {
    if (!WalkUpFromCompoundStmt(S))
      return false;
    unsigned Before = NoGradGuards;
    bool Result = true;
    for (Stmt *Child : S->body()) {
      if (!(Result = TraverseStmt(Child)))
        break;
      if (utils::isGuardStatement(Child, Ctx))
        ++NoGradGuards;
    }
    NoGradGuards = Before;
    return Result;
  }

  bool TraverseForStmt(ForStmt *S) { return traverseLoop(S); }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *S) { return traverseLoop(S); }
  bool TraverseWhileStmt(WhileStmt *S) { return traverseLoop(S); }
  bool TraverseDoStmt(DoStmt *S) { return traverseLoop(S); }

  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD)
      return true;
    ++Calls[FD->getCanonicalDecl()];
    recordCall(FD, CE->getExprLoc(), CE);
    // `model(x)` of a TORCH_MODULE holder runs its module's forward().
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE);
        OC && OC->getOperator() == OO_Call)
      if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
        if (const CXXRecordDecl *Held = heldModule(MD->getParent()))
          recordForwardsOf(Held, CE->getExprLoc());
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    recordCall(E->getConstructor(), E->getLocation());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      ++References[FD->getCanonicalDecl()];
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      ++References[FD->getCanonicalDecl()];
    return true;
  }
  /// Where member tensors are made: their default initializers, the
  /// constructors' initializers, and assignments (on the host only when
  /// every one is in a constructor and makes a host tensor).
  bool VisitFieldDecl(FieldDecl *Field) {
    if (const Expr *Init = Field->getInClassInitializer())
      recordMember(Field, Init, /*InConstructor=*/true);
    return true;
  }
  bool TraverseConstructorInitializer(CXXCtorInitializer *Init) {
    if (Init->isMemberInitializer() && Init->isWritten())
      recordMember(Init->getMember(), Init->getInit(), /*InConstructor=*/true);
    return RecursiveASTVisitor::TraverseConstructorInitializer(Init);
  }
  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *E) {
    if (E->getOperator() != OO_Equal || E->getNumArgs() != 2)
      return true;
    const auto *ME = dyn_cast<MemberExpr>(E->getArg(0)->IgnoreParenImpCasts());
    const auto *Field = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
    if (!Field || Functions.empty())
      return true;
    bool OwnInConstructor =
        isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts()) &&
        isa<CXXConstructorDecl>(Defined[Functions.back().Fact]);
    recordMember(Field, E->getArg(1), OwnInConstructor);
    return true;
  }
  /// Modules whose forward() returns a convolution member's output, and
  /// which constructor parameter sets its bias: for a BatchNorm after such
  /// a module in another file.
  bool VisitCXXRecordDecl(CXXRecordDecl *RD) {
    if (!RD->isThisDeclarationADefinition() || RD->isDependentContext() ||
        isa<ClassTemplateSpecializationDecl>(RD) ||
        !isProjectCode(RD->getLocation()) ||
        !utils::isSameOrDerivedFrom(RD, "torch::nn::Module"))
      return true;
    for (const convbias::ForwardedConvBias &B :
         convbias::forwardedConvBiases(RD, Ctx, SM)) {
      utils::ConvModuleFact C;
      C.Ctor = utils::usrOf(B.Ctor);
      if (C.Ctor.empty() || !B.Param)
        continue;
      C.Class = RD->getNameAsString();
      C.Member = B.Member;
      C.Conv = B.Conv;
      C.Param = static_cast<int>(B.Param->getFunctionScopeIndex());
      C.Where = placeOf(B.Where);
      Facts.ConvModules.push_back(std::move(C));
    }
    return true;
  }
  /// The settings of LibTorch's CUDA libraries (at::Context's setters) the
  /// file makes: another file's program-wide checks see them.
  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *E) {
    const CXXMethodDecl *M = E->getMethodDecl();
    if (!M || !M->getIdentifier() || !M->getName().starts_with("set") ||
        M->getParent()->getQualifiedNameAsString() != "at::Context" ||
        !isProjectCode(E->getExprLoc()))
      return true;
    std::optional<bool> On =
        E->getNumArgs() ? utils::provableBool(E->getArg(0), Ctx) : std::nullopt;
    std::string Setting = M->getName().str() + (On && !*On ? "=off" : "");
    if (!llvm::is_contained(Facts.LibrarySettings, Setting))
      Facts.LibrarySettings.push_back(std::move(Setting));
    return true;
  }
  bool VisitVarDecl(VarDecl *VD) {
    // A device chosen at file scope of the main file.
    if (VD->hasGlobalStorage() && !VD->isLocalVarDecl() && VD->hasInit() &&
        SM.isInMainFile(SM.getExpansionLoc(VD->getLocation())))
      Facts.SelectsCuda |= hostsync::mentionsCuda(VD, Ctx, SM);
    return true;
  }

private:
  bool isProjectCode(SourceLocation Loc) const {
    SourceLocation Spelled = SM.getExpansionLoc(Loc);
    return Spelled.isValid() && !SM.isInSystemHeader(Spelled) &&
           !utils::isInLibTorchHeader(Spelled, SM);
  }

  utils::SourcePlace placeOf(SourceLocation Loc) {
    utils::SourcePlace P;
    SourceLocation Spelled = SM.getExpansionLoc(Loc);
    FileID FID = SM.getFileID(Spelled);
    P.File = pathOf(FID);
    P.Line = SM.getExpansionLineNumber(Spelled);
    return P;
  }

  /// The real path of a file of the translation unit, once per file.
  std::string pathOf(FileID FID) {
    auto It = Paths.find(FID);
    if (It != Paths.end())
      return It->second;
    std::string Path;
    if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
      llvm::SmallString<256> Real;
      Path = llvm::sys::fs::real_path(FE->getName(), Real)
                 ? FE->getName().str()
                 : Real.str().str();
    }
    Paths[FID] = Path;
    return Path;
  }

  size_t recordFunction(const FunctionDecl *FD) {
    utils::FunctionFact F;
    F.Usr = utils::usrOf(FD);
    F.Name = displayName(FD);
    F.Where = placeOf(FD->getLocation());
    F.PerStepByConvention = utils::isPerStepByConvention(FD);
    F.IsMain = FD->isMain();
    Facts.HasProgram |= F.IsMain && !utils::isTestRunnerMain(FD);
    F.SelectsCuda = hostsync::mentionsCuda(FD, Ctx, SM);
    F.ReturnsHostData = returnsHostTensor(FD, Ctx);
    F.ReturnsDevice = utils::isDeviceValueType(FD->getReturnType());
    if (const auto *MD = dyn_cast<CXXMethodDecl>(FD))
      for (const CXXMethodDecl *Base : MD->overridden_methods())
        F.Overrides.push_back(utils::usrOf(Base));
    Defined.push_back(FD->getCanonicalDecl());
    Facts.Functions.push_back(std::move(F));
    return Facts.Functions.size() - 1;
  }

  /// What a function costs per call, its callees left to the index: for a
  /// data set's get() or a transform another file maps.
  void recordOwnWork(const FunctionDecl *FD) {
    if (FD->isDependentContext())
      return;
    std::optional<dataloader::OwnWork> W = dataloader::ownWork(FD, Ctx);
    if (!W)
      return;
    utils::SampleCostFact C;
    C.Method = utils::usrOf(FD);
    C.In = W->First.In;
    C.What = W->TensorOps ? "" : W->First.What;
    C.Where = placeOf(W->First.Where);
    C.TensorOps = W->TensorOps;
    if (!C.Method.empty())
      Facts.SampleCosts.push_back(std::move(C));
  }

  /// The layers a module's method builds, for a file that trains the
  /// module and only sees its declaration.
  void recordModuleLayers(const CXXMethodDecl *MD) {
    const CXXRecordDecl *RD = MD->getParent();
    if (MD->isDependentContext() || !RD->getIdentifier())
      return;
    std::vector<Decl *> Body = {const_cast<CXXMethodDecl *>(MD)};
    utils::ModuleLayersFact L;
    L.Class = utils::usrOf(RD);
    L.Name = RD->getNameAsString();
    L.Convolution = cudalib::buildsConvolution(Ctx, Body);
    L.Matmul = cudalib::buildsMatmul(Ctx, Body);
    if (!L.Class.empty() && (L.Convolution || L.Matmul))
      Facts.ModuleLayers.push_back(std::move(L));
  }

  void recordMember(const FieldDecl *Field, const Expr *Value,
                    bool InConstructor) {
    if (!Field || !Value || !utils::isTensorType(Field->getType()) ||
        !isProjectCode(Field->getLocation()) || Value->isTypeDependent())
      return;
    utils::MemberFact M;
    M.Usr = utils::usrOf(Field);
    M.Name = displayName(Field);
    M.Where = placeOf(Value->getExprLoc());
    M.MadeOnHost = InConstructor && isMadeOnHost(Value, Ctx);
    Facts.Members.push_back(std::move(M));
  }

  bool traverseLoop(Stmt *Loop) {
    for (Stmt *Part : onceParts(Loop))
      if (!TraverseStmt(Part))
        return false;
    bool Repeats = !isa<DoStmt>(Loop) || !utils::isRunOnceLoop(Loop, Ctx);
    if (Repeats && !Functions.empty())
      pushLoop(Loop);
    bool Result = true;
    for (Stmt *Part : repeatedParts(Loop))
      if (!(Result = TraverseStmt(Part)))
        break;
    if (Repeats && !Functions.empty())
      Functions.back().Loops.pop_back();
    return Result;
  }

  void pushLoop(const Stmt *Loop) {
    FunctionFrame &F = Functions.back();
    // A module's forward() (or a functor's operator()), or another method
    // of a module (a decoder's generate(), forward_with_cache()) is part of
    // a step: a loop of its own that only runs forwards goes over layers or
    // time steps, not over training steps.
    bool Training = isTrainingLoop(
        Loop, Facts.Functions[F.Fact].PerStepByConvention || F.InModule);
    if (Training)
      Facts.Functions[F.Fact].HasTrainingLoop = true;
    // The loops around a training loop are epoch loops, unless they step
    // themselves (the inner loop runs forwards per sample or micro-batch).
    if (Training)
      for (const LoopFrame &Outer : F.Loops)
        if (!utils::stepsEachIteration(Outer.Loop, Ctx))
          EpochLoops.insert(Outer.Loop);
    F.Loops.push_back({Loop, placeOf(Loop->getBeginLoc())});
  }

  static bool isTrainingLoop(const Stmt *Loop, bool BeyondForward) {
    if (const auto *RF = dyn_cast<CXXForRangeStmt>(Loop)) {
      QualType T = RF->getRangeInit()->getType().getNonReferenceType();
      if (const auto *RD = T->getAsCXXRecordDecl();
          RD && RD->getName().contains("DataLoader"))
        return true;
    }
    for (const Stmt *Part : repeatedParts(const_cast<Stmt *>(Loop)))
      if (Part && stepsModel(Part, BeyondForward))
        return true;
    return false;
  }

  /// The arguments of \p CE that are tensors provably on the CPU, as
  /// CallFact::HostArgs (none for an operator call, whose first argument
  /// may be the object).
  uint32_t hostArgs(const CallExpr *CE) {
    uint32_t Bits = 0;
    if (!CE || isa<CXXOperatorCallExpr>(CE))
      return Bits;
    for (unsigned I = 0, N = std::min(CE->getNumArgs(), 32u); I < N; ++I) {
      const Expr *Arg = CE->getArg(I);
      if (!isa<CXXDefaultArgExpr>(Arg) &&
          utils::isTensorType(Arg->IgnoreParenImpCasts()->getType()) &&
          Devices.ofTensor(Arg) == utils::DeviceKind::Cpu)
        Bits |= uint32_t(1) << I;
    }
    return Bits;
  }

  void recordCall(const FunctionDecl *Callee, SourceLocation Loc,
                  const CallExpr *CE = nullptr) {
    if (Functions.empty() || !Callee ||
        !isProjectCode(Callee->getLocation()))
      return;
    FunctionFrame &F = Functions.back();
    utils::CallFact C;
    C.Caller = F.Usr;
    C.Callee = utils::usrOf(Callee);
    C.Where = placeOf(Loc);
    C.NoGrad = NoGradGuards > 0;
    C.HostArgs = hostArgs(CE);
    if (!F.Loops.empty()) {
      C.Loop = F.Loops.back().Where;
      PendingLoops.push_back({Facts.Calls.size(), F.Loops.back().Loop});
    }
    Facts.Calls.push_back(std::move(C));
  }

  void recordForwardsOf(const CXXRecordDecl *Module, SourceLocation Loc) {
    if (!Module->hasDefinition())
      return;
    for (const CXXMethodDecl *M : Module->getDefinition()->methods())
      if (M->getIdentifier() && M->getName() == "forward")
        recordCall(M, Loc);
  }

  /// What is known only at the end: which loops hold training loops (a
  /// nested loop found later), which functions' addresses are taken, the
  /// files read.
  void finish() {
    for (const auto &[CallIndex, Loop] : PendingLoops)
      Facts.Calls[CallIndex].LoopHasTrainingLoop = EpochLoops.count(Loop);
    for (size_t I = 0; I < Facts.Functions.size(); ++I) {
      const FunctionDecl *FD = Defined[I];
      Facts.Functions[I].AddressTaken =
          References[FD] > Calls[FD] || NamedInLambda.Names.contains(FD);
    }
    llvm::StringSet<> Seen;
    auto AddInput = [&](const std::string &Path) {
      if (Path.empty() || !Seen.insert(Path).second)
        return;
      if (std::optional<utils::FileStamp> S = utils::stampOf(Path))
        Facts.Inputs.push_back(*S);
    };
    Facts.File = pathOf(SM.getMainFileID());
    AddInput(Facts.File);
    for (const utils::FunctionFact &F : Facts.Functions)
      AddInput(F.Where.File);
    forEachProjectFile(AddInput);
  }

  /// The project's files the translation unit read, headers that define no
  /// function included: a changed signature or macro there changes this
  /// file's facts (the USR of a function it calls), so the file must be
  /// re-indexed with it.
  template <typename Fn> void forEachProjectFile(Fn Each) {
    for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I) {
      const SrcMgr::SLocEntry &E = SM.getLocalSLocEntry(I);
      if (!E.isFile() ||
          SrcMgr::isSystem(E.getFile().getFileCharacteristic()))
        continue;
      OptionalFileEntryRef FE = E.getFile().getContentCache().OrigEntry;
      FileID FID = FE ? SM.translateFile(*FE) : FileID();
      if (FID.isValid() &&
          !utils::isInLibTorchHeader(SM.getLocForStartOfFile(FID), SM))
        Each(pathOf(FID));
    }
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  utils::FileFacts &Facts;
  utils::DeviceAnalysis Devices;
  std::vector<FunctionFrame> Functions;
  std::vector<const FunctionDecl *> Defined;
  llvm::DenseMap<const FunctionDecl *, unsigned> Calls, References;
  llvm::DenseMap<FileID, std::string> Paths;
  std::vector<std::pair<size_t, const Stmt *>> PendingLoops;
  llvm::DenseSet<const Stmt *> EpochLoops;
  FunctionNames NamedInLambda;
  unsigned NoGradGuards = 0;
};

} // namespace

void enableProjectFacts(bool Alone) {
  FactsEnabled = true;
  FactsAlone = Alone;
}
bool projectFactsEnabled() { return FactsEnabled; }
std::string collectedFacts() { return LastFacts; }

void ProjectFactsCollector::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(translationUnitDecl().bind("tu"), this);
}

void ProjectFactsCollector::registerPPCallbacks(const SourceManager &,
                                                Preprocessor *PP,
                                                Preprocessor *) {
  PP->getDiagnostics().setFatalsAsError(true);
  PP->getDiagnostics().setErrorLimit(0);
}

/// The translation unit is matched before the matcher walks into it: the
/// facts are read then, with the parent map (which the device analysis may
/// build) narrowed to the code outside LibTorch, and the matcher's own walk
/// is emptied, so that the pass costs little more than the parse.
void ProjectFactsCollector::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  if (!FactsAlone) {
    // Next to the checks: the traversal is theirs (TorchCheck narrows it).
    utils::FileFacts Facts;
    FactsWalker(Ctx, Facts).walk();
    LastFacts = utils::serializeFacts(Facts);
    return;
  }
  Ctx.setTraversalScope(declsOutsideLibTorch(Ctx));
  utils::FileFacts Facts;
  FactsWalker(Ctx, Facts).walk();
  LastFacts = utils::serializeFacts(Facts);
  Ctx.setTraversalScope({});
}

} // namespace clang::tidy::torch
