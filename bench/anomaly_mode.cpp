// Measures what torch-debug-api-enabled's fix buys: one training step of a
// small convolutional network with anomaly detection on (the flagged code:
// AnomalyMode::set_enabled(true) left in) against the same step with it off
// (the fix: the switch kept to debug builds). The variants run interleaved,
// A B A B, on the same model; the result is the ratio of the medians with a
// 95% bootstrap interval.
//
//   bench_anomaly_mode [--rounds N] [--batch N] [--steps N]

#include "BenchOptions.h"
#include "BenchReport.h"
#include "Reference.h"
#include "Stats.h"

#include <cstdio>
#include <vector>

namespace {

struct Config {
  int Rounds = 20;
  int Batch = 16;
  int StepsPerSample = 3;
};

} // namespace

int main(int argc, char **argv) {
  Config C;
  if (!bench::parseOptions(argc, argv,
                           {{"--rounds", &C.Rounds},
                            {"--batch", &C.Batch},
                            {"--steps", &C.StepsPerSample}}))
    return 2;
  torchverify::Samples S = torchverify::measureAnomalyMode(
      C.Batch, C.StepsPerSample, C.Rounds, torchverify::StopRule());
  const std::vector<double> &On = S.Before, &Off = S.After;

  torchverify::Interval Slowdown = torchverify::bootstrapSpeedup(On, Off);
  bench::printSetup(S);
  std::printf("model: 2 x Conv2d + Linear, batch %d of 3x32x32\n", C.Batch);
  std::printf("anomaly mode on (before the fix):  median %.1f us/step (IQR "
              "%.1f)\n",
              torchverify::median(On), torchverify::iqr(On));
  std::printf("anomaly mode off (after the fix):  median %.1f us/step (IQR "
              "%.1f)\n",
              torchverify::median(Off), torchverify::iqr(Off));
  std::printf("slowdown on/off: %.3f (95%% CI %.3f .. %.3f), %d rounds x %d "
              "steps, interleaved\n",
              Slowdown.Point, Slowdown.Low, Slowdown.High, C.Rounds,
              C.StepsPerSample);
  bench::printVerdict(S, Slowdown);
  return 0;
}
