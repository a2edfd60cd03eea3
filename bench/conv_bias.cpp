// Measures what torch-conv-bias-before-batchnorm's fix buys: one training
// step of conv -> batchnorm -> ReLU with the conv's bias (the flagged code)
// against the same step with `.bias(false)` (the fix). The variants run
// interleaved, A B A B; the result is the ratio of the medians with a 95%
// bootstrap interval. First checks both give the same outputs: BatchNorm
// cancels the bias.
//
//   bench_conv_bias [--rounds N] [--dim 1|2|3] [--in N] [--out N]
//                   [--kernel N] [--batch N] [--spatial N] [--steps N]

#include "BenchOptions.h"
#include "BenchReport.h"
#include "Reference.h"
#include "Stats.h"

#include <cstdio>

int main(int argc, char **argv) {
  torchverify::ConvBiasParams P;
  int Rounds = 20, In = P.InChannels, Out = P.OutChannels, Kernel = P.Kernel,
      Batch = P.Batch, Spatial = P.Spatial;
  if (!bench::parseOptions(argc, argv,
                           {{"--rounds", &Rounds},
                            {"--dim", &P.Dim},
                            {"--in", &In},
                            {"--out", &Out},
                            {"--kernel", &Kernel},
                            {"--batch", &Batch},
                            {"--spatial", &Spatial},
                            {"--steps", &P.StepsPerSample}}))
    return 2;
  P.InChannels = In;
  P.OutChannels = Out;
  P.Kernel = Kernel;
  P.Batch = Batch;
  P.Spatial = Spatial;
  torchverify::Samples S =
      torchverify::measureConvBias(P, Rounds, torchverify::StopRule());
  if (S.Before.empty()) {
    std::fprintf(stderr, "error: %s: %s\n", S.Workload.c_str(),
                 S.StopReason.c_str());
    return 2;
  }

  torchverify::Interval Speedup =
      torchverify::bootstrapSpeedup(S.Before, S.After);
  bench::printSetup(S);
  std::printf("workload: %s\n", S.Workload.c_str());
  std::printf("outputs with and without the bias: max abs difference %.3g\n",
              S.MaxAbsDiff);
  std::printf("conv bias on (before the fix):   median %.1f us/step (IQR "
              "%.1f)\n",
              torchverify::median(S.Before), torchverify::iqr(S.Before));
  std::printf("conv bias off (after the fix):   median %.1f us/step (IQR "
              "%.1f)\n",
              torchverify::median(S.After), torchverify::iqr(S.After));
  std::printf("speedup on/off: %.3f (95%% CI %.3f .. %.3f), %d rounds x %d "
              "steps, interleaved\n",
              Speedup.Point, Speedup.Low, Speedup.High, Rounds,
              P.StepsPerSample);
  bench::printVerdict(S, Speedup);
  return 0;
}
