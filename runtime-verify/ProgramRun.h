//===--- ProgramRun.h - libtorch-tidy-verify --------------------*- C++ -*-===//
//
// Program mode's runs: the user's command in a variant's scratch copy, in
// the sandbox and under the limits the snippets run with, and what its
// output says: the time (the run's wall time, or the number --metric
// captures) and the numbers it prints, compared with the baseline's.
// No LibTorch and no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PROGRAMRUN_H
#define LIBTORCH_TIDY_VERIFY_PROGRAMRUN_H

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
};

/// Compares two baseline outputs in \p Mode (numbers, exact, none): which
/// numbers (or lines) the program prints the same every run. Mode none,
/// with the reason, when nothing is left to compare.
Comparison baselineComparison(const std::string &Mode,
                              const std::string &First,
                              const std::string &Second,
                              const std::regex *Metric, double Tolerance);

/// The first stable number (or line) \p Output prints differently from the
/// baseline, beyond \p Tolerance (relative); nothing when the results are
/// the same.
std::optional<NumberDifference> firstDifference(const Comparison &C,
                                                const std::string &Output,
                                                const std::regex *Metric,
                                                double Tolerance);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_PROGRAMRUN_H
