//===--- ConvBiasBeforeBatchNormCheck.cpp - libtorch-tidy -----------------===//
//
// BatchNorm subtracts the per-channel mean of its input, so the per-channel
// bias of a convolution that feeds it straight is subtracted right back out.
// The check finds the three ways LibTorch code wires a convolution into a
// BatchNorm (adjacent in a Sequential, module members called one after the
// other in a method, and either through a helper that builds the
// convolution), proves from the options expression that the bias is on, and
// reports the place that builds the convolution. Everything it cannot prove
// (a bias flag from a parameter, a convolution also used elsewhere) is left
// alone. Diagnostics are emitted at the end of the translation unit: whether
// a helper may be fixed in place depends on all of its callers, and a
// checkpoint loaded anywhere in the file rules fix-its out.
//
// The analysis lives beside the check, as in clang-tidy's LoopConvert:
// ConvBiasAnalysis (is the bias on, and where is it decided),
// ConvBiasModuleAnalysis (which BatchNorm takes the output) and
// ConvBiasFixes (the message and fix-its of each finding).
//
//===----------------------------------------------------------------------===//

#include "ConvBiasBeforeBatchNormCheck.h"
#include "ConvBiasAnalysis.h"
#include "ConvBiasFixes.h"
#include "ConvBiasModuleAnalysis.h"
#include "TorchTidyModule.h"
#include "clang-tidy/utils/OptionsUtils.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

using namespace convbias;

ConvBiasBeforeBatchNormCheck::ConvBiasBeforeBatchNormCheck(
    StringRef Name, ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      CheckpointLoaders(tidy::utils::options::parseStringList(
          Options.get("CheckpointLoaders", "load_state_dict"))),
      TU(std::make_unique<TUState>()) {}

ConvBiasBeforeBatchNormCheck::~ConvBiasBeforeBatchNormCheck() = default;

void ConvBiasBeforeBatchNormCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(
      Opts, "CheckpointLoaders",
      llvm::join(CheckpointLoaders.begin(), CheckpointLoaders.end(), ";"));
}

void ConvBiasBeforeBatchNormCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto SequentialClass = cxxRecordDecl(
      hasAnyName("::torch::nn::Sequential", "::torch::nn::SequentialImpl"));
  Finder->addMatcher(cxxConstructExpr(utils::isOutsideLibTorch(),
                                      hasType(SequentialClass),
                                      unless(isInTemplateInstantiation()))
                         .bind("sequential"),
                     this);
  Finder->addMatcher(
      cxxMemberCallExpr(utils::isOutsideLibTorch(),
                        callee(cxxMethodDecl(
                            hasName("push_back"),
                            ofClass(hasName("::torch::nn::SequentialImpl")))),
                        unless(isInTemplateInstantiation()))
          .bind("push_back"),
      this);
  Finder->addMatcher(fieldDecl(utils::isOutsideLibTorch()).bind("field"), this);

  std::vector<StringRef> Loaders(CheckpointLoaders);
  Finder->addMatcher(
      callExpr(utils::isOutsideLibTorch(),
               callee(functionDecl(anyOf(hasAnyName("::torch::load",
                                                    "::torch::jit::load"),
                                         hasAnyName(Loaders)))
                          .bind("loader")))
          .bind("load"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasName("load"),
                               ofClass(hasName("::torch::nn::Module")))
                     .bind("loader")))
          .bind("load"),
      this);
}

/// The first load of module weights in the translation unit.
static void recordLoad(TUState &TU, const CallExpr *Load,
                       const FunctionDecl *Loader) {
  const SourceManager &SM = *TU.SM;
  if (utils::isInLibTorchHeader(Load->getBeginLoc(), SM))
    return;
  // torch::load(optimizer, ...) and torch::load(tensor, ...) load no
  // module weights.
  if (Loader->getQualifiedNameAsString() == "torch::load" &&
      (Load->getNumArgs() == 0 ||
       !utils::isSameOrDerivedFrom(moduleClass(Load->getArg(0)->getType()),
                                   "torch::nn::Module")))
    return;
  if (TU.CheckpointLoad.isInvalid() ||
      SM.isBeforeInTranslationUnit(Load->getBeginLoc(), TU.CheckpointLoad)) {
    TU.CheckpointLoad = Load->getBeginLoc();
    TU.CheckpointLoader = Loader->getQualifiedNameAsString();
  }
}

/// A class of the user's with a convolution member.
static void recordField(TUState &TU, const FieldDecl *Field) {
  const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (RD && !isa<ClassTemplateSpecializationDecl>(RD) &&
      !utils::isInLibTorchHeader(Field->getLocation(), *TU.SM) &&
      moduleType(Field->getType()).Kind == ModuleKind::Conv)
    TU.ClassesWithConvs.insert(RD);
  else if (RD && !isa<ClassTemplateSpecializationDecl>(RD) &&
           !utils::isInLibTorchHeader(Field->getLocation(), *TU.SM) &&
           isUserModuleField(Field))
    TU.ClassesWithModules.insert(RD);
}

/// The entries of a Sequential that a BatchNorm follows.
static void recordSequential(TUState &TU, BiasAnalyzer &Analyzer,
                             const CXXConstructExpr *Seq) {
  if (utils::isInLibTorchHeader(Seq->getBeginLoc(), *TU.SM))
    return;
  std::vector<Entry> Entries = sequentialEntries(Seq);
  for (size_t I = 0; I + 1 < Entries.size(); ++I) {
    ModuleType Next = moduleType(Entries[I + 1].Module->getType());
    if (Next.Kind == ModuleKind::BatchNorm)
      addCandidate(
          TU, Analyzer, Entries[I].Module,
          describeBatchNorm(Next.Name, Entries[I + 1].Name,
                            strip(Entries[I + 1].Module)->getBeginLoc()));
  }
}

void ConvBiasBeforeBatchNormCheck::check(
    const MatchFinder::MatchResult &Result) {
  TU->Ctx = Result.Context;
  TU->SM = Result.SourceManager;
  BiasAnalyzer Analyzer(*Result.Context, *Result.SourceManager);
  const BoundNodes &Nodes = Result.Nodes;
  if (const auto *Load = Nodes.getNodeAs<CallExpr>("load"))
    return recordLoad(*TU, Load, Nodes.getNodeAs<FunctionDecl>("loader"));
  if (const auto *Field = Nodes.getNodeAs<FieldDecl>("field"))
    return recordField(*TU, Field);
  if (const auto *Seq = Nodes.getNodeAs<CXXConstructExpr>("sequential"))
    return recordSequential(*TU, Analyzer, Seq);
  const auto *Push = Nodes.getNodeAs<CXXMemberCallExpr>("push_back");
  if (!Push || utils::isInLibTorchHeader(Push->getBeginLoc(), *TU->SM))
    return;
  if (std::optional<BatchNormUse> BN = pushedBatchNorm(Push, *Result.Context))
    addCandidate(*TU, Analyzer, Push->getArg(Push->getNumArgs() - 1),
                 std::move(*BN));
}

/// The diagnostic of \p Message: its constant text the format string, its
/// user text the arguments.
static DiagnosticBuilder
report(ClangTidyCheck &Check, SourceLocation Loc, const DiagMessage &Message,
       DiagnosticIDs::Level Level = DiagnosticIDs::Warning) {
  std::vector<std::string> Args;
  std::string Format = Message.format(Args);
  DiagnosticBuilder Diag = Check.diag(Loc, Format, Level);
  for (const std::string &Arg : Args)
    Diag << Arg;
  return Diag;
}

void ConvBiasBeforeBatchNormCheck::onEndOfTranslationUnit() {
  std::unique_ptr<TUState> S = std::move(TU);
  TU = std::make_unique<TUState>();
  if (!S->Ctx)
    return;
  BiasAnalyzer Analyzer(*S->Ctx, *S->SM);
  collectMemberCandidates(*S, Analyzer);
  // Only modules of the user's followed by a BatchNorm ask the index.
  if (!S->UserModules.empty() || !S->ClassesWithModules.empty())
    S->Index = projectIndex(*S->SM);
  collectIndexedMembers(*S, Analyzer);
  bindUserModules(*S, Analyzer);
  std::vector<Candidate> Candidates = uniqueCandidates(*S);
  std::vector<Finding> Findings = planFindings(*S, Candidates, getLangOpts());
  for (size_t I = 0; I < Candidates.size(); ++I) {
    const Candidate &C = Candidates[I];
    const Finding &F = Findings[I];
    SourceLocation Loc = C.reportAt()->getBeginLoc();
    utils::recordStatementPayload(getID(), Loc,
                                  C.reportAt(), *S->Ctx);
    {
      auto Diag = report(*this, Loc, F.Message);
      for (const FixItHint &Fix : F.Fixes)
        Diag << Fix;
    }
    for (const Note &N : F.Notes)
      report(*this, N.Loc, N.Message, DiagnosticIDs::Note);
  }
}

TORCH_TIDY_CHECK_FACTORY(ConvBiasBeforeBatchNormCheck)

} // namespace clang::tidy::torch
