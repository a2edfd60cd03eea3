//===--- MeasureLoopTest.cpp - libtorch-tidy-verify -----------------------===//
//
// The verifier's one measurement loop, which the reference benchmarks and
// the snippet harnesses share: warm-up, ABBA order, runs per sample, samples
// per step, and its two ways to stop.
//
//===----------------------------------------------------------------------===//

#include "MeasureLoop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace torchtidy {
namespace {

/// Busy for at least \p Microseconds of host time.
void spin(double Microseconds) {
  double End = steadySeconds() + Microseconds * 1e-6;
  while (steadySeconds() < End) {
  }
}

TEST(MeasureLoopTest, FixedRoundsInAbbaOrder) {
  std::string Order;
  Step Before = [&] { Order += 'B'; };
  Step After = [&] { Order += 'A'; };
  LoopOptions O;
  O.FixedRounds = 4;
  O.RunsPerSample = 1;
  LoopResult R = measureInterleaved(Before, After, O);
  EXPECT_EQ(R.StopReason, "rounds");
  EXPECT_EQ(R.Before.size(), 4u);
  EXPECT_EQ(R.After.size(), 4u);
  EXPECT_EQ(R.RunsPerSample, 1);
  // Warm-up: both, two rounds at least, before anything is timed.
  ASSERT_GE(Order.size(), 4u + 8u);
  EXPECT_EQ(Order.substr(0, 4), "BABA");
  EXPECT_EQ(Order.substr(Order.size() - 8), "BAABBAAB");
  if (!torch::cuda::is_available()) {
    EXPECT_TRUE(R.GpuBefore.empty());
    EXPECT_TRUE(R.GpuAfter.empty());
  } else {
    EXPECT_EQ(R.GpuBefore.size(), R.Before.size());
  }
}

TEST(MeasureLoopTest, SamplesArePerStep) {
  int BeforeRuns = 0, AfterRuns = 0;
  Step Before = [&] {
    ++BeforeRuns;
    spin(400);
  };
  Step After = [&] {
    ++AfterRuns;
    spin(200);
  };
  LoopOptions O;
  O.FixedRounds = 3;
  O.RunsPerSample = 2;
  O.StepsPerRun = 4;
  LoopResult R = measureInterleaved(Before, After, O);
  EXPECT_EQ(BeforeRuns, AfterRuns);
  EXPECT_GE(BeforeRuns, 2 + 3 * 2);
  ASSERT_EQ(R.Before.size(), 3u);
  double Total = 0;
  for (size_t I = 0; I < 3; ++I) {
    // 2 runs of 4 steps each per sample: a step is a quarter of a run.
    EXPECT_GE(R.Before[I], 100);
    EXPECT_GE(R.After[I], 50);
    Total += (R.Before[I] + R.After[I]) * 8e-6;
  }
  EXPECT_NEAR(R.Seconds, Total, 1e-9);
}

TEST(MeasureLoopTest, StopsByTheRule) {
  Step Nothing = [] {};
  LoopOptions O;
  O.Rule.MinSamples = 100;
  O.Rule.MaxSamples = 3;
  O.RunsPerSample = 1;
  LoopResult R = measureInterleaved(Nothing, Nothing, O);
  EXPECT_EQ(R.StopReason, "samples");
  EXPECT_EQ(R.Before.size(), 3u);
  EXPECT_EQ(R.After.size(), 3u);
}

TEST(MeasureLoopTest, RunsGrowToTenMilliseconds) {
  Step Millisecond = [] { spin(1000); };
  LoopOptions O;
  O.FixedRounds = 1;
  LoopResult R = measureInterleaved(Millisecond, Millisecond, O);
  // A run takes a millisecond at least: ten runs at most.
  EXPECT_GE(R.RunsPerSample, 1);
  EXPECT_LE(R.RunsPerSample, 10);
  ASSERT_EQ(R.Before.size(), 1u);
  EXPECT_GE(R.Before[0], 1000);
}

} // namespace
} // namespace torchtidy
