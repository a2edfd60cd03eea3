//===--- Dispatch.h - libtorch-tidy-verify ----------------------*- C++ -*-===//
//
// How each finding is verified, from its check's row in the check table
// (checks/CheckTable.def): not at all (no fix-it; a device-only check on a
// machine without CUDA), as a snippet, or with the check's reference
// benchmark (docs/verifier.md, "How a finding is verified").
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_DISPATCH_H
#define LIBTORCH_TIDY_VERIFY_DISPATCH_H

#include "Options.h"
#include "Result.h"
#include "Snippets.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace torchtidy {

/// What remains to measure once every finding has its result.
struct Plan {
  std::vector<VerifyResult> Results; ///< one per finding, in order
  std::vector<PendingSnippet> Snippets;
  std::vector<size_t> References; ///< results for a reference benchmark
};

/// A result for each of \p Findings (the findings file's list), with its
/// verdict where none needs measuring, and what to measure for the others.
Plan planVerification(const nlohmann::json &Findings, const VerifyOptions &O,
                      bool Cuda);

/// Runs the reference benchmarks of the results \p Plan.References names.
void runReferences(const nlohmann::json &Findings, const VerifyOptions &O,
                   Plan &P);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_DISPATCH_H
