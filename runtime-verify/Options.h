//===--- Options.h - libtorch-tidy-verify -----------------------*- C++ -*-===//
//
// The verifier's command line, parsed once into one struct.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_OPTIONS_H
#define LIBTORCH_TIDY_VERIFY_OPTIONS_H

#include "ErrorOr.h"
#include "Harness.h"


#include <string>
#include <vector>

namespace torchtidy {

struct VerifyOptions {
  bool Help = false; ///< --help: print usage() and do nothing else
  std::string Findings;
  std::string Json, Html, MergeInto; ///< where the reports go
  std::string TorchDir, Cxx, CacheDir;
  double TimeCap = 10, Timeout = 120; ///< seconds
  long MemoryMiB = 8192;
  /// Processes and threads of one harness; by default room for LibTorch's
  /// three thread pools of one thread per core.
  long MaxTasks = 64 + 4 * static_cast<long>(defaultCores());
  bool NoCache = false, MeasureOnCpu = false, NoSandbox = false;
  /// Every finding measured by its check's reference benchmark, none by
  /// its snippet (a GPU run's reference table: one result per check).
  bool ReferencesOnly = false;
  BindingConfig Config; ///< --shape, --value and --config

  // Program mode (docs/verifier.md, "Program mode"): each finding's fix is
  // built into a scratch copy of the user's project and its command timed.
  std::string Project;      ///< --project BUILD_DIR (or a source tree)
  std::string Run;          ///< --run 'COMMAND', with {build} and {source}
  std::string BuildCommand; ///< --build-command 'CMD', instead of CMake
  std::string Metric;       ///< --metric REGEX: time its first group
  std::string Compare = "numbers"; ///< --compare numbers|exact|none
  /// --fix-tool: accepted for older drivers and scripts, ignored (the
  /// verifier applies fix-its itself, FixitApplier.h).
  std::string FixTool;
  long Runs = 0;            ///< --runs N: rounds; 0: the stop rule decides
  std::string Timing = "auto"; ///< --timing auto|cpu|wall
  bool TimeCapSet = false;  ///< --time-cap was given
  /// --no-precompiled-headers: scratch builds as the project's own are.
  bool NoPrecompiledHeaders = false;
  bool PrecompiledHeaders = false; ///< whatever the compiler, not Clang only

  bool programMode() const { return !Project.empty(); }

  static unsigned defaultCores();
};

/// "usage: libtorch-tidy-verify FINDINGS.json [--json REPORT.json] ...".
const char *usage();

/// Parses the arguments after the program's name. The error is one line
/// (an unknown option adds the usage on a second), without "error: ".
ErrorOr<VerifyOptions> parseOptions(const std::vector<std::string> &Args);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_OPTIONS_H
