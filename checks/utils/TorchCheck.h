//===--- TorchCheck.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// The base of the torch checks.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_UTILS_TORCHCHECK_H
#define LIBTORCH_TIDY_UTILS_TORCHCHECK_H

#include "ProjectIndex.h"
#include "UnitTestCode.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Lex/Preprocessor.h"
#include <vector>

namespace clang::tidy::torch {

/// Narrows the AST traversal of a run to the code outside LibTorch's and the
/// system's headers, where the torch checks never report. torch.h is most of
/// a translation unit: without this, matching and the parent map (built for
/// every node on the first hasAncestor or getParents) cost a fifth of the
/// parse. Only when every enabled check is a torch check: other checks, and
/// the static analyzer that runs after the matchers, may want those headers.
/// Never when the host already narrowed the traversal (clangd does, to the
/// main file).
class TraversalScopeLimiter : public ast_matchers::MatchFinder::MatchCallback {
public:
  explicit TraversalScopeLimiter(ClangTidyContext *Context)
      : Context(Context) {}
  void run(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  ClangTidyContext *Context;
};

/// The top-level declarations of the translation unit outside LibTorch's
/// headers: the traversal scope of a run that looks at user code only.
std::vector<Decl *> declsOutsideLibTorch(ASTContext &Ctx);

/// True when every check the glob list \p Checks enables is a torch check
/// (compiler diagnostics aside).
bool enablesOnlyTorchChecks(llvm::StringRef Checks);

class TorchCheck : public ClangTidyCheck {
public:
  TorchCheck(StringRef Name, ClangTidyContext *Context)
      : ClangTidyCheck(Name, Context), Limiter(Context),
        IndexPath(Options.getLocalOrGlobal("TorchProjectIndex", "")) {}

  /// Checks call this first from their own registerMatchers.
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;

  /// Keeps the compiler going after a fatal error, as clangd does: a header
  /// that is missing on this machine (OpenCV, a project header outside the
  /// include path) would otherwise end the parse there, and no torch check
  /// would see the rest of the file. Only inline setters of the host's
  /// DiagnosticsEngine are used, so the plugin still links nothing.
  void registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                           Preprocessor *) override {
    PP->getDiagnostics().setFatalsAsError(true);
    // Errors that follow from the missing declarations must not hit the
    // error limit, which would stop the parse again.
    PP->getDiagnostics().setErrorLimit(0);
    Tests.reset(); // a new translation unit
  }

protected:
  /// The project index the run was given (the global option
  /// TorchProjectIndex), or null: no index, or one that is stale for a file
  /// other than the main file, which is then said once per run. Without it
  /// the checks keep their single-file rules.
  const utils::ProjectIndex *projectIndex(const SourceManager &SM);

private:
  /// Drops the matches in unit tests' code (utils/UnitTestCode.h): tests run
  /// on small inputs to check results, and performance advice there is
  /// noise.
  void run(const ast_matchers::MatchFinder::MatchResult &Result) override;
  bool inUnitTest(const ast_matchers::MatchFinder::MatchResult &Result);

  TraversalScopeLimiter Limiter;
  std::unique_ptr<utils::UnitTestCode> Tests;
  std::string IndexPath;
  std::shared_ptr<const utils::ProjectIndex> Index;
  FileID IndexFor;
  bool SaidWhy = false;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_UTILS_TORCHCHECK_H
