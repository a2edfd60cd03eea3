//===--- ZeroGradCheck.h - libtorch-tidy ------------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_ZEROGRADCHECK_H
#define LIBTORCH_TIDY_CHECKS_ZEROGRADCHECK_H

#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>

namespace clang::tidy::torch {

/// Finds gradient clearing that fills the gradients with zeros instead of
/// resetting them: Optimizer::zero_grad() on LibTorch 1.x, Module::zero_grad()
/// where its default zero-fills, zero_grad(false), and loops calling
/// grad().zero_().
///
/// For the user-facing documentation see docs/checks/zero-grad.md.
class ZeroGradCheck : public TorchCheck {
public:
  ZeroGradCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  void checkZeroGradCall(const CXXMemberCallExpr *Call,
                         const CXXMethodDecl *Method,
                         const ast_matchers::MatchFinder::MatchResult &Result);
  std::optional<FixItHint> manualResetFix(const CXXMemberCallExpr *Call,
                                          bool VersionFromHeaders,
                                          const SourceManager &SM,
                                          ASTContext &Ctx) const;
  void checkManualZero(const CXXMemberCallExpr *ZeroCall,
                       const CXXMemberCallExpr *GradAccess,
                       const ast_matchers::MatchFinder::MatchResult &Result);
  /// A note at \p ReadAt, when valid: the read that rules the fix-it out.
  void noteGradientRead(SourceLocation ReadAt);

  const bool IncludeModules;
  const bool ManualLoops;
  const bool VersionGuard;
  const std::string TorchVersion;
  Preprocessor *PP = nullptr;
  /// The calls reported in this translation unit: a call in a template is
  /// seen once per instantiation, and reported once.
  llvm::DenseSet<SourceLocation::UIntTy> Reported;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_ZEROGRADCHECK_H
