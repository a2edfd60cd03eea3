//===--- TorchCheck.cpp - libtorch-tidy -----------------------------------===//

#include "TorchCheck.h"
#include "ProjectIndexFinder.h"
#include "llvm/Support/FileSystem.h"
#include "LibTorchHeaders.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

namespace clang::tidy::torch {

using namespace ast_matchers;

bool enablesOnlyTorchChecks(llvm::StringRef Checks) {
  // Later globs win, and clang-tidy puts its defaults
  // ("clang-diagnostic-*,clang-analyzer-*") before the user's: a positive
  // glob counts unless a later negative one covers it.
  llvm::SmallVector<llvm::StringRef, 8> Positive;
  llvm::SmallVector<llvm::StringRef, 8> Globs;
  Checks.split(Globs, ',');
  for (llvm::StringRef Glob : Globs) {
    // Globs may also be separated by newlines in a .clang-tidy file.
    llvm::SmallVector<llvm::StringRef, 2> Lines;
    Glob.split(Lines, '\n');
    for (llvm::StringRef G : Lines) {
      G = G.trim();
      if (G.empty())
        continue;
      if (!G.consume_front("-")) {
        Positive.push_back(G);
        continue;
      }
      // Only a prefix pattern ("foo*", "*") or an exact name is read; a
      // negative glob of another shape removes nothing, to be safe.
      llvm::StringRef Prefix = G;
      bool Star = Prefix.consume_back("*");
      if (Prefix.contains('*'))
        continue;
      llvm::erase_if(Positive, [&](llvm::StringRef P) {
        return Star ? P.starts_with(Prefix) : P == Prefix;
      });
    }
  }
  for (llvm::StringRef P : Positive)
    if (!P.starts_with("torch") && !P.starts_with("clang-diagnostic-"))
      return false;
  return true;
}

const utils::ProjectIndex *TorchCheck::projectIndex(const SourceManager &SM) {
  if (IndexPath.empty() && !utils::hasProjectIndexFinder())
    return nullptr;
  FileID Main = SM.getMainFileID();
  if (IndexFor == Main)
    return Index.get();
  IndexFor = Main;
  Index.reset();
  std::string MainFile;
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(Main)) {
    llvm::SmallString<256> Real;
    MainFile = llvm::sys::fs::real_path(FE->getName(), Real)
                   ? FE->getName().str()
                   : Real.str().str();
  }
  // A host that finds the index itself (libtorch-clangd): none is no index.
  std::string Path =
      IndexPath.empty() ? utils::findProjectIndex(MainFile) : IndexPath;
  if (Path.empty())
    return nullptr;
  std::string Why;
  Index = utils::loadProjectIndex(Path, MainFile, Why);
  // Whether there was an index at all is an answer the findings depend on.
  utils::recordIndexAnswer("loaded", "", Index ? "yes" : "no");
  if (!Index && !SaidWhy) {
    SaidWhy = true;
    configurationDiag("the project index was not used: %0; run "
                      "'libtorch-tidy -p BUILD_DIR --update-index'")
        << Why;
  }
  return Index.get();
}

bool TorchCheck::inUnitTest(const MatchFinder::MatchResult &Result) {
  if (!Tests)
    Tests = std::make_unique<utils::UnitTestCode>(*Result.Context);
  if (Tests->empty())
    return false;
  for (const auto &[ID, Node] : Result.Nodes.getMap()) {
    SourceLocation Loc;
    if (const auto *S = Node.get<Stmt>())
      Loc = S->getBeginLoc();
    else if (const auto *D = Node.get<Decl>();
             D && !isa<TranslationUnitDecl>(D))
      Loc = D->getLocation();
    if (Tests->contains(Loc))
      return true;
  }
  return false;
}

// ClangTidyCheck::run only calls check().
void TorchCheck::run(const MatchFinder::MatchResult &Result) {
  if (!inUnitTest(Result))
    check(Result);
}

void TorchCheck::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(translationUnitDecl(), &Limiter);
}

// The translation unit is matched before the traversal enters its children,
// and RecursiveASTVisitor reads the traversal scope only then.
std::vector<Decl *> declsOutsideLibTorch(ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  std::vector<Decl *> Narrow;
  for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!utils::isInLibTorchHeader(D->getBeginLoc(), SM) ||
        !utils::isInLibTorchHeader(D->getLocation(), SM))
      Narrow.push_back(D);
  return Narrow;
}

void TraversalScopeLimiter::run(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  std::vector<Decl *> Scope = Ctx.getTraversalScope();
  if (Scope.size() != 1 || !isa<TranslationUnitDecl>(Scope.front()))
    return;
  const std::optional<std::string> &Checks = Context->getOptions().Checks;
  if (!Checks || !enablesOnlyTorchChecks(*Checks))
    return;
  // It stays narrow to the end: checks that ask for parents when matching
  // is over (diagnostics emitted at the end of the translation unit) would
  // otherwise build the parent map of every header.
  Ctx.setTraversalScope(declsOutsideLibTorch(Ctx));
}

} // namespace clang::tidy::torch
