//===--- VerifyMain.cpp - libtorch-tidy-verify ----------------------------===//
//
//   libtorch-tidy-verify FINDINGS.json [--json REPORT.json]
//       [--html REPORT.html] [--merge-into FILE] [options]
//
// Gives each finding of `libtorch-tidy --export-findings` a verdict on this
// machine. A finding whose snippet can be bound (see Harness.h) is rebuilt
// before and after its fix in one generated translation unit and run in a
// child process: outputs compared first, then both variants timed
// interleaved (kind `snippet`; Snippets.h). The child runs sandboxed where
// bubblewrap or unshare works, with time, memory and process-count limits
// (Process.h; docs/verifier.md, "Safety"). Findings whose gain lies outside
// their statement (the check table's GAIN column) or whose snippet cannot be
// bound use the check's reference benchmark (kind `reference`;
// References.h). Dispatch.h decides which.
//
// Exit codes: 0 verified (whatever the verdicts); 2 bad input (command line,
// findings file, config, --torch-dir); 3 snippets needed a LibTorch to build
// against and none was found (the report is still written). One line on
// stderr for each.
//
//===----------------------------------------------------------------------===//

#include "AtomicWrite.h"
#include "CrashReport.h"
#include "FixitApplier.h"
#include "Dispatch.h"
#include "Findings.h"
#include "Options.h"
#include "Process.h"
#include "ProgramMode.h"
#include "Report.h"


#include <torch/cuda.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <unistd.h>

using nlohmann::json;
using namespace torchtidy;

namespace {

int fail(const std::string &Message) {
  std::fprintf(stderr, "error: %s\n", Message.c_str());
  return 2;
}

void onSignal(int Sig) {
  killRunningChild();
  // Only ever one of ours, even if the handler caught it half-written.
  if (const char *Dir = liveTempDir();
      Dir && std::strstr(Dir, "/libtorch-tidy-verify.")) {
    std::error_code EC;
    std::filesystem::remove_all(Dir, EC);
  }
  ::_exit(128 + Sig);
}

/// The console table on stdout, then the report files asked for.
int writeReports(const VerifyReport &Report, const VerifyOptions &O,
                 const std::optional<json> &MergeTarget) {
  std::fputs(renderTable(Report).c_str(), stdout);
  std::fflush(stdout);
  if (!O.Json.empty())
    if (auto Error =
            writeFileAtomically(O.Json, toJson(Report).dump(2) + "\n"))
      return fail(Error->Message);
  if (!O.Html.empty())
    if (auto Error = writeFileAtomically(O.Html, renderHtml(Report)))
      return fail(Error->Message);
  if (!MergeTarget)
    return 0;
  ErrorOr<json> Merged = mergeVerdicts(Report, *MergeTarget);
  if (!Merged)
    return fail("--merge-into: " + Merged.error());
  if (auto Error = writeFileAtomically(O.MergeInto, Merged->dump(2) + "\n"))
    return fail(Error->Message);
  return 0;
}

/// Verifies the findings; the exit code.
int verify(const VerifyOptions &O) {
  ErrorOr<json> Doc = readFindings(O.Findings);
  if (!Doc)
    return fail(Doc.error());
  std::optional<json> MergeTarget;
  if (!O.MergeInto.empty()) {
    ErrorOr<json> Target = readJsonDocument(O.MergeInto);
    if (!Target)
      return fail("--merge-into: cannot read JSON from '" + O.MergeInto +
                  "'");
    MergeTarget = *Target;
  }
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  installCrashReport(killRunningChild);
  if (!dieWithParentIfAsked())
    return 128 + SIGTERM;
  // What verifiers killed with SIGKILL left behind: their temporary
  // directories, and their cgroups (removed when the mechanism is probed).
  removeStaleTempDirs();
  taskLimitMechanism();

  bool Cuda = torch::cuda::is_available();
  const json &Findings = (*Doc)["findings"];
  if (O.programMode()) {
    VerifyReport Report;
    Report.Environment = describeMachine(Cuda);
    int Exit = verifyProgram(Findings, O, Cuda, Report);
    int Written = writeReports(Report, O, MergeTarget);
    return Written ? Written : Exit;
  }
  Plan P = planVerification(Findings, O, Cuda);
  VerifyReport Report;
  Report.Environment = describeMachine(Cuda);
  int Exit = P.Snippets.empty()
                 ? 0
                 : runSnippets(P.Snippets, O, Cuda, P.Results,
                               Report.Environment);
  runReferences(Findings, O, P);
  Report.Results = std::move(P.Results);
  int Written = writeReports(Report, O, MergeTarget);
  return Written ? Written : Exit;
}

} // namespace

int main(int argc, char **argv) {
  // `--apply-fixits=SPEC`: the driver's option of that name, without LLVM,
  // so that tests can compare the two appliers.
  constexpr const char *ApplyFixits = "--apply-fixits=";
  if (argc == 2 && std::strncmp(argv[1], ApplyFixits,
                                std::strlen(ApplyFixits)) == 0)
    return runApplyFixits(argv[1] + std::strlen(ApplyFixits), std::cerr);
  ErrorOr<VerifyOptions> O =
      parseOptions(std::vector<std::string>(argv + 1, argv + argc));
  if (!O)
    return fail(O.error());
  if (O->Help) {
    std::printf("%s\n", usage());
    return 0;
  }
  return verify(*O);
}
