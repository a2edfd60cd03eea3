//===--- Tf32DisabledCheck.h - libtorch-tidy ------------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_TF32DISABLEDCHECK_H
#define LIBTORCH_TIDY_CHECKS_TF32DISABLEDCHECK_H

#include "utils/TorchCheck.h"

namespace clang::tidy::torch {

/// Finds programs that train FP32 matmul-heavy layers on a device that can be
/// CUDA and never allow TF32 for cuBLAS, and sets the float32 matmul precision
/// to "high" after the device is chosen.
///
/// For the user-facing documentation see docs/checks/tf32-disabled.md.
class Tf32DisabledCheck : public TorchCheck {
public:
  Tf32DisabledCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Ctx = nullptr; }
  void onEndOfTranslationUnit() override;

private:
  ASTContext *Ctx = nullptr;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_TF32DISABLEDCHECK_H
