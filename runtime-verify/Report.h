//===--- Report.h - libtorch-tidy-verify ------------------------*- C++ -*-===//
//
// What the verifier does with its report (format
// `libtorch-tidy-verify-report`, version 1): the console table, the HTML
// page, the atomic write of either, and the merge of the verdicts back into
// the findings file or a SARIF log. No LibTorch and no LLVM here, so all of
// it is unit tested on hand-made reports.
//
// The renderers accept any JSON: fields that are missing or of the wrong
// type are left out rather than thrown on, since a report may come from an
// older or newer verifier.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_REPORT_H
#define LIBTORCH_TIDY_VERIFY_REPORT_H

#include <nlohmann/json.hpp>

#include <string>

namespace torchtidy {

/// The console table: a header, then one row per result with the check, the
/// file's basename and line, the verdict and either
/// "12.20x (11.80 .. 12.50), reference" when a speedup was measured
/// (followed by "; outputs differ by 3.2e-01" for changes-results) or the
/// reason. Columns are padded to their widest cell. Ends with a line
/// counting the verdicts: "3 findings: 1 faster, 1 not-applicable,
/// 1 not-verifiable".
std::string renderTable(const nlohmann::json &Report);

/// A self-contained HTML page (inline CSS and SVG; no scripts, no external
/// URLs or fonts): the title, the environment, a chart of the measured
/// speedups on a log scale and a table of every result with its reason.
std::string renderHtml(const nlohmann::json &Report);

/// Writes \p Text to \p Path through a new file next to it, renamed over
/// \p Path, so \p Path is never half-written. On failure returns false,
/// removes the temporary file and sets \p Error to one line:
/// "cannot write 'PATH': <strerror>".
bool writeFileAtomically(const std::string &Path, const std::string &Text,
                         std::string &Error);

/// Adds each result's verdict (verdict, and kind, reason, failure, speedup,
/// p_value, difference when present) to the file its finding came from:
/// `findings[index].verification` of a findings file (format
/// `libtorch-tidy-findings`), or
/// `properties["libtorch-tidy/verification"]` of the matching result of a
/// SARIF 2.1.0 log. All or nothing: on failure returns false, sets \p Error
/// to one line and leaves \p Target as it was. Merging twice gives the same
/// document as merging once.
bool mergeVerdicts(const nlohmann::json &Report, nlohmann::json &Target,
                   std::string &Error);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_REPORT_H
