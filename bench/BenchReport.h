// What every benchmark prints about its run: the setup, and the fix's verdict
// by the verifier's rule.

#ifndef LIBTORCH_TIDY_BENCH_BENCHREPORT_H
#define LIBTORCH_TIDY_BENCH_BENCHREPORT_H

#include "Reference.h"
#include "Stats.h"

#include <torch/torch.h>

#include <cstdio>

namespace bench {

inline void printSetup(const torchverify::Samples &S) {
  std::printf("device: %s, LibTorch %s, threads %d\n", S.Device.c_str(),
              TORCH_VERSION, torch::get_num_threads());
}

/// Before = the flagged code, after = the fix.
inline void printVerdict(const torchverify::Samples &S,
                         const torchverify::Interval &Speedup) {
  torchverify::RankTest Test = torchverify::mannWhitneyU(S.Before, S.After);
  torchverify::Verdict V =
      torchverify::decide(Speedup, Test, torchverify::relativeSpread(S.Before),
                          torchverify::relativeSpread(S.After));
  std::printf("verdict of the fix: %s (Mann-Whitney p = %.2g)\n",
              torchverify::verdictName(V), Test.P);
}

} // namespace bench

#endif // LIBTORCH_TIDY_BENCH_BENCHREPORT_H
