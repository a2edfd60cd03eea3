//===--- ConsoleReport.cpp - libtorch-tidy-verify -------------------------===//
//
// The console table of a verifier report.
//
//===----------------------------------------------------------------------===//

#include "Report.h"
#include "ReportText.h"

#include <algorithm>
#include <array>

namespace torchtidy {
namespace {

using Row = std::array<std::string, 4>;

/// What the comparison of a result's values says, where the table shows
/// it: every difference read against a tolerance (a reference benchmark's),
/// how results a fix may change moved, and how changed results differ.
std::string differenceDetail(const VerifyResult &R) {
  if (R.Diff && R.Diff->Tolerance)
    return toleranceText(*R.Diff);
  if (R.Expected)
    return expectedText(*R.Expected);
  if (R.Verdict != Outcome::ChangesResults)
    return "";
  if (R.FirstDifference)
    return R.Reason;
  std::optional<double> MaxAbs = R.Diff ? R.Diff->MaxAbs : std::nullopt;
  return MaxAbs ? "outputs differ by " + sci1(*MaxAbs) : "outputs differ";
}

/// What program mode timed, in words.
std::string timingName(const std::string &Time) {
  if (Time == "cpu")
    return "CPU time";
  if (Time == "wall")
    return "wall time";
  if (Time == "metric")
    return "--metric";
  return Time;
}

/// The last column: the speedup and how it was measured, or the reason.
std::string tableDetail(const VerifyResult &R) {
  std::vector<std::string> Parts;
  if (R.Speedup)
    Parts.push_back(speedupText(*R.Speedup) +
                    (R.Kind.empty() ? "" : ", " + R.Kind) +
                    (R.Time.empty() ? "" : ", " + timingName(R.Time)));
  if (std::string Difference = differenceDetail(R); !Difference.empty())
    Parts.push_back(Difference);
  // Why no verdict, and what would decide it (program mode says both).
  bool Why = !R.Speedup || (R.Verdict == Outcome::Ambiguous &&
                            R.Kind == "program");
  if (Why && !R.Reason.empty() && !R.FirstDifference)
    Parts.push_back(R.Reason);
  if (R.BuildSeconds)
    Parts.push_back("build " + fixed2(*R.BuildSeconds) + " s");
  return oneLine(joined(Parts, "; "));
}

/// Each cell but the last padded to its column's widest.
std::string alignedRows(const std::vector<Row> &Rows) {
  std::array<size_t, 3> Width = {0, 0, 0};
  for (const Row &Cells : Rows)
    for (size_t C = 0; C < Width.size(); ++C)
      Width[C] = std::max(Width[C], codePoints(Cells[C]));
  std::string Out;
  for (const Row &Cells : Rows) {
    std::string Line;
    for (size_t C = 0; C < Width.size(); ++C)
      Line +=
          Cells[C] + std::string(Width[C] - codePoints(Cells[C]), ' ') + "  ";
    Line += Cells[3];
    while (!Line.empty() && Line.back() == ' ')
      Line.pop_back();
    Out += Line + "\n";
  }
  return Out;
}

/// Program mode: the baseline's build, the comparison and the wall time.
std::string programLine(const VerifyReport &Report) {
  const nlohmann::json &P = Report.Program;
  if (!P.is_object())
    return "";
  std::string Line = "program: baseline build " +
                     fixed2(P.value("baseline_build_seconds", 0.0)) +
                     " s, " + std::to_string(P.value("rounds", 0)) +
                     " rounds, timed: " + timingName(P.value("timing", "")) +
                     ", results compared: " + P.value("compare", "");
  if (P.contains("compare_reason"))
    Line += " (" + P.value("compare_reason", "") + ")";
  Line += ", wall time " + fixed2(P.value("wall_seconds", 0.0)) + " s";
  if (P.contains("note"))
    Line += "; " + P.value("note", "");
  if (P.contains("build_method"))
    Line += "; variants: " + P.value("build_method", "");
  return oneLine(Line) + "\n";
}

} // namespace

std::string renderTable(const VerifyReport &Report) {
  const std::vector<VerifyResult> &Results = Report.Results;
  if (Results.empty())
    return summaryLine(Results) + "\n";
  std::vector<Row> Rows = {
      {"check", "location", "verdict", "speedup (95% CI) / reason"}};
  for (const VerifyResult &R : Results)
    Rows.push_back({oneLine(R.Check), oneLine(shortLocation(R)),
                    oneLine(verdictText(R)), tableDetail(R)});
  // Program mode: all fixes together, after the findings.
  if (const std::optional<VerifyResult> &All = Report.AllFixes)
    Rows.push_back({oneLine(All->Check), "", oneLine(verdictText(*All)),
                    tableDetail(*All)});
  return alignedRows(Rows) + summaryLine(Results) + "\n" +
         programLine(Report);
}

} // namespace torchtidy
