//===--- DataloaderWorkersCheck.cpp - libtorch-tidy -----------------------===//
//
// A LibTorch data loader without workers calls the data set's get() for
// every sample of a batch on the thread that trains, between two steps: the
// device idles while files are read and images decoded. Workers (threads in
// C++) prepare the next batches while the current one trains. The check
// reports loaders left at 0 workers when the data set's per-sample code
// (get(), get_batch(), and the transforms mapped over it, following the
// functions of the translation unit they call) does real work; a data set
// that only indexes tensors in memory gains nothing from workers.
//
//===----------------------------------------------------------------------===//

#include "DataloaderWorkersCheck.h"
#include "TorchTidyModule.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/ParentWalk.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using dataloader::ExpensiveOp;

namespace {

constexpr unsigned MaxCallDepth = 3;
/// More tensor operations than this per sample is real work.
constexpr unsigned MaxCheapTensorOps = 4;

/// The outermost named namespace around \p D ("std", "cv", "torch").
StringRef topNamespace(const Decl *D) {
  const NamespaceDecl *Top = nullptr;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC); NS && !NS->isInline())
      Top = NS;
  return Top && Top->getIdentifier() ? Top->getName() : "";
}

bool inNamespaceNamed(const Decl *D, StringRef Name) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC);
        NS && NS->getIdentifier() && NS->getName().contains(Name))
      return true;
  return false;
}

/// Tensor calls that only index or view a tensor in memory.
bool isIndexingOp(StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("operator[]", "index", "select", "slice", "narrow", "view",
             "reshape", "unsqueeze", "squeeze", true)
      .Cases("size", "sizes", "dim", "numel", "clone", "contiguous", "to",
             "item", true)
      .Cases("data_ptr", "options", "dtype", "device", "defined",
             "scalar_type", "Tensor", "get", "operator=", true)
      .Default(false);
}

/// What a standard-library or C function does per sample, or "".
StringRef libraryCost(const FunctionDecl *FD) {
  StringRef Name = FD->getIdentifier() ? FD->getName() : "";
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  const CXXRecordDecl *Class = M ? M->getParent() : nullptr;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    Class = Ctor->getParent();
  StringRef ClassName =
      Class && Class->getIdentifier() ? Class->getName() : "";
  if (ClassName.contains("fstream") || ClassName.contains("filebuf") ||
      ClassName == "basic_istream")
    return "file or stream I/O";
  if (ClassName.contains("stringstream") || ClassName.contains("regex"))
    return "string parsing";
  if (inNamespaceNamed(FD, "filesystem") || inNamespaceNamed(FD, "__fs"))
    return "file system access";
  return llvm::StringSwitch<StringRef>(Name)
      .Cases("fopen", "fread", "fgets", "fscanf", "read", "getline",
             "file or stream I/O")
      .Cases("stoi", "stol", "stoll", "stof", "stod", "string parsing")
      .Cases("atoi", "atof", "strtol", "strtof", "strtod", "sscanf",
             "string parsing")
      .Cases("regex_search", "regex_match", "regex_replace", "string parsing")
      .Default("");
}

/// What a call does per sample, when it is known to be real work.
std::string callCost(const FunctionDecl *FD) {
  StringRef NS = topNamespace(FD);
  StringRef Name = FD->getIdentifier() ? FD->getName() : "";
  if (NS == "cv")
    return "OpenCV calls";
  if (Name.starts_with("stbi_") || Name.starts_with("png_") ||
      Name.starts_with("jpeg_") || Name.starts_with("tjDecompress"))
    return "image decoding";
  if (NS == "torch" && (Name == "load" || Name == "pickle_load"))
    return "deserialization";
  if (NS == "std" || NS == "")
    return libraryCost(FD).str();
  return "";
}

/// What preparing one sample costs: the first expensive operation found, or
/// else the tensor operations, summed over the functions, data sets and
/// transforms that run per sample.
struct Work {
  std::optional<ExpensiveOp> Op;
  unsigned TensorOps = 0;
  /// The first tensor operation (where, in which function, and the file and
  /// line when the project index found it in another file).
  ExpensiveOp FirstTensorOp;

  void add(const Work &W) {
    if (!Op && W.Op)
      Op = W.Op;
    if (W.TensorOps && !TensorOps)
      FirstTensorOp = W.FirstTensorOp;
    else if (W.TensorOps && W.FirstTensorOp.In != FirstTensorOp.In)
      FirstTensorOp.Summed = true;
    TensorOps += W.TensorOps;
  }
  /// The work is worth a worker thread.
  std::optional<ExpensiveOp> expensive() const {
    if (Op)
      return Op;
    if (TensorOps <= MaxCheapTensorOps)
      return std::nullopt;
    ExpensiveOp Ops = FirstTensorOp;
    Ops.What = std::to_string(TensorOps) + " tensor operations";
    if (Ops.Summed) {
      Ops.ElsewhereIn = Ops.ElsewhereIn.empty() ? Ops.In : Ops.ElsewhereIn;
      Ops.In = "the per-sample code (data set and transforms)";
    }
    return Ops;
  }
};

class SampleCost {
public:
  /// With \p FollowCalls false, only the body itself counts: what the
  /// project index records for each function, the calls being its edges.
  SampleCost(ASTContext &Ctx, const utils::ProjectIndex *Index = nullptr,
             bool FollowCalls = true)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Index(Index),
        FollowCalls(FollowCalls) {}

  /// The code that prepares one sample of the data set type \p T, built by
  /// \p Built (where lambdas of the transforms are written); nothing when
  /// the type is not visible.
  Work ofDataset(QualType T, const Expr *Built);
  /// The work of \p Body, of the function \p In.
  Work ofBody(const Stmt *Body, StringRef In, unsigned Depth);

private:
  Work ofTransform(QualType T, const Expr *Built);
  Work ofMethods(const CXXRecordDecl *RD,
                 std::initializer_list<StringRef> Names, unsigned Depth = 0);
  Work ofIndexed(const FunctionDecl *FD, StringRef In) const;
  Work ofCall(const CallExpr *Call, const FunctionDecl *FD, StringRef In,
              unsigned Depth);
  bool isUserCode(const Decl *D) const {
    return !utils::isInLibTorchHeader(D->getLocation(), SM);
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const utils::ProjectIndex *Index;
  bool FollowCalls;
  llvm::DenseSet<const Stmt *> Visited;
};

Work SampleCost::ofDataset(QualType T, const Expr *Built) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return {};
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
      Spec && Spec->getQualifiedNameAsString() ==
                  "torch::data::datasets::MapDataset") {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() < 2 || Args[0].getKind() != TemplateArgument::Type ||
        Args[1].getKind() != TemplateArgument::Type)
      return {};
    // Every transform of the chain runs on every sample.
    Work W = ofDataset(Args[0].getAsType(), Built);
    W.add(ofTransform(Args[1].getAsType(), Built));
    return W;
  }
  if (!isUserCode(RD))
    return {};
  return ofMethods(RD, {"get", "get_batch"});
}

Work SampleCost::ofTransform(QualType T, const Expr *Built) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return {};
  if (isUserCode(RD))
    return ofMethods(RD, {"apply", "apply_batch", "operator()"});
  if (!RD->getIdentifier() || !RD->getName().contains("Lambda") || !Built)
    return {};
  // LibTorch's Lambda transforms call the lambdas written where the data
  // set is built.
  Work W;
  for (const BoundNodes &N :
       match(findAll(lambdaExpr().bind("lambda")), *Built, Ctx))
    W.add(ofBody(N.getNodeAs<LambdaExpr>("lambda")->getBody(),
                 "a lambda transform", 0));
  return W;
}

/// The most expensive of the methods \p Names of \p RD (or of its bases):
/// one of them runs per sample (get() or get_batch(), apply() or the
/// operator() it calls).
Work SampleCost::ofMethods(const CXXRecordDecl *RD,
                           std::initializer_list<StringRef> Names,
                           unsigned Depth) {
  Work Most;
  if (!RD || !RD->hasDefinition() || !isUserCode(RD) || Depth > 4)
    return Most;
  auto Keep = [&](const Work &W) {
    if ((W.Op && !Most.Op) || (!Most.Op && W.TensorOps > Most.TensorOps))
      Most = W;
  };
  for (const CXXMethodDecl *M : RD->methods()) {
    std::string Name = M->getNameAsString();
    if (llvm::none_of(Names, [&](StringRef N) { return N == Name; }))
      continue;
    std::string In = "'" + RD->getNameAsString() + "::" + Name + "'";
    const FunctionDecl *Def = M->getDefinition();
    if (!Def && M->getTemplateInstantiationPattern())
      Def = M->getTemplateInstantiationPattern()->getDefinition();
    Keep(Def && Def->hasBody() ? ofBody(Def->getBody(), In, 0)
                               : ofIndexed(M, In));
  }
  for (const CXXBaseSpecifier &Base : RD->bases())
    Keep(ofMethods(Base.getType()->getAsCXXRecordDecl(), Names, Depth + 1));
  return Most;
}

/// A function defined in another file: what the project index says it does,
/// with what it calls.
Work SampleCost::ofIndexed(const FunctionDecl *FD, StringRef In) const {
  Work W;
  if (!Index || !FollowCalls)
    return W;
  const utils::SampleCostFact *Fact = Index->sampleCost(utils::usrOf(FD));
  if (!Fact)
    return W;
  // The warning names the function this file calls; the note, the one the
  // operation is in.
  ExpensiveOp Op{Fact->What, FD->getLocation(), In.str(),
                 Fact->Where.File + ":" + std::to_string(Fact->Where.Line),
                 Fact->In};
  if (!Fact->What.empty())
    W.Op = Op;
  W.TensorOps = Fact->TensorOps;
  W.FirstTensorOp = Op;
  return W;
}

Work SampleCost::ofCall(const CallExpr *Call, const FunctionDecl *FD,
                        StringRef In, unsigned Depth) {
  Work W;
  std::string Cost = callCost(FD);
  if (!Cost.empty()) {
    W.Op = ExpensiveOp{Cost, Call->getBeginLoc(), In.str()};
    return W;
  }
  if (utils::isInTorchNamespace(FD)) {
    std::string Name = FD->getNameAsString();
    if (!isIndexingOp(Name) && !isa<CXXConstructorDecl>(FD)) {
      W.TensorOps = 1;
      W.FirstTensorOp = ExpensiveOp{"", Call->getBeginLoc(), In.str()};
    }
    return W;
  }
  if (!FollowCalls || !isUserCode(FD) || Depth + 1 >= MaxCallDepth)
    return W;
  const FunctionDecl *Def = FD->getDefinition();
  if (Def && Def->hasBody())
    return isUserCode(Def) ? ofBody(Def->getBody(), In, Depth + 1) : W;
  return ofIndexed(FD, In);
}

/// Whether \p FD is the standard library's (std, its inline namespaces, its
/// classes' members).
static bool isStandardLibrary(const FunctionDecl *FD) {
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (DC->isStdNamespace())
      return true;
  return false;
}

/// A loop whose calls are all the standard library's only moves memory (a
/// token vector padded with push_back, a row copied): microseconds per
/// sample, not worth a worker. One that calls anything else (a tensor
/// operation per element, the project's code, another library) is work.
static bool callsBeyondStd(const Stmt *Loop, ASTContext &Ctx) {
  for (const BoundNodes &N :
       match(findAll(expr(anyOf(callExpr(), cxxConstructExpr())).bind("c")),
             *Loop, Ctx)) {
    const FunctionDecl *FD = nullptr;
    if (const auto *CE = N.getNodeAs<CallExpr>("c"))
      FD = CE->getDirectCallee();
    else
      FD = N.getNodeAs<CXXConstructExpr>("c")->getConstructor();
    if (!FD || !isStandardLibrary(FD))
      return true;
  }
  return false;
}

Work SampleCost::ofBody(const Stmt *Body, StringRef In, unsigned Depth) {
  Work W;
  if (!Body || !Visited.insert(Body).second)
    return W;
  for (const BoundNodes &N : match(
           findAll(expr(anyOf(callExpr(), cxxConstructExpr())).bind("call")),
           *Body, Ctx)) {
    const auto *E = N.getNodeAs<Expr>("call");
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      std::string Cost = callCost(CE->getConstructor());
      if (!Cost.empty()) {
        W.Op = ExpensiveOp{Cost, CE->getBeginLoc(), In.str()};
        return W;
      }
      continue;
    }
    if (const FunctionDecl *FD = cast<CallExpr>(E)->getDirectCallee()) {
      W.add(ofCall(cast<CallExpr>(E), FD, In, Depth));
      if (W.Op)
        return W;
    }
  }
  for (const BoundNodes &N :
       match(findAll(stmt(anyOf(forStmt(), whileStmt(), doStmt(),
                                cxxForRangeStmt()))
                         .bind("loop")),
             *Body, Ctx)) {
    const auto *Loop = N.getNodeAs<Stmt>("loop");
    if (callsBeyondStd(Loop, Ctx)) {
      W.Op = ExpensiveOp{"a loop", Loop->getBeginLoc(), In.str()};
      break;
    }
  }
  return W;
}

//===----------------------------------------------------------------------===//
// The loader's options
//===----------------------------------------------------------------------===//

enum class Workers { Zero, Set };

struct OptionsFinding {
  Workers State = Workers::Set;
  llvm::SmallVector<FixItHint, 2> Fixes;
  /// The variable that holds the options, when the fix cannot be local.
  const VarDecl *Variable = nullptr;
};

bool isOptionsType(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getQualifiedNameAsString() == "torch::data::DataLoaderOptions";
}

/// The value of an integer expression when the code proves it.
std::optional<int64_t> provableInt(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreImpCasts();
  Expr::EvalResult R;
  if (!E->isValueDependent() && E->EvaluateAsInt(R, Ctx))
    return R.Val.getInt().getExtValue();
  const auto *Ref = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD) || !VD->getInit() ||
      !utils::isNeverReassigned(VD, Ctx))
    return std::nullopt;
  return provableInt(VD->getInit(), Ctx);
}

/// \p E without copies, moves and the implicit nodes around them.
const Expr *stripCopies(const Expr *E) {
  for (unsigned I = 0; E && I < 8; ++I) {
    E = E->IgnoreImplicit()->IgnoreParens();
    const auto *CE = dyn_cast<CXXConstructExpr>(E);
    if (!CE || CE->getNumArgs() != 1 ||
        !CE->getConstructor()->isCopyOrMoveConstructor())
      return E;
    E = CE->getArg(0);
  }
  return E;
}

class OptionsAnalysis {
public:
  OptionsAnalysis(ASTContext &Ctx, const LangOptions &LO, std::string Spelling,
                  unsigned N)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), LO(LO),
        Spelling(std::move(Spelling)), N(std::to_string(N)) {}

  /// What the options argument \p Arg of \p Call sets.
  OptionsFinding of(const CallExpr *Call, const Expr *Arg);

private:
  std::optional<OptionsFinding> ofChain(const Expr *E, const Expr *Whole);
  OptionsFinding ofVariable(const VarDecl *VD);
  SourceLocation endOf(const Expr *E) const {
    return Lexer::getLocForEndOfToken(E->getEndLoc(), 0, SM, LO);
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LO;
  std::string Spelling;
  std::string N;
};

OptionsFinding OptionsAnalysis::of(const CallExpr *Call, const Expr *Arg) {
  OptionsFinding F;
  if (isa<CXXDefaultArgExpr>(Arg)) {
    F.State = Workers::Zero;
    if (Call->getRParenLoc().isFileID())
      F.Fixes.push_back(FixItHint::CreateInsertion(
          Call->getRParenLoc(), ", " + Spelling + "().workers(" + N + ")"));
    return F;
  }
  const Expr *E = stripCopies(Arg);
  // A batch size converted to the options.
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E);
      CE && !isa<CXXTemporaryObjectExpr>(CE) && CE->getNumArgs() == 1 &&
      CE->getArg(0)->getType()->isIntegerType()) {
    F.State = Workers::Zero;
    const Expr *Size = CE->getArg(0);
    if (Size->getBeginLoc().isFileID() && Size->getEndLoc().isFileID())
      F.Fixes = {FixItHint::CreateInsertion(Size->getBeginLoc(), Spelling + "("),
                 FixItHint::CreateInsertion(endOf(Size),
                                            ").workers(" + N + ")")};
    return F;
  }
  if (auto Chain = ofChain(E, E))
    return *Chain;
  return F;
}

/// A chain of option setters on a temporary or a variable.
std::optional<OptionsFinding> OptionsAnalysis::ofChain(const Expr *E,
                                                       const Expr *Whole) {
  E = stripCopies(E);
  // `DataLoaderOptions(64)`: the options built explicitly.
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
    return ofChain(Cast->getSubExpr(), Whole);
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || !isOptionsType(QualType(M->getParent()->getTypeForDecl(), 0)))
      return std::nullopt;
    if (M->getName() == "workers" && MC->getNumArgs() == 1) {
      OptionsFinding F;
      std::optional<int64_t> V = provableInt(MC->getArg(0), Ctx);
      if (!V || *V != 0)
        return F;
      F.State = Workers::Zero;
      const Expr *Value = MC->getArg(0)->IgnoreImplicit();
      if (Value->getBeginLoc().isFileID() && Value->getEndLoc().isFileID())
        F.Fixes.push_back(FixItHint::CreateReplacement(
            CharSourceRange::getTokenRange(Value->getSourceRange()), N));
      return F;
    }
    return ofChain(MC->getImplicitObjectArgument(), Whole);
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (!VD || !VD->hasLocalStorage() || isa<ParmVarDecl>(VD))
      return std::nullopt;
    return ofVariable(VD);
  }
  if (!isa<CXXConstructExpr>(E) || !isOptionsType(E->getType()))
    return std::nullopt;
  OptionsFinding F;
  F.State = Workers::Zero;
  if (Whole->getEndLoc().isFileID())
    F.Fixes.push_back(
        FixItHint::CreateInsertion(endOf(Whole), ".workers(" + N + ")"));
  return F;
}

/// Options in a local variable: its initializer and the setters called on
/// it in its function.
OptionsFinding OptionsAnalysis::ofVariable(const VarDecl *VD) {
  OptionsFinding F;
  if (VD->getType()->isReferenceType() || !VD->getInit())
    return F;
  std::optional<OptionsFinding> Init = ofChain(VD->getInit(), VD->getInit());
  if (!Init || Init->State == Workers::Set)
    return F;
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  if (!Body)
    return F;
  for (const BoundNodes &Node :
       match(findAll(cxxMemberCallExpr(
                         on(declRefExpr(to(varDecl(equalsNode(VD))))),
                         callee(cxxMethodDecl(hasName("workers"))))
                         .bind("set")),
             *Body, Ctx)) {
    const auto *Set = Node.getNodeAs<CXXMemberCallExpr>("set");
    std::optional<int64_t> V =
        Set->getNumArgs() == 1 ? provableInt(Set->getArg(0), Ctx)
                               : std::optional<int64_t>(0);
    if (Set->getNumArgs() == 1 && (!V || *V != 0))
      return F;
  }
  F.State = Workers::Zero;
  F.Variable = VD;
  return F;
}

} // namespace

std::optional<dataloader::OwnWork>
dataloader::ownWork(const FunctionDecl *Def, ASTContext &Ctx) {
  if (!Def || !Def->hasBody())
    return std::nullopt;
  std::string In = "'" + Def->getNameAsString() + "'";
  if (const auto *M = dyn_cast<CXXMethodDecl>(Def);
      M && M->getParent()->getIdentifier())
    In = "'" + M->getParent()->getNameAsString() + "::" +
         Def->getNameAsString() + "'";
  Work W = SampleCost(Ctx, nullptr, /*FollowCalls=*/false)
               .ofBody(Def->getBody(), In, 0);
  if (!W.Op && !W.TensorOps)
    return std::nullopt;
  return OwnWork{W.Op ? *W.Op : W.FirstTensorOp, W.Op ? 0 : W.TensorOps};
}

DataloaderWorkersCheck::DataloaderWorkersCheck(StringRef Name,
                                               ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      DefaultWorkers(Options.get("DefaultWorkers", 4U)) {}

void DataloaderWorkersCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "DefaultWorkers", DefaultWorkers);
}

void DataloaderWorkersCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  Finder->addMatcher(
      callExpr(utils::isOutsideLibTorch(),
               callee(functionDecl(hasName("::torch::data::make_data_loader"))))
          .bind("loader"),
      this);
}

void DataloaderWorkersCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("loader");
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  const FunctionDecl *FD = Call->getDirectCallee();
  SourceLocation Loc = SM.getExpansionLoc(Call->getBeginLoc());
  if (!FD || FD->getNumParams() == 0 || Call->getNumArgs() != FD->getNumParams() ||
      utils::isInLibTorchHeader(Loc, SM) || Reported.contains(Loc))
    return;
  const Expr *Options = nullptr;
  for (unsigned I = 1; I < FD->getNumParams(); ++I)
    if (isOptionsType(FD->getParamDecl(I)->getType()))
      Options = Call->getArg(I);
  if (!Options)
    return;
  // The data set, and the expression that built it (its lambdas).
  const Expr *Built = stripCopies(Call->getArg(0));
  if (const auto *MoveCall = dyn_cast<CallExpr>(Built);
      MoveCall && MoveCall->getNumArgs() == 1 && MoveCall->isCallToStdMove())
    Built = MoveCall->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Built))
    if (const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
        VD && VD->hasLocalStorage() && VD->getInit())
      Built = VD->getInit();
  SampleCost Cost(Ctx, projectIndex(SM));
  std::optional<ExpensiveOp> Op =
      Cost.ofDataset(FD->getParamDecl(0)->getType(), Built).expensive();
  if (!Op)
    return;
  OptionsAnalysis Analysis(Ctx, getLangOpts(),
                           utils::torchNamespace(Ctx) + "::data::DataLoaderOptions",
                           DefaultWorkers);
  OptionsFinding F = Analysis.of(Call, Options);
  if (F.State != Workers::Zero)
    return;
  Reported.insert(Loc);
  utils::recordStatementPayload(getID(), Loc, Call, Ctx);
  {
    auto Diag = diag(Loc, "data loader runs with 0 workers: %0 does %1 for "
                          "every sample on the training thread, and each "
                          "step waits for it; load batches in parallel with "
                          "'.workers(%2)'")
                << Op->In << Op->What << DefaultWorkers;
    for (const FixItHint &Fix : F.Fixes)
      Diag << Fix;
  }
  if (Op->Summed)
    diag(Op->Where, "the first of them, in %0%select{|, at %2 (project index)}1",
         DiagnosticIDs::Note)
        << Op->ElsewhereIn << !Op->Elsewhere.empty() << Op->Elsewhere;
  else if (Op->Elsewhere.empty())
    diag(Op->Where, "%0 here, for every sample", DiagnosticIDs::Note)
        << Op->What;
  else
    diag(Op->Where, "%0 does %1 for every sample, at %2 (project index)",
         DiagnosticIDs::Note)
        << Op->ElsewhereIn << Op->What << Op->Elsewhere;
  if (F.Variable)
    diag(F.Variable->getLocation(),
         "the options are the variable '%0': add '.workers(%1)' to it",
         DiagnosticIDs::Note)
        << F.Variable->getName() << DefaultWorkers;
}

TORCH_TIDY_CHECK_FACTORY(DataloaderWorkersCheck)

} // namespace clang::tidy::torch
