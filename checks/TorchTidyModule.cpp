//===--- TorchTidyModule.cpp - libtorch-tidy ------------------------------===//

#include "TorchTidyModule.h"
#include "ProjectFactsCollector.h"

namespace clang::tidy::torch {

// Each check's source defines its factory with TORCH_TIDY_CHECK_FACTORY.
#define TORCH_CHECK(NAME, CLASS, ...)                                          \
  void add##CLASS(ClangTidyCheckFactories &Factories, llvm::StringRef Name);
#include "CheckTable.def"

void TorchModule::addCheckFactories(ClangTidyCheckFactories &CheckFactories) {
#define TORCH_CHECK(NAME, CLASS, ...) add##CLASS(CheckFactories, NAME);
#include "CheckTable.def"
  // The index child's collector only: users never see it.
  if (projectFactsEnabled())
    CheckFactories.registerCheck<ProjectFactsCollector>(
        ProjectFactsCollectorName);
}

} // namespace clang::tidy::torch
