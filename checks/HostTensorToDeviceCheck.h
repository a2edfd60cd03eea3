//===--- HostTensorToDeviceCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTTENSORTODEVICECHECK_H
#define LIBTORCH_TIDY_CHECKS_HOSTTENSORTODEVICECHECK_H

#include "HostCopyIndex.h"
#include "utils/RunFrequency.h"
#include "utils/TorchCheck.h"
#include <memory>

namespace clang::tidy::torch {

/// Finds tensors made on the host by a factory (randn, zeros, ones, empty,
/// full, rand, randint, arange, linspace, eye, tensor({...})) and then copied
/// to a device, also through shape-only ops and dtype conversions, where the
/// code runs repeatedly, and creates them on the device through their
/// options. Also host values turned into device tensors with torch::tensor in
/// a loop, and host-made tensor members copied to the device per step.
///
/// For the user-facing documentation see docs/checks/host-tensor-to-device.md.
class HostTensorToDeviceCheck : public TorchCheck {
public:
  HostTensorToDeviceCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Frequency.reset(); }

private:
  utils::RunFrequency &frequency(ASTContext &Ctx);
  IndexedRepeat repeatOf(const Stmt *S, ASTContext &Ctx);
  void noteIndexed(const IndexedRepeat &Indexed, SourceLocation Loc);
  bool copiesNothing(const Expr *Site, const Expr *Device, ASTContext &Ctx);
  void checkMove(const CXXMemberCallExpr *Move, ASTContext &Ctx);
  void checkMemberMove(const CXXMemberCallExpr *Move, const FieldDecl *Field,
                       ASTContext &Ctx);
  void checkDeviceTensor(const CallExpr *Call, ASTContext &Ctx);
  void checkComputedMove(const CXXMemberCallExpr *Move, ASTContext &Ctx);
  void reportMemberMove(const CXXMemberCallExpr *Move, const FieldDecl *Field,
                        ASTContext &Ctx);

  std::unique_ptr<utils::RunFrequency> Frequency;
  const ASTContext *FrequencyContext = nullptr;
};

/// The factory call that makes the host tensor \p E is a view or dtype
/// conversion of (through shape-only ops, dtype-only `.to(dtype)` and local
/// variables), or null. torch-blocking-host-to-device-copy leaves such
/// tensors to this check.
const CallExpr *hostFactoryBehind(const Expr *E, ASTContext &Ctx);

/// Whether \p Value is a tensor made on the host: from factories, host data
/// or both, through ops that keep the device (not a registered buffer). The
/// project facts use it for member tensors and returned tensors.
bool isMadeOnHost(const Expr *Value, ASTContext &Ctx);

/// Whether every return of \p FD, which has its body here, is a tensor made
/// on the host (isMadeOnHost).
bool returnsHostTensor(const FunctionDecl *FD, ASTContext &Ctx);

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_HOSTTENSORTODEVICECHECK_H
