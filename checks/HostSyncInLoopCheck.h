//===--- HostSyncInLoopCheck.h - libtorch-tidy ------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTSYNCINLOOPCHECK_H
#define LIBTORCH_TIDY_CHECKS_HOSTSYNCINLOOPCHECK_H

#include "HostSyncAccumulateFix.h"
#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>
#include <optional>
#include <string>

namespace clang::tidy::torch {

namespace hostsync {
class SyncAnalysis;
struct Finding;
struct FoundSync;
} // namespace hostsync
namespace utils {
class RunFrequency;
} // namespace utils

/// Finds calls that make the host wait for the device (item(), cpu(),
/// to(kCPU), nonzero(), printing a tensor, torch::cuda::synchronize(), ...)
/// on every iteration of a loop, directly, through called functions and
/// lambdas, or inside macro arguments. With a project index, also the
/// syncs of the functions the index says run per step (called from a loop
/// in another file), once per call.
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
  struct FunctionWalk;

  bool projectNeverSelectsCuda(const SourceManager &SM);
  bool mayRunOnDevice(const FunctionDecl *FD, bool PerStep, ASTContext &Ctx,
                      const SourceManager &SM);
  bool unitMayRunOnDevice(ASTContext &Ctx, const SourceManager &SM);
  bool runsOnlyOnCpu(const Stmt *Loop, ASTContext &Ctx);
  void checkLoop(const Stmt *Loop, ASTContext &Ctx, const SourceManager &SM);
  void checkFunction(const FunctionDecl *FD, ASTContext &Ctx,
                     const SourceManager &SM);
  hostsync::SyncAnalysis &analysis(ASTContext &Ctx, const SourceManager &SM);
  const FunctionWalk &walkOf(const FunctionDecl *FD, ASTContext &Ctx,
                             const SourceManager &SM);
  const utils::StepReason *perStepReason(const FunctionDecl *FD,
                                         ASTContext &Ctx,
                                         const SourceManager &SM);
  bool reportedPerStep(const hostsync::FoundSync &F, ASTContext &Ctx,
                       const SourceManager &SM);
  void report(const hostsync::Finding &Found, const Stmt *Loop,
              bool InInstantiation, ASTContext &Ctx);
  void reportPerStep(const hostsync::Finding &Found, const FunctionDecl *FD,
                     const utils::StepReason &Why, ASTContext &Ctx);
  void notePerStep(const FunctionDecl *FD, const utils::StepReason &Why,
                   const SourceManager &SM);

  const unsigned MaxCallDepth;
  const bool CheckCpuOnlyCode;
  /// true, false or unknown: whether any file of the project selects CUDA,
  /// as the user says it, and as a whole-project run of the driver found.
  const std::string ProjectSelectsCuda;
  const std::string DetectedProjectSelectsCuda;
  /// Whether the translation unit mentions a CUDA device at all.
  std::optional<bool> MentionsCuda;
  /// The unit holds its whole program (utils::devicesClosedInUnit).
  std::optional<bool> ClosedProgram;
  /// Whether it holds device-generic code: a device it receives.
  bool DeviceGeneric = false;
  /// Per translation unit: function summaries, and the sites already
  /// reported (a template's loop is seen once per instantiation).
  std::unique_ptr<hostsync::SyncAnalysis> Analysis;
  /// Per translation unit: the calls of each function, to see where they run.
  std::unique_ptr<utils::RunFrequency> Calls;
  llvm::DenseSet<unsigned> Reported;
  /// Per translation unit, with a project index: what one call of a
  /// function runs outside its loops.
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<FunctionWalk>>
      FunctionWalks;
  /// Per translation unit: the device totals the fixes declare, so that two
  /// loops of a function never declare the same one.
  hostsync::HandedOutNames AccumulatorNames;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_HOSTSYNCINLOOPCHECK_H
