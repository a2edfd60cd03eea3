//===--- LibTorchTidyMain.cpp - the libtorch-tidy driver ------------------===//
//
// clang-tidy's own command line (-p, -checks, -config, -fix, -export-fixes,
// -line-filter, -list-checks, ...) with the torch checks linked in.
//
//===----------------------------------------------------------------------===//

#include "TorchTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/tool/ClangTidyMain.h"

namespace clang::tidy::torch {
static ClangTidyModuleRegistry::Add<TorchModule> X(ModuleName,
                                                   ModuleDescription);
} // namespace clang::tidy::torch

int main(int argc, const char **argv) {
  return clang::tidy::clangTidyMain(argc, argv);
}
