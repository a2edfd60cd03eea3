//===--- ConvBiasBeforeBatchNormCheck.h - libtorch-tidy ---------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_CONVBIASBEFOREBATCHNORMCHECK_H
#define LIBTORCH_TIDY_CHECKS_CONVBIASBEFOREBATCHNORMCHECK_H

#include "utils/TorchCheck.h"
#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::torch {

namespace convbias {
struct TUState;
} // namespace convbias

/// Finds convolutions whose output goes straight into a BatchNorm while their
/// bias is on: the BatchNorm subtracts the per-channel mean, bias included, so
/// the bias costs an add forward, a reduction backward and a parameter for
/// nothing. Offers `.bias(false)` on the convolution's options.
///
/// For the user-facing documentation see
/// docs/checks/conv-bias-before-batchnorm.md.
class ConvBiasBeforeBatchNormCheck : public TorchCheck {
public:
  ConvBiasBeforeBatchNormCheck(StringRef Name, ClangTidyContext *Context);
  ~ConvBiasBeforeBatchNormCheck() override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

private:
  const std::vector<StringRef> CheckpointLoaders;
  std::unique_ptr<convbias::TUState> TU;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_CONVBIASBEFOREBATCHNORMCHECK_H
