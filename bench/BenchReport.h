// What every benchmark prints about its run: the setup, the speedup and the
// fix's verdict, both by the verifier's own rule (torchtidy::judge in
// runtime-verify/Verdict.h): the samples are interleaved, so the statistics
// are paired, exactly as the verifier judges a reference benchmark.

#ifndef LIBTORCH_TIDY_BENCH_BENCHREPORT_H
#define LIBTORCH_TIDY_BENCH_BENCHREPORT_H

#include "Reference.h"
#include "Stats.h"
#include "Verdict.h"

#include <torch/torch.h>

#include <cstdio>

namespace torchtidy {

inline void printSetup(const Samples &S) {
  std::printf("device: %s, LibTorch %s, threads %d\n", S.Device.c_str(),
              TORCH_VERSION, torch::get_num_threads());
}

/// One variant's median and IQR per step.
inline void printTimes(const char *Label, const std::vector<double> &V) {
  std::printf("%s median %.1f us/step (IQR %.1f)\n", Label,
              median(V), iqr(V));
}

/// "speedup on/off: 1.234 (95% CI 1.200 .. 1.300), ..., interleaved; median
/// of the pair ratios" of \p J, before = the
/// flagged code, after = the fix.
inline void printSpeedup(const char *What, const Judgement &J,
                         int Rounds, int Steps) {
  std::printf("%s: %.3f (95%% CI %.3f .. %.3f), %d rounds x %d steps, "
              "interleaved; %s\n",
              What, J.Speedup.Point, J.Speedup.Low, J.Speedup.High, Rounds,
              Steps,
              J.Paired ? "median of the pair ratios" : "ratio of the medians");
}

inline void printVerdict(const Judgement &J) {
  std::printf("verdict of the fix: %s (%s, p = %.2g)\n",
              verdictName(J.Decision), testName(J),
              J.Test.P);
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_BENCH_BENCHREPORT_H
