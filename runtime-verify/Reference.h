//===--- Reference.h - libtorch-tidy-verify ---------------------*- C++ -*-===//
//
// The checks' reference benchmarks: a fixed workload run with the flagged
// pattern and with its fix, interleaved, for findings whose own code cannot
// be rebuilt. Results from here are labeled `reference`, not `snippet`.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_REFERENCE_H
#define LIBTORCH_TIDY_VERIFY_REFERENCE_H

#include "Stats.h"

#include <string>
#include <vector>

namespace torchverify {

struct Samples {
  std::vector<double> Before, After; ///< microseconds per step
  std::string Device;                ///< "cpu" or "cuda"
  double Seconds = 0;                ///< timed work
  std::string StopReason;
};

/// One training step of a small convolutional network with anomaly mode on
/// (before) and off (after). With \p FixedRounds > 0, exactly that many
/// rounds; otherwise until \p Rule says stop.
Samples measureAnomalyMode(int Batch, int StepsPerSample, int FixedRounds,
                           const StopRule &Rule);

} // namespace torchverify

#endif // LIBTORCH_TIDY_VERIFY_REFERENCE_H
