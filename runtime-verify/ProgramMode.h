//===--- ProgramMode.h - libtorch-tidy-verify -------------------*- C++ -*-===//
//
// Program mode (--project BUILD_DIR --run 'COMMAND'): every finding with a
// fix-it is verified on the user's own program. The baseline, each
// finding's fix alone and all fixes together are built in scratch copies
// (ProjectTree.h); each variant runs once untimed and its printed numbers
// are compared with the baseline's as far as its check lets the fix change
// them (ProgramRun.h); then rounds in which every variant still undecided
// runs once with the baseline, in a new random order each round, judged at
// the looks of the sequential rule (Sequential.h) on the paired ratios
// against the baseline of the same round, until each is decided, the
// budget is spent, or --runs rounds (one look at the end).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PROGRAMMODE_H
#define LIBTORCH_TIDY_VERIFY_PROGRAMMODE_H

#include "Options.h"
#include "Result.h"

#include <nlohmann/json.hpp>

namespace torchtidy {

/// Verifies \p Findings (the findings file's list) on the program;
/// fills \p Report's results, all-fixes row and program section. The exit
/// code: 0, or 2 when the baseline cannot be built or run (every result
/// then says why).
int verifyProgram(const nlohmann::json &Findings, const VerifyOptions &O,
                  bool Cuda, VerifyReport &Report);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_PROGRAMMODE_H
