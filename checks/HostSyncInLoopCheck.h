//===--- HostSyncInLoopCheck.h - libtorch-tidy ------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTSYNCINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_HOSTSYNCINLOOPCHECK_H

#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>
#include <optional>
#include <string>

namespace clang::tidy::torch {

namespace hostsync {
class SyncAnalysis;
struct Finding;
} // namespace hostsync
namespace utils {
class RunFrequency;
} // namespace utils

/// Finds calls that make the host wait for the device (item(), cpu(),
/// to(kCPU), nonzero(), printing a tensor, torch::cuda::synchronize(), ...)
/// on every iteration of a loop, directly, through called functions and
/// lambdas, or inside macro arguments.
///
/// For the user-facing documentation see docs/checks/host-sync-in-loop.md.
class HostSyncInLoopCheck : public TorchCheck {
public:
  HostSyncInLoopCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;
  ~HostSyncInLoopCheck() override;

private:
  bool projectNeverSelectsCuda(const SourceManager &SM);
  bool mayRunOnDevice(ASTContext &Ctx, const SourceManager &SM);
  bool runsOnlyOnCpu(const Stmt *Loop, ASTContext &Ctx);
  void report(const hostsync::Finding &Found, const Stmt *Loop,
              bool InInstantiation, ASTContext &Ctx);

  const unsigned MaxCallDepth;
  const bool CheckCpuOnlyCode;
  /// true, false or unknown: whether any file of the project selects CUDA,
  /// as the user says it, and as a whole-project run of the driver found.
  const std::string ProjectSelectsCuda;
  const std::string DetectedProjectSelectsCuda;
  /// Whether the translation unit mentions a CUDA device at all.
  std::optional<bool> MentionsCuda;
  /// Whether it holds device-generic code: a device it receives.
  bool DeviceGeneric = false;
  /// Per translation unit: function summaries, and the sites already
  /// reported (a template's loop is seen once per instantiation).
  std::unique_ptr<hostsync::SyncAnalysis> Analysis;
  /// Per translation unit: the calls of each function, to see where they run.
  std::unique_ptr<utils::RunFrequency> Calls;
  llvm::DenseSet<unsigned> Reported;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_HOSTSYNCINLOOPCHECK_H
