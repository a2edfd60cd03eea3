//===--- Report.h - libtorch-tidy-verify ------------------------*- C++ -*-===//
//
// What the verifier does with its report (Result.h), one file each: the
// console table (ConsoleReport.cpp), the HTML page (HtmlReport.cpp) and the
// merge of the verdicts back into the findings file or a SARIF log
// (MergeReport.cpp). No LibTorch and no LLVM here, so all of it is unit
// tested on hand-made reports.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_REPORT_H
#define LIBTORCH_TIDY_VERIFY_REPORT_H

#include "ErrorOr.h"
#include "Result.h"

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
std::string renderTable(const VerifyReport &Report);

/// A self-contained HTML page (inline CSS and SVG; no scripts, no external
/// URLs or fonts): the title, the environment, a chart of the measured
/// speedups on a log scale and a table of every result with its reason.
std::string renderHtml(const VerifyReport &Report);

/// \p Target with each result's verification (verificationJson) added to
/// the finding it came from: `findings[index].verification` of a findings
/// file (format `libtorch-tidy-findings`), or
/// `properties["libtorch-tidy/verification"]` of the matching result of a
/// SARIF 2.1.0 log. All or nothing: a one-line error when any result has no
/// place in \p Target. Merging twice gives the same document as merging
/// once.
ErrorOr<nlohmann::json> mergeVerdicts(const VerifyReport &Report,
                                      const nlohmann::json &Target);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_REPORT_H
