//===--- TorchTidyModule.h - libtorch-tidy ----------------------*- C++ -*-===//
//
// The "torch" clang-tidy module: every torch-* check. Hosts register it with
// ClangTidyModuleRegistry themselves, so the plugin can refuse to register
// into a clang-tidy it was not built for.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_TORCHTIDYMODULE_H
#define LIBTORCH_TIDY_CHECKS_TORCHTIDYMODULE_H

#include "clang-tidy/ClangTidyModule.h"

namespace clang::tidy::torch {

class TorchModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &CheckFactories) override;
};

/// The name and description every host registers the module under.
inline constexpr const char *ModuleName = "torch-module";
inline constexpr const char *ModuleDescription =
    "Adds LibTorch performance checks (torch-*).";

/// Defines the factory through which TorchModule registers \p CLASS under
/// its name in CheckTable.def; every check's source ends with it.
#define TORCH_TIDY_CHECK_FACTORY(CLASS)                                        \
  void add##CLASS(ClangTidyCheckFactories &Factories, llvm::StringRef Name) { \
    Factories.registerCheck<CLASS>(Name);                                      \
  }

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_TORCHTIDYMODULE_H
