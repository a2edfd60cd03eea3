//===--- DebugApiEnabledCheck.cpp - libtorch-tidy -------------------------===//
//
// Debugging switches cost the most when they are forgotten: anomaly mode
// records a stack trace for every autograd node and scans every gradient for
// NaN, and a profiler left around the training loop records every operator
// of every step. The check reports such a switch when a training loop (one
// that calls backward() or an optimizer's step(), directly or through the
// functions it calls) runs while it is on, and stays silent for switches that
// are clearly deliberate: under a runtime condition, in a debug-only
// preprocessor branch, or in a test.
//
//===----------------------------------------------------------------------===//

#include "DebugApiEnabledCheck.h"
#include "TorchTidyModule.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "utils/ConstantFacts.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/TrainingCode.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

constexpr llvm::StringLiteral AnomalyCost =
    "every backward() then records a stack trace for each autograd node and "
    "checks each gradient for NaN, which slows training several times on CPU "
    "and GPU";

//===----------------------------------------------------------------------===//
// Debug-only preprocessor branches
//===----------------------------------------------------------------------===//

/// Whether the branch of `#if Cond` (or `#ifdef`/`#ifndef` when \p Kind says
/// so), and its #else, are compiled by debug builds only.
std::pair<bool, bool> classifyCondition(StringRef Kind, StringRef Cond) {
  std::string Text;
  for (char C : Cond)
    if (!isspace(static_cast<unsigned char>(C)) && C != '(' && C != ')')
      Text += C;
  StringRef T(Text);
  if (Kind == "ifdef" || Kind == "ifndef") {
    bool Debug = T != "NDEBUG" && T.contains("DEBUG");
    bool NoDebug = T == "NDEBUG";
    return Kind == "ifdef" ? std::make_pair(Debug, NoDebug)
                           : std::make_pair(NoDebug, Debug);
  }
  if (T == "!definedNDEBUG" || T == "!NDEBUG")
    return {true, false};
  if (T == "definedNDEBUG" || T == "NDEBUG")
    return {false, true};
  if (T.contains("NDEBUG") || !T.contains("DEBUG") || T.contains("||") ||
      T.contains("&&"))
    return {false, false};
  bool Negated = T.starts_with("!");
  return {!Negated, Negated};
}

/// The byte ranges of a file's debug-only preprocessor branches:
/// `#ifndef NDEBUG`, `#if !defined(NDEBUG)`, the #else of `#ifdef NDEBUG`,
/// `#ifdef DEBUG`, and the like. The file is scanned as text, line by line:
/// a PPCallbacks subclass would tie the plugin to one clang-tidy's vtables.
std::vector<std::pair<unsigned, unsigned>> debugRanges(StringRef Buffer) {
  struct Branch {
    unsigned Start;
    bool Debug, ElseDebug;
  };
  std::vector<Branch> Stack;
  std::vector<std::pair<unsigned, unsigned>> Ranges;
  auto Close = [&](unsigned End) {
    if (Stack.back().Debug)
      Ranges.push_back({Stack.back().Start, End});
  };
  size_t Pos = 0;
  while (Pos < Buffer.size()) {
    size_t End = Buffer.find('\n', Pos);
    if (End == StringRef::npos)
      End = Buffer.size();
    StringRef Line = Buffer.slice(Pos, End).trim();
    if (Line.consume_front("#")) {
      Line = Line.ltrim();
      StringRef Kind = Line.take_while([](char C) { return isalpha(C); });
      StringRef Rest = Line.drop_front(Kind.size());
      Rest = Rest.split("//").first.trim();
      if (Kind == "if" || Kind == "ifdef" || Kind == "ifndef") {
        auto [Debug, ElseDebug] = classifyCondition(Kind, Rest);
        Stack.push_back({static_cast<unsigned>(Pos), Debug, ElseDebug});
      } else if (!Stack.empty() && Kind == "elif") {
        Close(Pos);
        Stack.back() = {static_cast<unsigned>(Pos),
                        classifyCondition("if", Rest).first, false};
      } else if (!Stack.empty() && Kind == "else") {
        Close(Pos);
        Stack.back() = {static_cast<unsigned>(Pos), Stack.back().ElseDebug,
                        false};
      } else if (!Stack.empty() && Kind == "endif") {
        Close(Pos);
        Stack.pop_back();
      }
    }
    Pos = End + 1;
  }
  return Ranges;
}

//===----------------------------------------------------------------------===//
// Training loops
//===----------------------------------------------------------------------===//

bool isLoop(const Stmt *S) {
  return isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(S);
}

const Stmt *parentStmtOfDecl(const Decl *D, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*D);
  return Parents.empty() ? nullptr : Parents[0].get<Stmt>();
}

const Stmt *parentStmt(const Stmt *S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  return Parents.empty() ? nullptr : Parents[0].get<Stmt>();
}

/// Whether \p S calls \p Name, one of the switches that turn the debugging
/// off again.
bool callsSwitchOff(const Stmt *S, StringRef Name, ASTContext &Ctx) {
  for (const BoundNodes &N : match(findAll(callExpr().bind("call")), *S, Ctx)) {
    const auto *Call = N.getNodeAs<CallExpr>("call");
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !FD->getIdentifier() || FD->getName() != Name)
      continue;
    if (Name == "disableProfiler")
      return true;
    // AnomalyMode::set_enabled(false)
    std::optional<bool> On = Call->getNumArgs()
                                 ? utils::provableBool(Call->getArg(0), Ctx)
                                 : std::nullopt;
    if (On && !*On)
      return true;
  }
  return false;
}

/// The training loop that runs while the switch at \p Site is on: one that
/// encloses it, or the first one after it in its block (and, with
/// \p WalkUp, in the blocks around it). \p OffName names the call that turns
/// the switch off; after one, nothing is found and \p SwitchedOff is set.
const Stmt *loopWhileOn(const Stmt *Site, bool WalkUp, StringRef OffName,
                        ASTContext &Ctx, bool *SwitchedOff = nullptr) {
  utils::TrainingCode Loops(Ctx);
  for (const Stmt *P = parentStmt(Site, Ctx); P; P = parentStmt(P, Ctx))
    if (isLoop(P) && !utils::isRunOnceLoop(P, Ctx) && Loops.trains(P))
      return P;
  const Stmt *Cur = Site;
  for (const Stmt *P = parentStmt(Cur, Ctx); P; P = parentStmt(Cur, Ctx)) {
    if (const auto *Block = dyn_cast<CompoundStmt>(P)) {
      bool After = false;
      for (const Stmt *S : Block->body()) {
        if (After) {
          const Stmt *Loop = Loops.firstLoopThatTrains(S);
          // Switched off before the loop, or inside it (a few iterations).
          if (callsSwitchOff(S, OffName, Ctx) &&
              (!Loop || callsSwitchOff(Loop, OffName, Ctx) || !isLoop(S))) {
            if (SwitchedOff)
              *SwitchedOff = true;
            return nullptr;
          }
          if (Loop)
            return Loop;
        }
        After |= S == Cur;
      }
      if (!WalkUp)
        return nullptr;
    }
    Cur = P;
  }
  return nullptr;
}

/// The text of the lines [Begin, End] of a statement alone on its lines:
/// the offsets of the first line's start and of the character after the
/// last line's newline; std::nullopt when other code shares the lines.
std::optional<std::pair<SourceLocation, SourceLocation>>
wholeLines(SourceRange R, const SourceManager &SM, const LangOptions &LO) {
  if (R.getBegin().isMacroID() || R.getEnd().isMacroID())
    return std::nullopt;
  // The statement's semicolon.
  std::optional<Token> Semi = Lexer::findNextToken(R.getEnd(), SM, LO);
  SourceLocation Last = R.getEnd();
  if (Semi && Semi->is(tok::semi))
    Last = Semi->getLocation();
  auto [FID, BeginOff] = SM.getDecomposedLoc(R.getBegin());
  auto [LastFID, LastOff] = SM.getDecomposedLoc(Last);
  if (FID != LastFID)
    return std::nullopt;
  StringRef Buf = SM.getBufferData(FID);
  size_t LineStart = Buf.rfind('\n', BeginOff);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  if (!Buf.slice(LineStart, BeginOff).trim().empty())
    return std::nullopt;
  size_t LineEnd = Buf.find('\n', LastOff);
  if (LineEnd == StringRef::npos)
    return std::nullopt;
  StringRef Rest = Buf.slice(LastOff + 1, LineEnd).trim();
  if (!Rest.empty() && !Rest.starts_with("//"))
    return std::nullopt;
  SourceLocation FileStart = SM.getLocForStartOfFile(FID);
  return std::make_pair(FileStart.getLocWithOffset(LineStart),
                        FileStart.getLocWithOffset(LineEnd + 1));
}

} // namespace

DebugApiEnabledCheck::DebugApiEnabledCheck(StringRef Name,
                                           ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      AnomalyFix(Options.get("AnomalyFix", "wrap").str()),
      TestFilePattern(
          Options
              .get("TestFilePattern",
                   "(^|/)(test|tests|testing)/([^/]+/)?[^/]+$|_(unit)?tests?"
                   "\\.(cc|cpp|cxx)$")
              .str()),
      TestFile(TestFilePattern) {
  std::string Error;
  if (!TestFile.isValid(Error))
    configurationDiag("invalid TestFilePattern '%0' for check '%1': %2")
        << TestFilePattern << Name << Error;
  if (AnomalyFix != "wrap" && AnomalyFix != "remove")
    configurationDiag("invalid AnomalyFix '%0' for check '%1': expected "
                      "'wrap' or 'remove'")
        << AnomalyFix << Name;
}

void DebugApiEnabledCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "AnomalyFix", AnomalyFix);
  Options.store(Opts, "TestFilePattern", TestFilePattern);
}

void DebugApiEnabledCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto NotInstantiated = unless(isInTemplateInstantiation());
  Finder->addMatcher(
      callExpr(utils::isOutsideLibTorch(),
               callee(cxxMethodDecl(
                   hasName("set_enabled"),
                   ofClass(hasName("::torch::autograd::AnomalyMode")))),
               NotInstantiated)
          .bind("anomaly"),
      this);
  Finder->addMatcher(
      varDecl(utils::isOutsideLibTorch(),
              hasType(hasUnqualifiedDesugaredType(
                  recordType(hasDeclaration(cxxRecordDecl(hasAnyName(
                      "::torch::autograd::DetectAnomalyGuard",
                      "::torch::autograd::profiler::RecordProfile")))))),
              hasLocalStorage(), unless(parmVarDecl()),
              unless(isInstantiated()))
          .bind("guard"),
      this);
  Finder->addMatcher(
      callExpr(utils::isOutsideLibTorch(),
               callee(functionDecl(
                   hasName("::torch::autograd::profiler::enableProfiler"))),
               NotInstantiated)
          .bind("profiler"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasName("setDeterministicAlgorithms"),
                               ofClass(hasName("::at::Context")))),
          NotInstantiated)
          .bind("deterministic"),
      this);
}

bool DebugApiEnabledCheck::isSilenced(const Stmt *S, SourceLocation Loc,
                                      const MatchFinder::MatchResult &Result) {
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  SourceLocation FileLoc = SM.getExpansionLoc(Loc);
  if (utils::isInLibTorchHeader(Loc, SM))
    return true;
  auto [FID, Offset] = SM.getDecomposedLoc(FileLoc);
  auto It = DebugRanges.find(FID);
  if (It == DebugRanges.end())
    It = DebugRanges.try_emplace(FID, debugRanges(SM.getBufferData(FID))).first;
  for (const auto &[Begin, End] : It->second)
    if (Begin <= Offset && Offset < End)
      return true;
  if (TestFile.match(SM.getFilename(FileLoc)))
    return true;
  // Under a runtime condition, up to the enclosing function, which may be a
  // test.
  const Stmt *Child = S;
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    if (const auto *FD = Parents[0].get<FunctionDecl>()) {
      if (FD->getIdentifier() && FD->getName() == "TestBody")
        return true;
      SourceLocation Begin = FD->getBeginLoc();
      if (Begin.isMacroID()) {
        StringRef Macro =
            Lexer::getImmediateMacroName(Begin, SM, getLangOpts());
        if (Macro.starts_with("TEST") || Macro.starts_with("TYPED_TEST") ||
            Macro == "SCENARIO" || Macro == "BOOST_AUTO_TEST_CASE")
          return true;
      }
      return false;
    }
    const Stmt *P = Parents[0].get<Stmt>();
    if (!P) {
      Parents = Ctx.getParents(Parents[0]);
      continue;
    }
    auto Runtime = [&](const Expr *Cond) {
      return !Cond || !utils::provableBool(Cond, Ctx);
    };
    if (const auto *If = dyn_cast<IfStmt>(P); If && Child != If->getCond() &&
                                              !If->isConsteval() &&
                                              Runtime(If->getCond()))
      return true;
    if (const auto *CO = dyn_cast<ConditionalOperator>(P);
        CO && Child != CO->getCond() && Runtime(CO->getCond()))
      return true;
    if (isa<SwitchStmt>(P) && Child != cast<SwitchStmt>(P)->getCond())
      return true;
    if (const auto *BO = dyn_cast<BinaryOperator>(P);
        BO && BO->isLogicalOp() && Child == BO->getRHS())
      return true;
    Child = P;
    Parents = Ctx.getParents(*P);
  }
  return false;
}

void DebugApiEnabledCheck::check(const MatchFinder::MatchResult &Result) {
  const BoundNodes &Nodes = Result.Nodes;
  if (const auto *Call = Nodes.getNodeAs<CallExpr>("anomaly"))
    checkAnomalySwitch(Call, Result);
  else if (const auto *VD = Nodes.getNodeAs<VarDecl>("guard"))
    checkGuard(VD, Result);
  else if (const auto *Call = Nodes.getNodeAs<CallExpr>("profiler"))
    checkProfiler(Call, Result);
  else if (const auto *Call =
               Nodes.getNodeAs<CXXMemberCallExpr>("deterministic"))
    checkDeterministic(Call, Result);
}

/// Wraps the statement \p S, alone on its lines, in #ifndef NDEBUG, or
/// removes it.
std::vector<FixItHint>
DebugApiEnabledCheck::debugOnly(const Stmt *S, const SourceManager &SM) const {
  auto Lines = wholeLines(S->getSourceRange(), SM, getLangOpts());
  if (!Lines)
    return {};
  if (AnomalyFix == "remove")
    return {FixItHint::CreateRemoval(
        CharSourceRange::getCharRange(Lines->first, Lines->second))};
  return {FixItHint::CreateInsertion(Lines->first, "#ifndef NDEBUG\n"),
          FixItHint::CreateInsertion(Lines->second, "#endif\n")};
}

StringRef DebugApiEnabledCheck::fixVerb() const {
  return AnomalyFix == "remove" ? "remove it" : "keep it to debug builds";
}

bool DebugApiEnabledCheck::switchesOn(const CallExpr *Call,
                                      const MatchFinder::MatchResult &Result) {
  std::optional<bool> On =
      Call->getNumArgs()
          ? utils::provableBool(Call->getArg(0), *Result.Context)
          : std::nullopt;
  return On && *On && !isSilenced(Call, Call->getBeginLoc(), Result);
}

void DebugApiEnabledCheck::checkAnomalySwitch(
    const CallExpr *Call, const MatchFinder::MatchResult &Result) {
  if (!switchesOn(Call, Result))
    return;
  ASTContext &Ctx = *Result.Context;
  // The statement: the call, with its cleanups, directly in a block.
  const Stmt *Statement = Call;
  if (const Stmt *P = parentStmt(Call, Ctx);
      isa_and_nonnull<ExprWithCleanups>(P))
    Statement = P;
  const Stmt *Block = parentStmt(Statement, Ctx);
  bool SwitchedOff = false;
  const Stmt *Loop =
      loopWhileOn(Statement, /*WalkUp=*/true, "set_enabled", Ctx, &SwitchedOff);
  if (SwitchedOff)
    return;
  utils::recordStatementPayload(getID(), Call->getBeginLoc(),
                                Call, Ctx);
  {
    auto Diag = diag(Call->getBeginLoc(),
                     "anomaly detection switched on here stays on "
                     "%select{for every later backward() of the program|"
                     "for the training loop}0: %1; %2")
                << (Loop != nullptr) << AnomalyCost << fixVerb();
    if (isa_and_nonnull<CompoundStmt>(Block))
      for (const FixItHint &F : debugOnly(Statement, *Result.SourceManager))
        Diag << F;
  }
  noteTrainingLoop(Loop);
}

void DebugApiEnabledCheck::checkGuard(const VarDecl *VD,
                                      const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  const auto *DS = dyn_cast_or_null<DeclStmt>(parentStmtOfDecl(VD, Ctx));
  if (!DS || isSilenced(DS, VD->getLocation(), Result))
    return;
  const Stmt *Loop = loopWhileOn(DS, /*WalkUp=*/false, "", Ctx);
  if (!Loop)
    return;
  bool Profile =
      VD->getType()->getAsCXXRecordDecl()->getName() == "RecordProfile";
  utils::recordStatementPayload(getID(), VD->getLocation(),
                                DS, Ctx);
  if (Profile) {
    diag(VD->getLocation(),
         "legacy profiler '%0' records every operator of the training loop "
         "and keeps the events until it is destroyed; profile a few "
         "iterations instead")
        << VD->getName();
    noteTrainingLoop(Loop);
    return;
  }
  {
    auto Diag = diag(VD->getLocation(),
                     "'%0' keeps anomaly detection on around the training "
                     "loop: %1; %2")
                << VD->getName() << AnomalyCost << fixVerb();
    // The guard's only effect is anomaly mode; a name used elsewhere would
    // not compile without it.
    if (DS->isSingleDecl() && !VD->isReferenced() &&
        isa_and_nonnull<CompoundStmt>(parentStmt(DS, Ctx)))
      for (const FixItHint &F : debugOnly(DS, *Result.SourceManager))
        Diag << F;
  }
  noteTrainingLoop(Loop);
}

void DebugApiEnabledCheck::checkProfiler(
    const CallExpr *Call, const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  if (isSilenced(Call, Call->getBeginLoc(), Result))
    return;
  const Stmt *Statement = Call;
  if (const Stmt *P = parentStmt(Call, Ctx);
      isa_and_nonnull<ExprWithCleanups>(P))
    Statement = P;
  const Stmt *Loop =
      loopWhileOn(Statement, /*WalkUp=*/true, "disableProfiler", Ctx);
  if (!Loop || callsSwitchOff(Loop, "disableProfiler", Ctx))
    return;
  utils::recordStatementPayload(getID(), Call->getBeginLoc(),
                                Call, Ctx);
  diag(Call->getBeginLoc(),
       "profiler enabled here stays on through the training loop with no "
       "disableProfiler() before the loop ends: every operator of every "
       "iteration is recorded and kept in memory; profile a few iterations "
       "instead");
  noteTrainingLoop(Loop);
}

void DebugApiEnabledCheck::checkDeterministic(
    const CXXMemberCallExpr *Call, const MatchFinder::MatchResult &Result) {
  if (!switchesOn(Call, Result))
    return;
  ASTContext &Ctx = *Result.Context;
  utils::recordStatementPayload(getID(), Call->getBeginLoc(),
                                Call, Ctx);
  diag(Call->getBeginLoc(),
       "deterministic algorithms are switched on for the whole program: "
       "some operators run slower kernels, or throw where only a "
       "nondeterministic one exists; keep it only where reproducible results "
       "are needed",
       DiagnosticIDs::Remark);
}

void DebugApiEnabledCheck::noteTrainingLoop(const Stmt *Loop) {
  if (Loop)
    diag(Loop->getBeginLoc(), "training loop here", DiagnosticIDs::Note);
}

TORCH_TIDY_CHECK_FACTORY(DebugApiEnabledCheck)

} // namespace clang::tidy::torch
