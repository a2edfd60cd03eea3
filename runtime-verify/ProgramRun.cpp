//===--- ProgramRun.cpp - libtorch-tidy-verify ----------------------------===//

#include "ProgramRun.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace torchtidy {
namespace {

/// A decimal number as programs print them, or nan/inf.
const std::regex &numberPattern() {
  static const std::regex Pattern(
      R"([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|\b-?(?:nan|inf)\b)",
      std::regex::icase);
  return Pattern;
}

/// \p Output without what \p Metric matches.
std::string withoutMetric(const std::string &Output, const std::regex *Metric) {
  return Metric ? std::regex_replace(Output, *Metric, "") : Output;
}

std::vector<std::string> linesOf(const std::string &Text) {
  std::vector<std::string> Lines;
  std::istringstream In(Text);
  for (std::string Line; std::getline(In, Line);)
    Lines.push_back(Line);
  return Lines;
}

/// What a run that did not succeed was stopped by.
void describeFailure(const ProcessResult &P, const Limits &L,
                     ProgramRunResult &R) {
  if (!P.Started) {
    R.FailureKind = "not-started";
    R.Why = "the command could not be started";
  } else if (P.TimedOut) {
    R.FailureKind = "timeout";
    R.Why = "the command ran past the " +
            std::to_string(static_cast<long>(L.Seconds)) +
            " s timeout and was killed";
  } else if (P.TaskLimit) {
    R.FailureKind = "process-limit";
    R.Why = "the command reached the process limit and was killed";
  } else if (P.Signal) {
    R.FailureKind = "crash";
    R.Why = "the command was killed by signal " + std::to_string(P.Signal);
  } else {
    R.FailureKind = "exit-status";
    std::vector<std::string> Lines = linesOf(P.Output);
    R.Why = "the command exited with status " + std::to_string(P.ExitCode) +
            (Lines.empty() ? "" : ": " + Lines.back());
  }
}

/// Seconds as the shell's `times` prints them: "1m2.345000s".
double shellSeconds(const std::string &Text) {
  double Minutes = 0, Seconds = 0;
  if (std::sscanf(Text.c_str(), "%lfm%lfs", &Minutes, &Seconds) != 2)
    return -1;
  return 60 * Minutes + Seconds;
}

} // namespace

double childCpuMicroseconds(const std::string &TimesFile) {
  std::ifstream In(TimesFile);
  std::string Shell, Children;
  std::getline(In, Shell);
  std::getline(In, Children);
  In.close();
  std::remove(TimesFile.c_str());
  std::istringstream Fields(Children);
  std::string User, System;
  if (!(Fields >> User >> System))
    return 0;
  double U = shellSeconds(User), S = shellSeconds(System);
  return U < 0 || S < 0 ? 0 : (U + S) * 1e6;
}

namespace {

/// The mean of \p Metric's first group over its matches in \p Output.
std::optional<double> metricValue(const std::string &Output,
                                  const std::regex &Metric) {
  double Sum = 0;
  int Count = 0;
  for (std::sregex_iterator It(Output.begin(), Output.end(), Metric), End;
       It != End; ++It) {
    if (It->size() < 2 || !(*It)[1].matched)
      continue;
    char *Stop = nullptr;
    std::string Text = (*It)[1].str();
    double V = std::strtod(Text.c_str(), &Stop);
    if (Stop == Text.c_str())
      continue;
    Sum += V;
    ++Count;
  }
  if (!Count)
    return std::nullopt;
  return Sum / Count;
}

bool sameNumber(const std::string &A, const std::string &B, double Tolerance) {
  if (A == B)
    return true;
  double X = std::strtod(A.c_str(), nullptr), Y = std::strtod(B.c_str(), nullptr);
  if (std::isnan(X) || std::isnan(Y))
    return std::isnan(X) && std::isnan(Y);
  if (X == Y)
    return true;
  return std::fabs(X - Y) <= Tolerance * std::max(std::fabs(X), std::fabs(Y));
}

/// The values to compare in \p Mode: numbers, or lines.
std::vector<std::string> comparedValues(const std::string &Mode,
                                        const std::string &Output,
                                        const std::regex *Metric) {
  return Mode == "exact" ? linesOf(withoutMetric(Output, Metric))
                         : numbersIn(Output, Metric);
}

bool sameValue(const std::string &Mode, const std::string &A,
               const std::string &B, double Tolerance) {
  return Mode == "exact" ? A == B : sameNumber(A, B, Tolerance);
}

} // namespace

ProgramRunResult runProgram(const std::string &Command, const std::string &Dir,
                            const std::string &Source, const Limits &L,
                            const std::regex *Metric) {
  ProgramRunResult R;
  // The shell changes to the source copy, with the variant's directory as
  // $TMPDIR (the sandbox makes the whole variant writable). The command
  // runs in a subshell on lines of its own (an `exit` or a trailing
  // comment in it stays there); the shell's `times` then writes the CPU
  // time of everything the subshell ran, which the sandbox's own process
  // layers would hide from wait4.
  std::string Times = Dir + "/.libtorch-tidy-times";
  std::string Script = "TMPDIR='" + Dir + "' && export TMPDIR && cd '" +
                       Source + "' || exit 127\n(\n" + Command +
                       "\n)\nltt_status=$?\ntimes >'" + Times +
                       "' 2>/dev/null\nexit $ltt_status";
  ProcessResult P = runProcess({"/bin/sh", "-c", Script}, Dir, L);
  R.Output = P.Output;
  R.CpuUs = childCpuMicroseconds(Times);
  if (!P.Started || P.TimedOut || P.TaskLimit || P.Signal || P.ExitCode) {
    describeFailure(P, L, R);
    return R;
  }
  if (!Metric) {
    R.Ok = true;
    R.Value = P.Seconds * 1e6;
    return R;
  }
  std::optional<double> V = metricValue(P.Output, *Metric);
  if (!V) {
    R.FailureKind = "no-metric";
    R.Why = "the output has no match of --metric with a number in its first "
            "group";
    return R;
  }
  if (!(*V > 0)) {
    // A ratio needs a time above zero: the printed number is too coarse.
    R.FailureKind = "no-metric";
    R.Why = "the --metric value is " + std::to_string(*V) +
            ", not a positive time";
    return R;
  }
  R.Ok = true;
  R.Value = *V;
  return R;
}

std::vector<std::string> numbersIn(const std::string &Output,
                                   const std::regex *Metric) {
  std::string Text = withoutMetric(Output, Metric);
  std::vector<std::string> Out;
  for (std::sregex_iterator It(Text.begin(), Text.end(), numberPattern()), End;
       It != End; ++It)
    Out.push_back(It->str());
  return Out;
}

Comparison baselineComparison(const std::string &Mode, const std::string &First,
                              const std::string &Second,
                              const std::regex *Metric, double Tolerance) {
  Comparison C;
  C.Mode = Mode;
  if (Mode == "none") {
    C.Reason = "--compare none";
    return C;
  }
  C.Baseline = comparedValues(Mode, First, Metric);
  std::vector<std::string> Again = comparedValues(Mode, Second, Metric);
  const char *What = Mode == "exact" ? "lines" : "numbers";
  if (C.Baseline.empty()) {
    C.Mode = "none";
    C.Reason = std::string("the program prints no ") + What + " to compare";
    return C;
  }
  if (Again.size() != C.Baseline.size()) {
    C.Mode = "none";
    C.Reason = std::string("the program prints a different count of ") +
               What + " from run to run";
    return C;
  }
  for (size_t I = 0; I < C.Baseline.size(); ++I)
    C.Stable.push_back(sameValue(Mode, C.Baseline[I], Again[I], Tolerance));
  if (std::none_of(C.Stable.begin(), C.Stable.end(), [](bool S) { return S; })) {
    C.Mode = "none";
    C.Reason = std::string("every one of the program's ") + What +
               " changes from run to run (seed it: torch::manual_seed)";
  }
  return C;
}

std::optional<NumberDifference> firstDifference(const Comparison &C,
                                                const std::string &Output,
                                                const std::regex *Metric,
                                                double Tolerance) {
  if (C.Mode == "none")
    return std::nullopt;
  std::vector<std::string> Values = comparedValues(C.Mode, Output, Metric);
  size_t N = std::max(Values.size(), C.Baseline.size());
  for (size_t I = 0; I < N; ++I) {
    bool InBoth = I < Values.size() && I < C.Baseline.size();
    if (InBoth && (!C.Stable[I] ||
                   sameValue(C.Mode, C.Baseline[I], Values[I], Tolerance)))
      continue;
    NumberDifference D;
    D.Position = static_cast<long long>(I) + 1;
    D.Baseline = I < C.Baseline.size() ? C.Baseline[I] : "";
    D.Variant = I < Values.size() ? Values[I] : "";
    return D;
  }
  return std::nullopt;
}

} // namespace torchtidy
