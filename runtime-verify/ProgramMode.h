//===--- ProgramMode.h - libtorch-tidy-verify -------------------*- C++ -*-===//
//
// Program mode (--project BUILD_DIR --run 'COMMAND'): every finding with a
// fix-it is verified on the user's own program. The baseline, each
// finding's fix alone and all fixes together are built in scratch copies
// (ProjectTree.h); each variant runs once untimed and its printed numbers
// are compared with the baseline's as far as its check lets the fix change
// them (ProgramRun.h); then rounds in which
// every variant runs once, in a new random order each round, until the
// stop rule, --runs or the time cap; and the verdict rule of the snippets
// (Verdict.h) on the paired ratios against the baseline of the same round.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PROGRAMMODE_H
#define LIBTORCH_TIDY_VERIFY_PROGRAMMODE_H

#include "Options.h"
#include "Result.h"

#include <nlohmann/json.hpp>

namespace torchtidy {

/// Rounds before the time cap or the noise may stop the runs: the fewest in
/// which the Wilcoxon signed-rank test can reach p <= 0.01.
constexpr int MinProgramRounds = 8;

/// Verifies \p Findings (the findings file's list) on the program;
/// fills \p Report's results, all-fixes row and program section. The exit
/// code: 0, or 2 when the baseline cannot be built or run (every result
/// then says why).
int verifyProgram(const nlohmann::json &Findings, const VerifyOptions &O,
                  bool Cuda, VerifyReport &Report);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_PROGRAMMODE_H
