//===--- TorchTidyModule.cpp - libtorch-tidy ------------------------------===//

#include "TorchTidyModule.h"
#include "HostSyncInLoopCheck.h"
#include "ZeroGradCheck.h"

namespace clang::tidy::torch {

void TorchModule::addCheckFactories(ClangTidyCheckFactories &CheckFactories) {
  CheckFactories.registerCheck<HostSyncInLoopCheck>(
      "torch-host-sync-in-loop");
  CheckFactories.registerCheck<ZeroGradCheck>("torch-zero-grad");
}

} // namespace clang::tidy::torch
