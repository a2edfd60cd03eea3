//===--- DebugApiEnabledCheck.h - libtorch-tidy -----------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_DEBUGAPIENABLEDCHECK_H
#define LIBTORCH_TIDY_CHECKS_DEBUGAPIENABLEDCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "llvm/Support/Regex.h"
#include <memory>
#include <vector>

namespace clang::tidy::torch {

/// Finds debugging switches left on for training: anomaly detection
/// (AnomalyMode::set_enabled(true), a DetectAnomalyGuard around the loop),
/// the legacy and Kineto profilers wrapping the whole loop, and, as a remark,
/// deterministic algorithms. Switches under a runtime flag, in debug-only
/// preprocessor branches or in tests are left alone.
///
/// For the user-facing documentation see docs/checks/debug-api-enabled.md.
class DebugApiEnabledCheck : public ClangTidyCheck {
public:
  DebugApiEnabledCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  bool isSilenced(const Stmt *S, SourceLocation Loc,
                  const ast_matchers::MatchFinder::MatchResult &Result);

  /// "wrap" (in #ifndef NDEBUG) or "remove".
  const std::string AnomalyFix;
  const std::string TestFilePattern;
  llvm::Regex TestFile;
  /// The source ranges of debug-only preprocessor branches.
  std::shared_ptr<std::vector<SourceRange>> DebugRegions;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_DEBUGAPIENABLEDCHECK_H
