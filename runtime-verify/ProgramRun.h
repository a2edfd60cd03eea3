//===--- ProgramRun.h - libtorch-tidy-verify --------------------*- C++ -*-===//
//
// Program mode's runs: the user's command in a variant's scratch copy, in
// the sandbox and under the limits the snippets run with, and what its
// output says: the time (the run's wall time, or the number --metric
// captures) and the numbers it prints, compared with the baseline's as far
// as the fix's check lets it change them (CheckTable.h's ResultChange).
// No LibTorch and no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PROGRAMRUN_H
#define LIBTORCH_TIDY_VERIFY_PROGRAMRUN_H

#include "CheckTable.h"
#include "Process.h"
#include "Result.h"

#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace torchtidy {

/// One run of a variant.
struct ProgramRunResult {
  bool Ok = false;
  double Value = 0; ///< microseconds of wall time, or the metric's number
  double CpuUs = 0; ///< microseconds of CPU time, user and system, all
                    ///< processes and threads of the command
  std::string Output;
  std::string Why, FailureKind; ///< when not Ok
};

/// Runs \p Command (placeholders already replaced) under /bin/sh in
/// \p Source, with \p Dir (the variant's directory) writable in the
/// sandbox. With \p Metric, the value is the mean of its first capture
/// group over every match in the output.
ProgramRunResult runProgram(const std::string &Command,
                            const std::string &Dir, const std::string &Source,
                            const Limits &L, const std::regex *Metric);

/// The CPU time, user and system, of the children of the shell that wrote
/// \p TimesFile with `times` (its second line), in microseconds; 0 when
/// the file is missing or unreadable. Removes the file.
double childCpuMicroseconds(const std::string &TimesFile);

/// The numbers in \p Output as printed, in order, leaving out what
/// \p Metric matches (a time differs from run to run).
std::vector<std::string> numbersIn(const std::string &Output,
                                   const std::regex *Metric);

/// What two runs of the baseline say can be compared.
struct Comparison {
  std::string Mode; ///< numbers, exact or none
  std::string Reason; ///< why none, when it is
  std::vector<std::string> Baseline; ///< the numbers, or the lines (exact)
  std::vector<bool> Stable;          ///< the same in both baseline runs
  /// Per number: how far the rounding probe's run moved it from the
  /// baseline's (relative, less the printing's resolution); empty without
  /// a probe.
  std::vector<double> Sensitivity;
};

/// The rounding probe: one more run of the baseline with ATen's portable
/// CPU kernels instead of the vectorised ones it dispatches to, which sum
/// in another order. How far that moves the printed numbers is how far
/// rounding alone moves them in this program.
inline constexpr const char *RoundingProbe = "ATEN_CPU_CAPABILITY=default";

/// A number may move by this many times the probe's move at it under a
/// fix that may change the rounding: another perturbation at one ulp, in
/// other kernels, is amplified alike but not identically.
inline constexpr double ProbeFactor = 10;

/// \p Command run with the rounding probe's environment.
std::string withRoundingProbe(const std::string &Command);

/// Records in \p C how far \p ProbeOutput (the baseline under the
/// rounding probe) moved each stable number. False, recording nothing,
/// when the modes do not compare numbers or the counts differ.
bool addRoundingProbe(Comparison &C, const std::string &ProbeOutput,
                      const std::regex *Metric);

/// What a fix may change in the printed results: its check's ResultChange
/// and Tolerance.
struct Allowance {
  ResultChange Change = ResultChange::None;
  double Tolerance = 0;
};

/// The relative difference a Rounding fix may make at the \p I-th number:
/// the declared tolerance, or ProbeFactor times the probe's move there.
double allowedRelative(const Comparison &C, size_t I, double Tolerance);

/// Compares two baseline outputs in \p Mode (numbers, exact, none): which
/// numbers (or lines) the program prints the same every run. Mode none,
/// with the reason, when nothing is left to compare.
Comparison baselineComparison(const std::string &Mode,
                              const std::string &First,
                              const std::string &Second,
                              const std::regex *Metric, double Tolerance);

/// The first stable number (or line) \p Output prints differently from the
/// baseline beyond what \p A allows; nothing when the results are as
/// allowed. None: equal. Rounding: within allowedRelative, or one unit in
/// the last digit printed. RandomDraws: the same count of values, and no
/// number that is finite in the baseline not finite.
std::optional<NumberDifference> firstDifference(const Comparison &C,
                                                const std::string &Output,
                                                const std::regex *Metric,
                                                const Allowance &A);

/// Why \p D is more than \p A allows, for the result's reason.
std::string differenceReason(const Comparison &C, const NumberDifference &D,
                             const Allowance &A);

/// How far \p Output's stable numbers moved from the baseline's: the
/// largest relative difference (the first differing line when comparing
/// lines); nothing when none moved.
std::optional<ExpectedDifference> largestDifference(const Comparison &C,
                                                    const std::string &Output,
                                                    const std::regex *Metric);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_PROGRAMRUN_H
