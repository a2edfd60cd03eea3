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

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_HOSTTENSORTODEVICECHECK_H
