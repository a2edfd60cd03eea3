// Measures what torch-zero-grad's fix buys: one training step of an MLP with
// the gradients zero-filled (Optimizer::zero_grad() on LibTorch 1.x) against
// the same step with the gradients reset (the fix-it). The two variants run
// interleaved, A B A B, and the result is the ratio of the medians with a 95%
// bootstrap interval. Also checks both variants give the same parameters.
//
//   bench_zero_grad [--rounds N] [--width N] [--layers N] [--batch N]
//                   [--steps N]

#include "BenchOptions.h"
#include "BenchReport.h"
#include "Reference.h"
#include "Stats.h"

#include <cstdio>

int main(int argc, char **argv) {
  int Rounds = 30;
  torchverify::ZeroGradParams P;
  if (!bench::parseOptions(argc, argv,
                           {{"--rounds", &Rounds},
                            {"--width", &P.Width},
                            {"--layers", &P.Layers},
                            {"--batch", &P.Batch},
                            {"--steps", &P.StepsPerSample}}))
    return 2;
  torchverify::Samples S =
      torchverify::measureZeroGrad(P, Rounds, torchverify::StopRule());
  const std::vector<double> &Zero = S.Before, &Reset = S.After;

  torchverify::Interval Speedup = torchverify::bootstrapSpeedup(Zero, Reset);
  long Params = long(P.Layers) * (long(P.Width) * P.Width + P.Width);
  bench::printSetup(S);
  std::printf("model: %d x Linear(%d, %d), %ld parameters, batch %d\n",
              P.Layers, P.Width, P.Width, Params, P.Batch);
  std::printf("zero-filled grads: median %.1f us/step (IQR %.1f)\n",
              torchverify::median(Zero), torchverify::iqr(Zero));
  std::printf("reset grads:       median %.1f us/step (IQR %.1f)\n",
              torchverify::median(Reset), torchverify::iqr(Reset));
  std::printf("speedup zero/reset: %.3f (95%% CI %.3f .. %.3f), %d rounds x "
              "%d steps, interleaved\n",
              Speedup.Point, Speedup.Low, Speedup.High, Rounds,
              P.StepsPerSample);
  std::printf("max parameter difference after the run: %.3g\n", S.MaxAbsDiff);
  bench::printVerdict(S, Speedup);
  return 0;
}
