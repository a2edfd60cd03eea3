//===--- CudnnBenchmarkCheck.h - libtorch-tidy ------------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_CUDNNBENCHMARKCHECK_H
#define LIBTORCH_TIDY_CHECKS_CUDNNBENCHMARKCHECK_H

#include "utils/TorchCheck.h"

namespace clang::tidy::torch {

/// Finds programs that train convolutions on a device that can be CUDA and
/// never enable cuDNN's autotuner, and enables it after the device is chosen.
///
/// For the user-facing documentation see docs/checks/cudnn-benchmark.md.
class CudnnBenchmarkCheck : public TorchCheck {
public:
  CudnnBenchmarkCheck(StringRef Name, ClangTidyContext *Context)
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

#endif // LIBTORCH_TIDY_CHECKS_CUDNNBENCHMARKCHECK_H
