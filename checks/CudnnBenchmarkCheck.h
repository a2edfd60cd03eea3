//===--- CudnnBenchmarkCheck.h - libtorch-tidy ------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_CUDNNBENCHMARKCHECK_H
#define LIBTORCH_TIDY_CHECKS_CUDNNBENCHMARKCHECK_H

#include "CudaLibrarySettings.h"

namespace clang::tidy::torch {

/// Finds programs that train convolutions on a device that can be CUDA and
/// never enable cuDNN's autotuner, and enables it after the device is chosen.
///
/// For the user-facing documentation see docs/checks/cudnn-benchmark.md.
class CudnnBenchmarkCheck : public cudalib::ProgramSettingCheck {
public:
  using ProgramSettingCheck::ProgramSettingCheck;

private:
  void checkProgram(const cudalib::ProgramFacts &Program) override;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_CUDNNBENCHMARKCHECK_H
