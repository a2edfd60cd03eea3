//===--- DebugApiEnabledCheck.h - libtorch-tidy -----------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_DEBUGAPIENABLEDCHECK_H
#define LIBTORCH_TIDY_CHECKS_DEBUGAPIENABLEDCHECK_H

#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Regex.h"
#include <vector>

namespace clang::tidy::torch {

/// Finds debugging switches left on for training: anomaly detection
/// (AnomalyMode::set_enabled(true), a DetectAnomalyGuard around the loop),
/// the legacy and Kineto profilers wrapping the whole loop, and, as a remark,
/// deterministic algorithms. Switches under a runtime flag, in debug-only
/// preprocessor branches or in tests are left alone.
///
/// For the user-facing documentation see docs/checks/debug-api-enabled.md.
class DebugApiEnabledCheck : public TorchCheck {
public:
  DebugApiEnabledCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { DebugRanges.clear(); }

private:
  bool isSilenced(const Stmt *S, SourceLocation Loc,
                  const ast_matchers::MatchFinder::MatchResult &Result);
  /// Whether \p Call (a switch such as set_enabled(true)) provably turns the
  /// debugging API on, outside debug-only and silenced code.
  bool switchesOn(const CallExpr *Call,
                  const ast_matchers::MatchFinder::MatchResult &Result);
  /// A note at \p Loop, when there is one: the loop a warning speaks of.
  void noteTrainingLoop(const Stmt *Loop);
  void checkAnomalySwitch(const CallExpr *Call,
                          const ast_matchers::MatchFinder::MatchResult &Result);
  void checkGuard(const VarDecl *VD,
                  const ast_matchers::MatchFinder::MatchResult &Result);
  void checkProfiler(const CallExpr *Call,
                     const ast_matchers::MatchFinder::MatchResult &Result);
  void checkDeterministic(const CXXMemberCallExpr *Call,
                          const ast_matchers::MatchFinder::MatchResult &Result);
  std::vector<FixItHint> debugOnly(const Stmt *S,
                                   const SourceManager &SM) const;
  /// What the message advises for an anomaly switch: "remove it" or "keep
  /// it to debug builds".
  StringRef fixVerb() const;

  /// "wrap" (in #ifndef NDEBUG) or "remove".
  const std::string AnomalyFix;
  const std::string TestFilePattern;
  llvm::Regex TestFile;
  /// Per file, the byte ranges of its debug-only preprocessor branches.
  llvm::DenseMap<FileID, std::vector<std::pair<unsigned, unsigned>>>
      DebugRanges;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_DEBUGAPIENABLEDCHECK_H
