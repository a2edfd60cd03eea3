// Measures what torch-debug-api-enabled's fix buys: one training step of a
// small convolutional network with anomaly detection on (the flagged code:
// AnomalyMode::set_enabled(true) left in) against the same step with it off
// (the fix: the switch kept to debug builds). The variants run interleaved,
// A B A B, on the same model, and are judged as the verifier judges them
// (torchtidy::judge): the median of the pair ratios with a 95% bootstrap
// interval, and the verdict.
//
//   bench_anomaly_mode [--rounds N] [--batch N] [--steps N]

#include "BenchOptions.h"
#include "BenchReport.h"
#include "Reference.h"
#include "Stats.h"
#include "Verdict.h"

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
  if (!torchtidy::parseBenchOptions(argc, argv,
                           {{"--rounds", &C.Rounds},
                            {"--batch", &C.Batch},
                            {"--steps", &C.StepsPerSample}}))
    return 2;
  torchtidy::Samples S = torchtidy::measureAnomalyMode(
      C.Batch, C.StepsPerSample, C.Rounds, torchtidy::StopRule());
  torchtidy::Judgement J = torchtidy::judge(S.Before, S.After);
  torchtidy::printSetup(S);
  std::printf("model: 2 x Conv2d + Linear, batch %d of 3x32x32\n", C.Batch);
  torchtidy::printTimes("anomaly mode on (before the fix): ", S.Before);
  torchtidy::printTimes("anomaly mode off (after the fix): ", S.After);
  torchtidy::printSpeedup("slowdown on/off", J, C.Rounds, C.StepsPerSample);
  torchtidy::printVerdict(J);
  return 0;
}
