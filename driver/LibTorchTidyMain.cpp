//===--- LibTorchTidyMain.cpp - the libtorch-tidy driver ------------------===//
//
// clang-tidy's own command line (-p, -checks, -config, -fix, -export-fixes,
// -line-filter, -list-checks, ...) with the torch checks linked in, plus
// --export-findings=FILE for the runtime verifier.
//
//===----------------------------------------------------------------------===//

#include "FindingsExport.h"
#include "TorchTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include "utils/FindingPayload.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace clang::tidy::torch {
static ClangTidyModuleRegistry::Add<TorchModule> X(ModuleName,
                                                   ModuleDescription);
} // namespace clang::tidy::torch

int main(int argc, const char **argv) {
  // Take --export-findings out of the command line (before any "--"), and
  // have clang-tidy export its diagnostics for it.
  std::vector<const char *> Args;
  std::string Findings, Fixes;
  bool CompilerArgs = false;
  for (int I = 0; I < argc; ++I) {
    llvm::StringRef A(argv[I]);
    CompilerArgs |= A == "--";
    llvm::StringRef Flag = A;
    if (!CompilerArgs && I > 0 && Flag.consume_front("-")) {
      Flag.consume_front("-");
      if (Flag.consume_front("export-findings")) {
        if (Flag.consume_front("="))
          Findings = Flag.str();
        else if (Flag.empty() && I + 1 < argc)
          Findings = argv[++I];
        if (Findings.empty()) {
          llvm::errs() << "error: --export-findings needs a file name\n";
          return 1;
        }
        continue;
      }
      if (Flag.consume_front("export-fixes="))
        Fixes = Flag.str();
    }
    Args.push_back(argv[I]);
  }
  if (Findings.empty())
    return clang::tidy::clangTidyMain(argc, argv);

  clang::tidy::torch::utils::enablePayloads();
  std::string FixesArg;
  llvm::SmallString<128> TempFixes;
  if (Fixes.empty()) {
    if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
            "libtorch-tidy-fixes", "yaml", TempFixes)) {
      llvm::errs() << "error: cannot create a temporary file: " << EC.message()
                   << "\n";
      return 1;
    }
    // clang-tidy writes the file only when there are diagnostics.
    llvm::sys::fs::remove(TempFixes);
    Fixes = TempFixes.str().str();
    FixesArg = "--export-fixes=" + Fixes;
    Args.insert(Args.begin() + 1, FixesArg.c_str());
  }
  int RC =
      clang::tidy::clangTidyMain(static_cast<int>(Args.size()), Args.data());
  std::string Error = clang::tidy::torch::exportFindings(Fixes, Findings);
  if (!TempFixes.empty())
    llvm::sys::fs::remove(TempFixes);
  if (!Error.empty()) {
    llvm::errs() << "error: --export-findings: " << Error << "\n";
    return RC ? RC : 1;
  }
  return RC;
}
