//===--- TorchTidyModule.cpp - libtorch-tidy ------------------------------===//

#include "TorchTidyModule.h"
#include "BlockingHostToDeviceCopyCheck.h"
#include "ConvBiasBeforeBatchNormCheck.h"
#include "DebugApiEnabledCheck.h"
#include "HostSyncInLoopCheck.h"
#include "HostTensorToDeviceCheck.h"
#include "ZeroGradCheck.h"

namespace clang::tidy::torch {

void TorchModule::addCheckFactories(ClangTidyCheckFactories &CheckFactories) {
  CheckFactories.registerCheck<BlockingHostToDeviceCopyCheck>(
      "torch-blocking-host-to-device-copy");
  CheckFactories.registerCheck<ConvBiasBeforeBatchNormCheck>(
      "torch-conv-bias-before-batchnorm");
  CheckFactories.registerCheck<DebugApiEnabledCheck>("torch-debug-api-enabled");
  CheckFactories.registerCheck<HostSyncInLoopCheck>("torch-host-sync-in-loop");
  CheckFactories.registerCheck<HostTensorToDeviceCheck>(
      "torch-host-tensor-to-device");
  CheckFactories.registerCheck<ZeroGradCheck>("torch-zero-grad");
}

} // namespace clang::tidy::torch
