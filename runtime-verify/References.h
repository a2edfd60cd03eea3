//===--- References.h - libtorch-tidy-verify --------------------*- C++ -*-===//
//
// The verifier's reference benchmarks by name (the REFERENCE column of
// checks/CheckTable.def), each parameterized by what a finding's payload
// knows.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_REFERENCES_H
#define LIBTORCH_TIDY_VERIFY_REFERENCES_H

#include "Result.h"

#include <nlohmann/json.hpp>

#include <string_view>

namespace torchtidy {

/// Whether a reference benchmark named \p Name exists.
bool hasReferenceBenchmark(std::string_view Name);

/// Runs the reference benchmark \p Name for \p Finding into \p R (kind
/// `reference`, its verdict, or why it measured nothing), with sampling
/// capped at \p TimeCap seconds; what the variants computed is judged
/// against \p Tolerance, the check's (recordReference). Findings with the
/// same workload share one measurement per run. False when there is no
/// benchmark of that name, or it does not measure this finding (R untouched
/// then).
bool runReference(std::string_view Name, const nlohmann::json &Finding,
                  double TimeCap, double Tolerance, VerifyResult &R);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_REFERENCES_H
