// Measures what torch-conv-bias-before-batchnorm's fix buys: one training
// step of conv -> batchnorm -> ReLU with the conv's bias (the flagged code)
// against the same step with `.bias(false)` (the fix). The variants run
// interleaved, A B A B, and are judged as the verifier judges them
// (torchtidy::judge): the median of the pair ratios with a 95% bootstrap
// interval, and the verdict. First checks both give the same outputs:
// BatchNorm cancels the bias.
//
//   bench_conv_bias [--rounds N] [--dim 1|2|3] [--in N] [--out N]
//                   [--kernel N] [--batch N] [--spatial N] [--steps N]

#include "BenchOptions.h"
#include "BenchReport.h"
#include "Reference.h"
#include "Stats.h"
#include "Verdict.h"

#include <cstdio>

int main(int argc, char **argv) {
  torchtidy::ConvBiasParams P;
  int Rounds = 20, In = P.InChannels, Out = P.OutChannels, Kernel = P.Kernel,
      Batch = P.Batch, Spatial = P.Spatial;
  if (!torchtidy::parseBenchOptions(argc, argv,
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
  torchtidy::Samples S =
      torchtidy::measureConvBias(P, Rounds, torchtidy::StopRule());
  if (S.Before.empty()) {
    std::fprintf(stderr, "error: %s: %s\n", S.Workload.c_str(),
                 S.StopReason.c_str());
    return 2;
  }

  torchtidy::Judgement J = torchtidy::judge(S.Before, S.After);
  torchtidy::printSetup(S);
  std::printf("workload: %s\n", S.Workload.c_str());
  std::printf("outputs with and without the bias: max abs difference %.3g\n",
              S.MaxAbsDiff);
  torchtidy::printTimes("conv bias on (before the fix):  ", S.Before);
  torchtidy::printTimes("conv bias off (after the fix):  ", S.After);
  torchtidy::printSpeedup("speedup on/off", J, Rounds, P.StepsPerSample);
  torchtidy::printVerdict(J);
  return 0;
}
