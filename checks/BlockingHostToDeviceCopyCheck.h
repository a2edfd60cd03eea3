//===--- BlockingHostToDeviceCopyCheck.h - libtorch-tidy --------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_BLOCKINGHOSTTODEVICECOPYCHECK_H
#define LIBTORCH_TIDY_CHECKS_BLOCKINGHOSTTODEVICECOPYCHECK_H

#include "utils/RunFrequency.h"
#include "utils/TorchCheck.h"
#include <memory>

namespace clang::tidy::torch {

/// Finds per-step copies of host data to the device (in loops, in functions
/// called from loops, in forward()), that block
/// the host because the source is not pinned and non_blocking is not set, and
/// rewrites them to `.pin_memory().to(device, /*non_blocking=*/true)`.
///
/// For the user-facing documentation see
/// docs/checks/blocking-host-to-device-copy.md.
class BlockingHostToDeviceCopyCheck : public TorchCheck {
public:
  BlockingHostToDeviceCopyCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Frequency.reset(); }

private:
  std::unique_ptr<utils::RunFrequency> Frequency;
  const ASTContext *FrequencyContext = nullptr;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_BLOCKINGHOSTTODEVICECOPYCHECK_H
