//===--- Findings.h - libtorch-tidy-verify ----------------------*- C++ -*-===//
//
// The findings file the verifier reads (docs/findings-format.md), and what
// it records of the machine it measures on.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_FINDINGS_H
#define LIBTORCH_TIDY_VERIFY_FINDINGS_H

#include "ErrorOr.h"

#include <nlohmann/json.hpp>

#include <string>

namespace torchtidy {

/// The findings file at \p Path, checked field by field: every finding has
/// a check, message and line, and its code (when there) before and after
/// texts. A one-line error naming \p Path otherwise.
ErrorOr<nlohmann::json> readFindings(const std::string &Path);

/// Any JSON document (the --merge-into target).
ErrorOr<nlohmann::json> readJsonDocument(const std::string &Path);

/// What this machine is, for every report (measurement.md rule 10): device,
/// LibTorch, threads, date, CPU, CUDA and cuDNN versions, GPU and driver.
nlohmann::json describeMachine(bool Cuda);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_FINDINGS_H
