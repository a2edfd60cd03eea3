//===--- Snippets.h - libtorch-tidy-verify ----------------------*- C++ -*-===//
//
// The snippet pipeline: findings whose code can be bound are built before
// and after their fix into one harness, run in sandboxed child processes,
// compared, then timed (kind `snippet`; docs/verifier.md, "Snippets").
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_SNIPPETS_H
#define LIBTORCH_TIDY_VERIFY_SNIPPETS_H

#include "Harness.h"
#include "Options.h"
#include "Result.h"


#include <nlohmann/json.hpp>

#include <vector>

namespace torchtidy {

struct PendingSnippet {
  size_t Result; ///< index in the results
  HarnessEntry Entry;
  /// The relative difference of values the fix may make (its check's
  /// tolerance in the check table).
  double Tolerance = 0;
};

/// Builds and runs \p Pending, filling their results; records the compiler,
/// LibTorch, sandbox and process limit in \p Env. Returns the verifier's
/// exit code: 0, or 3 (2 with --torch-dir) when no LibTorch was found to
/// build against, 2 when no temporary directory could be made.
int runSnippets(const std::vector<PendingSnippet> &Pending,
                const VerifyOptions &O, bool Cuda,
                std::vector<VerifyResult> &Results, nlohmann::json &Env);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_SNIPPETS_H
