//===--- StatsTest.cpp - libtorch-tidy-verify -----------------------------===//
//
// Unit tests of the verifier's statistics against values worked out by hand
// (the rank sums are in the comments) or from the closed forms scipy
// documents for mannwhitneyu.
//
//===----------------------------------------------------------------------===//

#include "Stats.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace torchtidy {
namespace {

std::vector<double> range(int From, int To) {
  std::vector<double> V;
  for (int I = From; I <= To; ++I)
    V.push_back(I);
  return V;
}

TEST(StatsTest, Summaries) {
  EXPECT_NEAR(median({3, 1, 2}), 2, 0) << "median odd";
  EXPECT_NEAR(median({4, 1, 3, 2}), 2.5, 0) << "median even";
  // numpy.quantile([1..10], 0.25) = 3.25, 0.75 -> 7.75
  EXPECT_NEAR(quantile(range(1, 10), 0.25), 3.25, 1e-12) << "quantile 0.25";
  EXPECT_NEAR(iqr(range(1, 10)), 4.5, 1e-12) << "iqr";
  EXPECT_NEAR(relativeSpread(range(1, 10)), 4.5 / 5.5, 1e-12) << "spread";
}

TEST(StatsTest, Bootstrap) {
  // Constant samples: every resample has the same medians.
  Interval Exact = bootstrapSpeedup(std::vector<double>(20, 4.0),
                                    std::vector<double>(20, 2.0));
  EXPECT_NEAR(Exact.Point, 2, 0) << "bootstrap point, constant";
  EXPECT_NEAR(Exact.Low, 2, 0) << "bootstrap low, constant";
  EXPECT_NEAR(Exact.High, 2, 0) << "bootstrap high, constant";

  // Before = 2 x After with spread: the interval holds 2 and is ordered;
  // the same seed gives the same interval.
  std::vector<double> After, Before;
  for (int I = 0; I < 40; ++I) {
    double X = 10 + (I * 7 % 11) * 0.1;
    After.push_back(X);
    Before.push_back(2 * X);
  }
  Interval I1 = bootstrapSpeedup(Before, After);
  Interval I2 = bootstrapSpeedup(Before, After);
  EXPECT_NEAR(I1.Point, 2, 1e-12) << "bootstrap point, scaled";
  EXPECT_TRUE(I1.Low <= 2 && 2 <= I1.High) << "bootstrap interval holds 2";
  EXPECT_TRUE(I1.Low > 1.8 && I1.High < 2.2) << "bootstrap interval narrow";
  EXPECT_TRUE(I1.Low == I2.Low && I1.High == I2.High)
      << "bootstrap deterministic for a seed";
  Interval Wider = bootstrapSpeedup(Before, After, 0.99);
  EXPECT_TRUE(Wider.Low <= I1.Low && Wider.High >= I1.High)
      << "99% interval contains the 95% one";
}

TEST(StatsTest, MannWhitney) {
  // Complete separation, 5 vs 5: U = 0, exact two-sided p = 2 / C(10, 5).
  RankTest Sep = mannWhitneyU(range(1, 5), range(6, 10));
  EXPECT_NEAR(Sep.U, 0, 0) << "U, separated";
  EXPECT_TRUE(Sep.Exact) << "exact for 5 vs 5";
  EXPECT_NEAR(Sep.P, 2.0 / 252, 1e-12) << "p, separated 5 vs 5";

  // Interleaved 3 vs 3: ranks of A are 1, 3, 5, U = 3; the null counts for
  // U = 0..9 are 1 1 2 3 3 3 3 2 1 1, so P(U <= 3) = 7/20 and p = 0.7.
  RankTest Mixed = mannWhitneyU({1, 3, 5}, {2, 4, 6});
  EXPECT_NEAR(Mixed.U, 3, 0) << "U, interleaved";
  EXPECT_NEAR(Mixed.P, 0.7, 1e-12) << "p, interleaved 3 vs 3";

  // 10 vs 10, separated: normal approximation, mean 50, variance
  // 100 / 12 * 21 = 175, z = 49.5 / sqrt(175).
  RankTest Large = mannWhitneyU(range(1, 10), range(11, 20));
  EXPECT_TRUE(!Large.Exact) << "normal approximation for 10 vs 10";
  EXPECT_NEAR(Large.P, 0.0001826717911095504, 1e-12) << "p, separated 10 vs 10";

  // Ties: A = 1 2 2 3 4..9, B = 2 3 10..17. Average ranks 1, 3, 3, 5.5,
  // 7..12 give R_A = 69.5 and U = 14.5; tie groups of 3 and 2 give a
  // correction of 24 + 6 = 30.
  RankTest Tied = mannWhitneyU({1, 2, 2, 3, 4, 5, 6, 7, 8, 9},
                               {2, 3, 10, 11, 12, 13, 14, 15, 16, 17});
  EXPECT_NEAR(Tied.U, 14.5, 0) << "U, ties";
  EXPECT_NEAR(Tied.P, 0.008031597670507557, 1e-12) << "p, ties";

  // Identical samples: nothing to see.
  RankTest Same =
      mannWhitneyU(std::vector<double>(12, 1.0), std::vector<double>(12, 1.0));
  EXPECT_NEAR(Same.P, 1, 0) << "p, identical";
}

TEST(StatsTest, Stopping) {
  StopRule Rule;
  Rule.MinSamples = 5;
  Rule.MaxSamples = 50;
  Rule.TimeCapSeconds = 10;
  std::vector<double> Quiet(4, 1.0);
  EXPECT_FALSE(stopReason(Quiet, Quiet, 1, Rule).has_value())
      << "no stop before the minimum";
  Quiet.push_back(1.0);
  EXPECT_EQ(stopReason(Quiet, Quiet, 1, Rule).value_or("none"), "noise")
      << "stop on low noise";
  std::vector<double> Noisy = {1, 2, 3, 4, 5, 6};
  EXPECT_FALSE(stopReason(Noisy, Noisy, 1, Rule).has_value())
      << "no stop while noisy";
  EXPECT_EQ(stopReason(Noisy, Noisy, 10.5, Rule).value_or("none"), "time")
      << "stop at the time cap";
  std::vector<double> Many;
  for (int I = 0; I < 50; ++I)
    Many.push_back(1 + I % 7);
  EXPECT_EQ(stopReason(Many, Many, 1, Rule).value_or("none"), "samples")
      << "stop at the sample cap";
}

TEST(StatsTest, Verdicts) {
  RankTest Significant{0, 0.001, false}, NotSignificant{0, 0.4, false};
  EXPECT_TRUE(decide({1.25, 1.2, 1.3}, Significant, 0.05, 0.05) ==
              Verdict::Faster)
      << "faster";
  EXPECT_TRUE(decide({1.25, 1.2, 1.3}, NotSignificant, 0.05, 0.05) ==
              Verdict::Ambiguous)
      << "faster needs significance";
  EXPECT_TRUE(decide({1.0, 0.95, 1.05}, NotSignificant, 0.05, 0.05) ==
              Verdict::Same)
      << "same";
  EXPECT_TRUE(decide({0.75, 0.7, 0.8}, Significant, 0.05, 0.05) ==
              Verdict::Slower)
      << "slower";
  EXPECT_TRUE(decide({1.2, 1.05, 1.4}, Significant, 0.05, 0.05) ==
              Verdict::Ambiguous)
      << "interval across 1 + delta";
  EXPECT_TRUE(decide({1.5, 1.4, 1.6}, Significant, 0.30, 0.05) ==
              Verdict::Ambiguous)
      << "too noisy for a verdict";
  EXPECT_TRUE(std::string(verdictName(Verdict::Faster)) == "faster" &&
              std::string(verdictName(Verdict::Ambiguous)) == "ambiguous")
      << "verdict names";
}

/// Pairs with the given Before/After ratios, on a baseline that drifts
/// eightfold: what an interleaved run sees on a machine that slows down.
void pairs(const std::vector<double> &Ratios, std::vector<double> &Before,
           std::vector<double> &After) {
  Before.clear();
  After.clear();
  for (size_t I = 0; I < Ratios.size(); ++I) {
    double Base = 100.0 * (1 + 7.0 * I / Ratios.size());
    After.push_back(Base);
    Before.push_back(Base * Ratios[I]);
  }
}

TEST(StatsTest, Paired) {
  std::vector<double> B, A;
  // A constant 2x under drift: the paired interval is exactly 2, where
  // resampling the variants independently sees the drift.
  pairs(std::vector<double>(12, 2.0), B, A);
  Interval P = pairedBootstrapSpeedup(B, A);
  EXPECT_NEAR(P.Point, 2.0, 1e-12) << "paired point";
  EXPECT_NEAR(P.Low, 2.0, 1e-12) << "paired low";
  EXPECT_NEAR(P.High, 2.0, 1e-12) << "paired high";
  Interval U = bootstrapSpeedup(B, A);
  EXPECT_TRUE(U.High - U.Low > 0.5) << "unpaired interval widened by drift";

  // Exact signed-rank: log ratios ranked 1..4, signs + - + +: W+ = 8;
  // 3 of the 16 sign patterns reach 8 or more, p = 2 * 3/16.
  pairs({1.1, 1 / 1.2, 1.3, 1.4}, B, A);
  RankTest W = wilcoxonSignedRank(B, A);
  EXPECT_TRUE(W.Exact) << "signed-rank exact";
  EXPECT_NEAR(W.U, 8, 1e-12) << "W+ of 4 pairs";
  EXPECT_NEAR(W.P, 0.375, 1e-12) << "exact p of 4 pairs";
  // All five slower before: only 1 of 32 patterns, p = 2/32.
  pairs({1.1, 1.2, 1.3, 1.4, 1.5}, B, A);
  W = wilcoxonSignedRank(B, A);
  EXPECT_NEAR(W.U, 15, 1e-12) << "W+ of 5 pairs";
  EXPECT_NEAR(W.P, 0.0625, 1e-12) << "exact p of 5 pairs";
  // Ties: |log 2| four times (ranks 1-4, 2.5 each), |log 3| twice (5.5);
  // W+ = 3 * 2.5 + 5.5 = 13. Exact over the 64 sign patterns: a sum of k
  // ranks 2.5 and m ranks 5.5 reaches 13 for m = 1, k >= 3 (5 * 2 ways)
  // and m = 2, k >= 1 (15 ways): p = 2 * 25/64.
  pairs({2, 2, 0.5, 2, 3, 1 / 3.0}, B, A);
  W = wilcoxonSignedRank(B, A);
  EXPECT_TRUE(W.Exact) << "ties: still exact";
  EXPECT_NEAR(W.U, 13, 1e-9) << "W+ with ties";
  EXPECT_NEAR(W.P, 0.78125, 1e-12) << "p with ties";
  // Twelve pairs all faster, two of them tied (CPU times in clock ticks):
  // only the all-positive pattern reaches W+ = 78, p = 2/4096, as without
  // the tie (the normal approximation would say 0.0025, above the 0.001 a
  // look of program mode asks for).
  pairs({2, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}, B, A);
  W = wilcoxonSignedRank(B, A);
  EXPECT_TRUE(W.Exact) << "twelve pairs with a tie: exact";
  EXPECT_NEAR(W.P, 2.0 / 4096, 1e-12) << "p of twelve faster pairs, tied";
  // Equal pairs carry no information.
  pairs({1, 1, 1}, B, A);
  EXPECT_NEAR(wilcoxonSignedRank(B, A).P, 1, 1e-12) << "no differences";
}

} // namespace
} // namespace torchtidy
