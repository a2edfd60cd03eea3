//===--- BlockingHostToDeviceCopyCheck.h - libtorch-tidy --------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_BLOCKINGHOSTTODEVICECOPYCHECK_H
#define LIBTORCH_TIDY_CHECKS_BLOCKINGHOSTTODEVICECOPYCHECK_H

#include "HostCopyIndex.h"
#include "utils/DeviceAnalysis.h"
#include "utils/RunFrequency.h"
#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseSet.h"
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
  void onStartOfTranslationUnit() override {
    Frequency.reset();
    ReportedInTemplates.clear();
  }

private:
  bool isPerStepHostData(const CXXMemberCallExpr *Copy,
                         utils::DeviceAnalysis &Devices,
                         const utils::ProjectIndex *Index, ASTContext &Ctx);
  void report(const CXXMemberCallExpr *Copy, const Expr *Target,
              const IndexedRepeat &Indexed, utils::DeviceAnalysis &Devices,
              ASTContext &Ctx);

  std::unique_ptr<utils::RunFrequency> Frequency;
  const ASTContext *FrequencyContext = nullptr;
  /// A template's copy is seen once per instantiation: reported once.
  llvm::DenseSet<SourceLocation> ReportedInTemplates;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_BLOCKINGHOSTTODEVICECOPYCHECK_H
