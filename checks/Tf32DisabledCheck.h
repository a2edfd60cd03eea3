//===--- Tf32DisabledCheck.h - libtorch-tidy --------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_TF32DISABLEDCHECK_H
#define LIBTORCH_TIDY_CHECKS_TF32DISABLEDCHECK_H

#include "CudaLibrarySettings.h"

namespace clang::tidy::torch {

/// Finds programs that train FP32 matmul-heavy layers on a device that can be
/// CUDA and never allow TF32 for cuBLAS, and sets the float32 matmul precision
/// to "high" after the device is chosen.
///
/// For the user-facing documentation see docs/checks/tf32-disabled.md.
class Tf32DisabledCheck : public cudalib::ProgramSettingCheck {
public:
  using ProgramSettingCheck::ProgramSettingCheck;

  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;

private:
  void checkProgram(const cudalib::ProgramFacts &Program) override;

  Preprocessor *PP = nullptr;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_TF32DISABLEDCHECK_H
