//===--- DataParallelCheck.h - libtorch-tidy --------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_DATAPARALLELCHECK_H
#define LIBTORCH_TIDY_CHECKS_DATAPARALLELCHECK_H

#include "utils/RunFrequency.h"
#include "utils/TorchCheck.h"
#include <memory>

namespace clang::tidy::torch {

/// Finds torch::nn::parallel::data_parallel() called per training step over
/// more than one device: every call replicates the module to each device.
///
/// For the user-facing documentation see docs/checks/data-parallel.md.
class DataParallelCheck : public TorchCheck {
public:
  DataParallelCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  std::unique_ptr<utils::RunFrequency> Frequency;
  const ASTContext *FrequencyContext = nullptr;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_DATAPARALLELCHECK_H
