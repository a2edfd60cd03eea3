//===--- Result.h - libtorch-tidy-verify ------------------------*- C++ -*-===//
//
// The verifier's report as typed records: one VerifyResult per finding, in
// a VerifyReport (format `libtorch-tidy-verify-report`, version 1; the
// fields are described in docs/verifier.md, "Reports"). The verdict fills
// them, the reporters render them and the merge writes them back; JSON is
// read and written here alone. No LibTorch and no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_RESULT_H
#define LIBTORCH_TIDY_VERIFY_RESULT_H

#include "ErrorOr.h"
#include "Stats.h"


#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

struct Judgement;

/// The verdict of one result (docs/verifier.md, "Verdicts").
enum class Outcome {
  None, ///< not given yet, or missing from a report read back
  Faster,
  Same,
  Slower,
  Ambiguous,
  ChangesResults,
  NotApplicable,
  NotVerifiable,
  Other, ///< a verdict of a newer verifier (VerifyResult::OtherVerdict)
};

/// The verdicts in the order of the summary line: "faster", ...
inline constexpr Outcome KnownOutcomes[] = {
    Outcome::Faster,         Outcome::Same,          Outcome::Slower,
    Outcome::Ambiguous,      Outcome::ChangesResults, Outcome::NotApplicable,
    Outcome::NotVerifiable};

/// "faster", "changes-results", ...; "" for None and Other.
const char *outcomeName(Outcome O);
/// The verdict named \p Name; Other for a name this verifier does not know,
/// None for "".
Outcome outcomeNamed(const std::string &Name);
/// The verdict the statistics gave.
Outcome outcomeOf(Verdict V);

/// Median and IQR of one variant's samples, in microseconds.
struct TimeSummary {
  double Median = 0;
  std::optional<double> Iqr;
};

/// How the values left by the code before and after the fix compare.
struct Difference {
  std::optional<double> MaxAbs, MaxRel;
  std::optional<std::vector<std::string>> Compared; ///< variables compared
  std::optional<bool> Equal;
  /// The relative difference allowed (a reference benchmark's: the check's
  /// TOLERANCE, at least the float noise), when it was read against one.
  std::optional<double> Tolerance;
};

/// The first number a program variant prints differently from the
/// baseline (program mode's same-results check).
struct NumberDifference {
  long long Position = 0; ///< 1-based, among the numbers compared
  std::string Baseline, Variant; ///< as printed; "" when missing
};

/// Program mode: how far a variant's printed numbers moved from the
/// baseline's where its check lets the fix move them (ResultChange
/// RandomDraws): reported, not judged.
struct ExpectedDifference {
  std::string Cause;              ///< "random-draws"
  NumberDifference Largest;       ///< the number (or line) that moved most
  std::optional<double> Relative; ///< its relative difference (numbers)
};

/// The verdict on one finding, with how it was reached.
struct VerifyResult {
  /// The finding's index in the findings file. Read back, an index that is
  /// not an integer reads as -1, which no finding has.
  std::optional<long long> Index;
  std::string Check, File, Message;
  std::optional<long long> Line, Column;

  Outcome Verdict = Outcome::None;
  std::string OtherVerdict; ///< the verdict's name when Outcome::Other
  std::string Kind;         ///< "snippet" or "reference", when measured
  std::string Reason;
  std::string FailureKind; ///< "compile-error", "timeout", ...

  std::optional<Interval> Speedup;
  std::optional<double> PValue;
  std::string Test; ///< the rank test's name
  std::optional<double> RatioSpread;
  std::optional<TimeSummary> BeforeUs, AfterUs, GpuBeforeUs, GpuAfterUs;
  std::optional<long long> SampleCount;
  /// The raw samples in measuring order, before and after interleaved.
  std::optional<std::vector<double>> SamplesBefore, SamplesAfter;
  std::string Stop;     ///< why sampling stopped
  std::string Workload; ///< what a reference benchmark ran
  std::optional<Difference> Diff;

  // Program mode (Kind "program"): the variant built and run.
  std::string Variant;  ///< "finding N" or "all fixes"
  std::string Command;  ///< the command as given, placeholders unreplaced
  std::optional<double> BuildSeconds;
  /// How it was built: "incremental rebuild with precompiled LibTorch
  /// headers", "incremental rebuild", ...
  std::string BuildMethod;
  std::optional<long long> Runs; ///< timed runs of each variant
  std::string Time; ///< what was timed: "cpu", "wall" or "metric"
  std::string Compare;           ///< numbers, exact or none
  std::optional<NumberDifference> FirstDifference;
  std::optional<ExpectedDifference> Expected;
};

/// Judges samples (judge() in Verdict.h; interleaved pairs with
/// judgeOnce() in Sequential.h, which judge() uses for them) into \p R:
/// verdict, speedup, p-value, test, medians and IQRs, the samples
/// themselves, and for an ambiguous verdict on pairs, why (R.Reason when
/// it is empty).
void recordJudgement(VerifyResult &R, const std::vector<double> &Before,
                     const std::vector<double> &After);
/// The same with the judgement made already (program mode's looks).
void recordJudgement(VerifyResult &R, const std::vector<double> &Before,
                     const std::vector<double> &After, const Judgement &J);

/// The verdict's name: outcomeName, or OtherVerdict.
std::string verdictText(const VerifyResult &R);

nlohmann::json toJson(const VerifyResult &R);
/// Reads a result back. Fields that are missing or of the wrong type stay
/// unset rather than failing the whole report, since it may come from an
/// older or newer verifier.
VerifyResult resultFromJson(const nlohmann::json &J);

/// What the merge writes into a finding: the verdict, and the kind, reason,
/// failure, speedup, p_value and difference the result has.
nlohmann::json verificationJson(const VerifyResult &R);

constexpr int ReportVersion = 1;

struct VerifyReport {
  /// What this machine is: device, LibTorch version, threads, date, ...
  /// (an open set of keys, each a string or a number).
  nlohmann::json Environment = nlohmann::json::object();
  std::vector<VerifyResult> Results;
  /// Program mode: the project, the command, the baseline's build, how
  /// results were compared and the whole run's wall time (null otherwise).
  nlohmann::json Program;
  /// Program mode: all fixes together, one more row after the findings.
  std::optional<VerifyResult> AllFixes;
};

nlohmann::json toJson(const VerifyReport &Report);
/// Reads a report back: an error unless \p J has the report's format,
/// version 1 and a results list; each result as resultFromJson.
ErrorOr<VerifyReport> reportFromJson(const nlohmann::json &J);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_RESULT_H
