//===--- ProjectRun.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// `libtorch-tidy -p build` with no source file: every file of the
// compilation database, analyzed in parallel child processes, with progress
// on a terminal and a summary by check. The files' PCHs come first, each
// built once (files of one LibTorch configuration share one), so that the
// analyses in parallel all find theirs. With the project index: the
// analysis reads the index there is (the previous run's) and collects each
// file's facts; the facts are merged into the index, and when it changed,
// every file runs again, which replays each stored result whose index
// answers still hold and analyzes the others.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_PROJECT_PROJECTRUN_H
#define LIBTORCH_TIDY_DRIVER_PROJECT_PROJECTRUN_H

#include "project/IndexBuild.h"
#include <optional>

#include <string>
#include <vector>

namespace torchtidy {

struct ProjectOptions {
  std::string Self;     ///< this program, run once per file
  std::string BuildDir; ///< the -p directory
  unsigned Jobs = 0;    ///< 0: all cores
  bool FailOnFindings = false;
  bool Fix = false;      ///< --fix: files may share headers, so one at a time
  bool Pch = true;       ///< the automatic PCH: each built first, once
  bool Explain = false;  ///< --cache-explain: say what the PCH phase did
  /// --config or --config-file: the command line's configuration, which a
  /// --config of the driver's would replace.
  bool OwnConfig = false;
  std::string Findings;  ///< merged --export-findings output, or ""
  std::string Sarif;     ///< merged --export-sarif output, or ""
  std::string SarifRoot; ///< its --sarif-root
  /// How to build the project index every child's checks read; none: no
  /// index (a command line with its own --config).
  std::optional<IndexOptions> Index;
  /// The rest of the command line, passed to every child.
  std::vector<std::string> Args;
};

/// Exit codes: 0 done (findings reported), 1 findings with FailOnFindings,
/// 2 no usable compilation database or a file the analyzer could not run on.
int runProject(const ProjectOptions &O);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_PROJECT_PROJECTRUN_H
