//===--- LibTorchTidyMain.cpp - the libtorch-tidy driver ------------------===//
//
// clang-tidy's own command line (-p, -checks, -config, -fix, -export-fixes,
// -line-filter, -list-checks, ...) with the torch checks linked in, plus
// --export-findings=FILE for the runtime verifier, and --verify
// (--verify-html=FILE, --verify-json=FILE) to run it on the findings right
// after the analysis: one command that analyzes and verifies.
//
//===----------------------------------------------------------------------===//

#include "FindingsExport.h"
#include "TorchTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include "utils/FindingPayload.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace clang::tidy::torch {
static ClangTidyModuleRegistry::Add<TorchModule> X(ModuleName,
                                                   ModuleDescription);
} // namespace clang::tidy::torch

namespace {

/// libtorch-tidy-verify: $LIBTORCH_TIDY_VERIFY, next to this program (an
/// install), in the build tree beside it, or on PATH.
std::string findVerifier(const char *Argv0) {
  if (const char *Env = std::getenv("LIBTORCH_TIDY_VERIFY"); Env && *Env)
    return Env;
  static int Anchor;
  std::string Self = llvm::sys::fs::getMainExecutable(Argv0, &Anchor);
  llvm::StringRef Dir = llvm::sys::path::parent_path(Self);
  llvm::SmallString<256> Installed(Dir), BuildTree(Dir);
  llvm::sys::path::append(Installed, "libtorch-tidy-verify");
  llvm::sys::path::append(BuildTree, "..", "runtime-verify",
                          "libtorch-tidy-verify");
  for (const llvm::SmallString<256> &P : {Installed, BuildTree})
    if (llvm::sys::fs::can_execute(P))
      return P.str().str();
  auto OnPath = llvm::sys::findProgramByName("libtorch-tidy-verify");
  return OnPath ? *OnPath : "";
}

} // namespace

int main(int argc, const char **argv) {
  // Take --export-findings out of the command line (before any "--"), and
  // have clang-tidy export its diagnostics for it.
  std::vector<const char *> Args;
  std::string Findings, Fixes, VerifyHtml, VerifyJson;
  bool Verify = false;
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
      if (Flag == "verify" || Flag.starts_with("verify-html=") ||
          Flag.starts_with("verify-json=")) {
        Verify = true;
        if (Flag.consume_front("verify-html="))
          VerifyHtml = Flag.str();
        else if (Flag.consume_front("verify-json="))
          VerifyJson = Flag.str();
        continue;
      }
      if (Flag.consume_front("export-fixes="))
        Fixes = Flag.str();
    }
    Args.push_back(argv[I]);
  }
  if (Findings.empty() && !Verify)
    return clang::tidy::clangTidyMain(argc, argv);
  std::string Verifier;
  llvm::SmallString<128> TempFindings;
  if (Verify) {
    Verifier = findVerifier(argv[0]);
    if (Verifier.empty()) {
      llvm::errs() << "error: --verify: libtorch-tidy-verify not found (it is "
                      "built with LibTorch; set LIBTORCH_TIDY_VERIFY)\n";
      return 1;
    }
    if (Findings.empty()) {
      if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
              "libtorch-tidy-findings", "json", TempFindings)) {
        llvm::errs() << "error: cannot create a temporary file: "
                     << EC.message() << "\n";
        return 1;
      }
      Findings = TempFindings.str().str();
    }
  }

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
    if (!TempFindings.empty())
      llvm::sys::fs::remove(TempFindings);
    return RC ? RC : 1;
  }
  if (!Verify)
    return RC;
  // The analysis output comes first; the verifier's table after it.
  llvm::outs().flush();
  std::vector<std::string> VArgs = {Verifier, Findings};
  if (!VerifyHtml.empty())
    VArgs.insert(VArgs.end(), {"--html", VerifyHtml});
  if (!VerifyJson.empty())
    VArgs.insert(VArgs.end(), {"--json", VerifyJson});
  std::vector<llvm::StringRef> Refs(VArgs.begin(), VArgs.end());
  std::string ExecError;
  int VRC = llvm::sys::ExecuteAndWait(Verifier, Refs, std::nullopt, {}, 0, 0,
                                      &ExecError);
  if (!TempFindings.empty())
    llvm::sys::fs::remove(TempFindings);
  if (VRC < 0) {
    llvm::errs() << "error: --verify: cannot run " << Verifier << ": "
                 << ExecError << "\n";
    return 1;
  }
  return VRC ? VRC : RC;
}
