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
#include "SampleCostAnalysis.h"
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
using dataloader::SampleCost;
using dataloader::Work;

namespace {

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
  return RD &&
         RD->getQualifiedNameAsString() == "torch::data::DataLoaderOptions";
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
      F.Fixes = {
          FixItHint::CreateInsertion(Size->getBeginLoc(), Spelling + "("),
          FixItHint::CreateInsertion(endOf(Size), ").workers(" + N + ")")};
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
  if (!FD || FD->getNumParams() == 0 ||
      Call->getNumArgs() != FD->getNumParams() ||
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
  OptionsAnalysis Analysis(
      Ctx, getLangOpts(),
      utils::torchNamespace(Ctx) + "::data::DataLoaderOptions", DefaultWorkers);
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
    diag(Op->Where,
         "the first of them, in %0%select{|, at %2 (project index)}1",
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
