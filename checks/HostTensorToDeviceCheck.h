//===--- HostTensorToDeviceCheck.h - libtorch-tidy --------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTTENSORTODEVICECHECK_H
#define LIBTORCH_TIDY_CHECKS_HOSTTENSORTODEVICECHECK_H

#include "utils/TorchCheck.h"

namespace clang::tidy::torch {

/// Finds tensors made on the host by a factory (randn, zeros, ones, empty,
/// full, rand, randint, arange, linspace, eye, tensor({...})) and then copied
/// to a device, and creates them on the device through their options.
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
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_HOSTTENSORTODEVICECHECK_H
