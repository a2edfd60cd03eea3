// Measures what torch-zero-grad's fix buys: one training step of an MLP with
// the gradients zero-filled (Optimizer::zero_grad() on LibTorch 1.x) against
// the same step with the gradients reset (the fix-it). The two variants run
// interleaved, A B A B, and are judged as the verifier judges them
// (torchtidy::judge): the median of the pair ratios with a 95% bootstrap
// interval, and the verdict. Also checks both variants give the same
// parameters.
//
//   bench_zero_grad [--rounds N] [--width N] [--layers N] [--batch N]
//                   [--steps N]

#include "BenchOptions.h"
#include "BenchReport.h"
#include "Reference.h"
#include "Stats.h"
#include "Verdict.h"

#include <cstdio>

int main(int argc, char **argv) {
  int Rounds = 30;
  torchtidy::ZeroGradParams P;
  if (!torchtidy::parseBenchOptions(argc, argv,
                           {{"--rounds", &Rounds},
                            {"--width", &P.Width},
                            {"--layers", &P.Layers},
                            {"--batch", &P.Batch},
                            {"--steps", &P.StepsPerSample}}))
    return 2;
  torchtidy::Samples S =
      torchtidy::measureZeroGrad(P, Rounds, torchtidy::StopRule());
  torchtidy::Judgement J = torchtidy::judge(S.Before, S.After);
  long Params = long(P.Layers) * (long(P.Width) * P.Width + P.Width);
  torchtidy::printSetup(S);
  std::printf("model: %d x Linear(%d, %d), %ld parameters, batch %d\n",
              P.Layers, P.Width, P.Width, Params, P.Batch);
  torchtidy::printTimes("zero-filled grads:", S.Before);
  torchtidy::printTimes("reset grads:      ", S.After);
  torchtidy::printSpeedup("speedup zero/reset", J, Rounds, P.StepsPerSample);
  std::printf("max parameter difference after the run: %.3g\n", S.MaxAbsDiff);
  torchtidy::printVerdict(J);
  return 0;
}
