//===--- Result.cpp - libtorch-tidy-verify --------------------------------===//

#include "Result.h"
#include "JsonFields.h"
#include "Sequential.h"
#include "Verdict.h"

#include <cmath>

using nlohmann::json;

namespace torchtidy {
namespace {

constexpr const char *ReportFormat = "libtorch-tidy-verify-report";

/// The list of strings or numbers at \p Key; nothing when any element is of
/// another type.
template <typename T>
std::optional<std::vector<T>> listOf(const json &J, const char *Key) {
  const json *F = field(J, Key);
  if (!F || !F->is_array())
    return std::nullopt;
  std::vector<T> Out;
  for (const json &E : *F) {
    bool Fits = std::is_same_v<T, std::string> ? E.is_string() : E.is_number();
    if (!Fits)
      return std::nullopt;
    Out.push_back(E.get<T>());
  }
  return Out;
}

std::optional<Interval> intervalOf(const json &J, const char *Key) {
  const json *S = field(J, Key);
  if (!S)
    return std::nullopt;
  auto P = number(*S, "point"), L = number(*S, "low"), H = number(*S, "high");
  if (!P || !L || !H)
    return std::nullopt;
  Interval I;
  I.Point = *P;
  I.Low = *L;
  I.High = *H;
  return I;
}

std::optional<TimeSummary> timesOf(const json &J, const char *Key) {
  const json *T = field(J, Key);
  std::optional<double> Median = T ? number(*T, "median") : std::nullopt;
  if (!Median)
    return std::nullopt;
  return TimeSummary{*Median, number(*T, "iqr")};
}

std::optional<Difference> differenceOf(const json &J) {
  const json *D = field(J, "difference");
  if (!D || !D->is_object())
    return std::nullopt;
  return Difference{number(*D, "max_abs"), number(*D, "max_rel"),
                    listOf<std::string>(*D, "compared"),
                    boolean(*D, "equal"), number(*D, "tolerance")};
}

//===--- Writing -----------------------------------------------------------===//

/// Integral values as integers, as the harness prints them ("%.6g").
json numberJson(double V) {
  if (std::fabs(V) < 9e15 && V == std::floor(V))
    return static_cast<long long>(V);
  return V;
}

json toJson(const Interval &I) {
  return {{"point", I.Point}, {"low", I.Low}, {"high", I.High}};
}

json toJson(const TimeSummary &T) {
  json J = {{"median", T.Median}};
  if (T.Iqr)
    J["iqr"] = *T.Iqr;
  return J;
}

json toJson(const Difference &D) {
  json J = json::object();
  if (D.MaxAbs)
    J["max_abs"] = numberJson(*D.MaxAbs);
  if (D.MaxRel)
    J["max_rel"] = numberJson(*D.MaxRel);
  if (D.Compared)
    J["compared"] = *D.Compared;
  if (D.Equal)
    J["equal"] = *D.Equal;
  if (D.Tolerance)
    J["tolerance"] = *D.Tolerance;
  return J;
}

void putText(json &J, const char *Key, const std::string &Value) {
  if (!Value.empty())
    J[Key] = Value;
}

template <typename T>
void putOptional(json &J, const char *Key, const std::optional<T> &Value) {
  if (Value)
    J[Key] = toJson(*Value);
}

template <typename T>
void putNumber(json &J, const char *Key, const std::optional<T> &Value) {
  if (Value)
    J[Key] = *Value;
}

/// What a result says about where its finding is.
void putFinding(json &J, const VerifyResult &R) {
  putNumber(J, "index", R.Index);
  J["check"] = R.Check;
  J["file"] = R.File;
  putNumber(J, "line", R.Line);
  putNumber(J, "column", R.Column);
  J["message"] = R.Message;
}

/// What a measured result says about its samples.
void putMeasurement(json &J, const VerifyResult &R) {
  putText(J, "test", R.Test);
  putNumber(J, "ratio_spread", R.RatioSpread);
  putOptional(J, "before_us", R.BeforeUs);
  putOptional(J, "after_us", R.AfterUs);
  putOptional(J, "gpu_before_us", R.GpuBeforeUs);
  putOptional(J, "gpu_after_us", R.GpuAfterUs);
  putNumber(J, "samples", R.SampleCount);
  if (R.SamplesBefore && R.SamplesAfter)
    J["samples_us"] = {{"before", *R.SamplesBefore},
                       {"after", *R.SamplesAfter}};
  putText(J, "stop", R.Stop);
  putText(J, "workload", R.Workload);
}

/// What a program-mode result says about its variant.
void putProgram(json &J, const VerifyResult &R) {
  putText(J, "variant", R.Variant);
  putText(J, "command", R.Command);
  putNumber(J, "runs", R.Runs);
  putText(J, "time", R.Time);
  putText(J, "compare", R.Compare);
}

std::optional<NumberDifference> numberDifferenceOf(const json &J) {
  const json *D = field(J, "first_difference");
  if (!D || !D->is_object())
    return std::nullopt;
  NumberDifference N;
  N.Position = integer(*D, "position").value_or(0);
  N.Baseline = text(*D, "baseline");
  N.Variant = text(*D, "variant");
  return N;
}

std::optional<ExpectedDifference> expectedDifferenceOf(const json &J) {
  const json *D = field(J, "expected_difference");
  if (!D || !D->is_object())
    return std::nullopt;
  ExpectedDifference E;
  E.Cause = text(*D, "cause");
  E.Largest.Position = integer(*D, "position").value_or(0);
  E.Largest.Baseline = text(*D, "baseline");
  E.Largest.Variant = text(*D, "variant");
  E.Relative = number(*D, "relative");
  return E;
}

json expectedDifferenceJson(const ExpectedDifference &E) {
  json J = {{"cause", E.Cause},
            {"position", E.Largest.Position},
            {"baseline", E.Largest.Baseline},
            {"variant", E.Largest.Variant}};
  putNumber(J, "relative", E.Relative);
  return J;
}

} // namespace

const char *outcomeName(Outcome O) {
  switch (O) {
  case Outcome::Faster:
    return "faster";
  case Outcome::Same:
    return "same";
  case Outcome::Slower:
    return "slower";
  case Outcome::Ambiguous:
    return "ambiguous";
  case Outcome::ChangesResults:
    return "changes-results";
  case Outcome::NotApplicable:
    return "not-applicable";
  case Outcome::NotVerifiable:
    return "not-verifiable";
  case Outcome::None:
  case Outcome::Other:
    break;
  }
  return "";
}

Outcome outcomeNamed(const std::string &Name) {
  if (Name.empty())
    return Outcome::None;
  for (Outcome O : KnownOutcomes)
    if (Name == outcomeName(O))
      return O;
  return Outcome::Other;
}

Outcome outcomeOf(Verdict V) {
  switch (V) {
  case Verdict::Faster:
    return Outcome::Faster;
  case Verdict::Same:
    return Outcome::Same;
  case Verdict::Slower:
    return Outcome::Slower;
  case Verdict::Ambiguous:
    break;
  }
  return Outcome::Ambiguous;
}

void recordJudgement(VerifyResult &R, const std::vector<double> &Before,
                     const std::vector<double> &After) {
  if (Before.empty() || Before.size() != After.size()) {
    recordJudgement(R, Before, After, judge(Before, After));
    return;
  }
  // Interleaved pairs: judge()'s verdict, and an ambiguous one says why.
  LookResult L = judgeOnce(Before, After);
  recordJudgement(R, Before, After, L.J);
  if (L.J.Decision == Verdict::Ambiguous && R.Reason.empty())
    R.Reason = L.Why;
}

void recordJudgement(VerifyResult &R, const std::vector<double> &Before,
                     const std::vector<double> &After, const Judgement &J) {
  R.Verdict = outcomeOf(J.Decision);
  R.Test = testName(J);
  if (J.Paired)
    R.RatioSpread = J.RatioSpread;
  R.Speedup = J.Speedup;
  R.PValue = J.Test.P;
  R.BeforeUs = TimeSummary{median(Before), iqr(Before)};
  R.AfterUs = TimeSummary{median(After), iqr(After)};
  R.SampleCount = static_cast<long long>(Before.size());
  R.SamplesBefore = Before;
  R.SamplesAfter = After;
}

std::string verdictText(const VerifyResult &R) {
  return R.Verdict == Outcome::Other ? R.OtherVerdict
                                     : outcomeName(R.Verdict);
}

json verificationJson(const VerifyResult &R) {
  json J = {{"verdict", verdictText(R)}};
  putText(J, "kind", R.Kind);
  putText(J, "reason", R.Reason);
  putText(J, "failure", R.FailureKind);
  putOptional(J, "speedup", R.Speedup);
  putNumber(J, "p_value", R.PValue);
  putOptional(J, "difference", R.Diff);
  putNumber(J, "build_seconds", R.BuildSeconds);
  putText(J, "build_method", R.BuildMethod);
  if (R.FirstDifference)
    J["first_difference"] = {{"position", R.FirstDifference->Position},
                             {"baseline", R.FirstDifference->Baseline},
                             {"variant", R.FirstDifference->Variant}};
  if (R.Expected)
    J["expected_difference"] = expectedDifferenceJson(*R.Expected);
  return J;
}

json toJson(const VerifyResult &R) {
  json J = verificationJson(R);
  putFinding(J, R);
  putMeasurement(J, R);
  putProgram(J, R);
  return J;
}

VerifyResult resultFromJson(const json &J) {
  VerifyResult R;
  if (const json *Index = field(J, "index"))
    R.Index = Index->is_number_integer() ? Index->get<long long>() : -1;
  R.Check = text(J, "check");
  R.File = text(J, "file");
  R.Message = text(J, "message");
  R.Line = integer(J, "line");
  R.Column = integer(J, "column");
  R.OtherVerdict = text(J, "verdict");
  R.Verdict = outcomeNamed(R.OtherVerdict);
  if (R.Verdict != Outcome::Other)
    R.OtherVerdict.clear();
  R.Kind = text(J, "kind");
  R.Reason = text(J, "reason");
  R.FailureKind = text(J, "failure");
  R.Speedup = intervalOf(J, "speedup");
  R.PValue = number(J, "p_value");
  R.Test = text(J, "test");
  R.RatioSpread = number(J, "ratio_spread");
  R.BeforeUs = timesOf(J, "before_us");
  R.AfterUs = timesOf(J, "after_us");
  R.GpuBeforeUs = timesOf(J, "gpu_before_us");
  R.GpuAfterUs = timesOf(J, "gpu_after_us");
  R.SampleCount = integer(J, "samples");
  if (const json *Raw = field(J, "samples_us")) {
    R.SamplesBefore = listOf<double>(*Raw, "before");
    R.SamplesAfter = listOf<double>(*Raw, "after");
  }
  R.Stop = text(J, "stop");
  R.Workload = text(J, "workload");
  R.Diff = differenceOf(J);
  R.Variant = text(J, "variant");
  R.Command = text(J, "command");
  R.BuildSeconds = number(J, "build_seconds");
  R.BuildMethod = text(J, "build_method");
  R.Runs = integer(J, "runs");
  R.Time = text(J, "time");
  R.Compare = text(J, "compare");
  R.FirstDifference = numberDifferenceOf(J);
  R.Expected = expectedDifferenceOf(J);
  return R;
}

json toJson(const VerifyReport &Report) {
  json Results = json::array();
  for (const VerifyResult &R : Report.Results)
    Results.push_back(toJson(R));
  json J = {{"format", ReportFormat},
            {"version", ReportVersion},
            {"environment", Report.Environment},
            {"results", Results}};
  if (!Report.Program.is_null()) {
    J["program"] = Report.Program;
    if (Report.AllFixes)
      J["program"]["all_fixes"] = toJson(*Report.AllFixes);
  }
  return J;
}

ErrorOr<VerifyReport> reportFromJson(const json &J) {
  if (text(J, "format") != ReportFormat)
    return Failure{"the report is not a libtorch-tidy-verify report"};
  if (integer(J, "version") != ReportVersion)
    return Failure{"the report is not version 1 of the libtorch-tidy-verify "
                   "report format"};
  const json *Results = field(J, "results");
  if (!Results || !Results->is_array())
    return Failure{"the report has no results list"};
  VerifyReport Report;
  if (const json *Env = field(J, "environment"); Env && Env->is_object())
    Report.Environment = *Env;
  for (const json &R : *Results)
    Report.Results.push_back(resultFromJson(R));
  if (const json *Program = field(J, "program");
      Program && Program->is_object()) {
    Report.Program = *Program;
    if (const json *All = field(*Program, "all_fixes"); All && All->is_object())
      Report.AllFixes = resultFromJson(*All);
    Report.Program.erase("all_fixes");
  }
  return Report;
}

} // namespace torchtidy
