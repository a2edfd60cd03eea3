//===--- StatsTest.cpp - libtorch-tidy-verify -----------------------------===//
//
// Unit tests of the verifier's statistics against values worked out by hand
// (the rank sums are in the comments) or from the closed forms scipy
// documents for mannwhitneyu.
//
//===----------------------------------------------------------------------===//

#include "../Stats.h"

#include <cmath>
#include <cstdio>
#include <string>

using namespace torchverify;

namespace {

int Failures = 0;

void expectNear(double Got, double Want, double Tol, const char *What) {
  if (!(std::fabs(Got - Want) <= Tol)) {
    std::printf("FAIL %s: got %.10g, want %.10g (tolerance %g)\n", What, Got,
                Want, Tol);
    ++Failures;
  }
}

void expectTrue(bool Cond, const char *What) {
  if (!Cond) {
    std::printf("FAIL %s\n", What);
    ++Failures;
  }
}

std::vector<double> range(int From, int To) {
  std::vector<double> V;
  for (int I = From; I <= To; ++I)
    V.push_back(I);
  return V;
}

void testSummaries() {
  expectNear(median({3, 1, 2}), 2, 0, "median odd");
  expectNear(median({4, 1, 3, 2}), 2.5, 0, "median even");
  // numpy.quantile([1..10], 0.25) = 3.25, 0.75 -> 7.75
  expectNear(quantile(range(1, 10), 0.25), 3.25, 1e-12, "quantile 0.25");
  expectNear(iqr(range(1, 10)), 4.5, 1e-12, "iqr");
  expectNear(relativeSpread(range(1, 10)), 4.5 / 5.5, 1e-12, "spread");
}

void testBootstrap() {
  // Constant samples: every resample has the same medians.
  Interval Exact = bootstrapSpeedup(std::vector<double>(20, 4.0),
                                    std::vector<double>(20, 2.0));
  expectNear(Exact.Point, 2, 0, "bootstrap point, constant");
  expectNear(Exact.Low, 2, 0, "bootstrap low, constant");
  expectNear(Exact.High, 2, 0, "bootstrap high, constant");

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
  expectNear(I1.Point, 2, 1e-12, "bootstrap point, scaled");
  expectTrue(I1.Low <= 2 && 2 <= I1.High, "bootstrap interval holds 2");
  expectTrue(I1.Low > 1.8 && I1.High < 2.2, "bootstrap interval narrow");
  expectTrue(I1.Low == I2.Low && I1.High == I2.High,
             "bootstrap deterministic for a seed");
  Interval Wider = bootstrapSpeedup(Before, After, 0.99);
  expectTrue(Wider.Low <= I1.Low && Wider.High >= I1.High,
             "99% interval contains the 95% one");
}

void testMannWhitney() {
  // Complete separation, 5 vs 5: U = 0, exact two-sided p = 2 / C(10, 5).
  RankTest Sep = mannWhitneyU(range(1, 5), range(6, 10));
  expectNear(Sep.U, 0, 0, "U, separated");
  expectTrue(Sep.Exact, "exact for 5 vs 5");
  expectNear(Sep.P, 2.0 / 252, 1e-12, "p, separated 5 vs 5");

  // Interleaved 3 vs 3: ranks of A are 1, 3, 5, U = 3; the null counts for
  // U = 0..9 are 1 1 2 3 3 3 3 2 1 1, so P(U <= 3) = 7/20 and p = 0.7.
  RankTest Mixed = mannWhitneyU({1, 3, 5}, {2, 4, 6});
  expectNear(Mixed.U, 3, 0, "U, interleaved");
  expectNear(Mixed.P, 0.7, 1e-12, "p, interleaved 3 vs 3");

  // 10 vs 10, separated: normal approximation, mean 50, variance
  // 100 / 12 * 21 = 175, z = 49.5 / sqrt(175).
  RankTest Large = mannWhitneyU(range(1, 10), range(11, 20));
  expectTrue(!Large.Exact, "normal approximation for 10 vs 10");
  expectNear(Large.P, 0.0001826717911095504, 1e-12, "p, separated 10 vs 10");

  // Ties: A = 1 2 2 3 4..9, B = 2 3 10..17. Average ranks 1, 3, 3, 5.5,
  // 7..12 give R_A = 69.5 and U = 14.5; tie groups of 3 and 2 give a
  // correction of 24 + 6 = 30.
  RankTest Tied = mannWhitneyU({1, 2, 2, 3, 4, 5, 6, 7, 8, 9},
                               {2, 3, 10, 11, 12, 13, 14, 15, 16, 17});
  expectNear(Tied.U, 14.5, 0, "U, ties");
  expectNear(Tied.P, 0.008031597670507557, 1e-12, "p, ties");

  // Identical samples: nothing to see.
  RankTest Same =
      mannWhitneyU(std::vector<double>(12, 1.0), std::vector<double>(12, 1.0));
  expectNear(Same.P, 1, 0, "p, identical");
}

void testStopping() {
  StopRule Rule;
  Rule.MinSamples = 5;
  Rule.MaxSamples = 50;
  Rule.TimeCapSeconds = 10;
  std::string Why;
  std::vector<double> Quiet(4, 1.0);
  expectTrue(!shouldStop(Quiet, Quiet, 1, Rule, &Why),
             "no stop before the minimum");
  Quiet.push_back(1.0);
  expectTrue(shouldStop(Quiet, Quiet, 1, Rule, &Why) && Why == "noise",
             "stop on low noise");
  std::vector<double> Noisy = {1, 2, 3, 4, 5, 6};
  expectTrue(!shouldStop(Noisy, Noisy, 1, Rule, &Why), "no stop while noisy");
  expectTrue(shouldStop(Noisy, Noisy, 10.5, Rule, &Why) && Why == "time",
             "stop at the time cap");
  std::vector<double> Many;
  for (int I = 0; I < 50; ++I)
    Many.push_back(1 + I % 7);
  expectTrue(shouldStop(Many, Many, 1, Rule, &Why) && Why == "samples",
             "stop at the sample cap");
}

void testVerdicts() {
  RankTest Significant{0, 0.001, false}, NotSignificant{0, 0.4, false};
  expectTrue(decide({1.25, 1.2, 1.3}, Significant, 0.05, 0.05) ==
                 Verdict::Faster,
             "faster");
  expectTrue(decide({1.25, 1.2, 1.3}, NotSignificant, 0.05, 0.05) ==
                 Verdict::Ambiguous,
             "faster needs significance");
  expectTrue(decide({1.0, 0.95, 1.05}, NotSignificant, 0.05, 0.05) ==
                 Verdict::Same,
             "same");
  expectTrue(decide({0.75, 0.7, 0.8}, Significant, 0.05, 0.05) ==
                 Verdict::Slower,
             "slower");
  expectTrue(decide({1.2, 1.05, 1.4}, Significant, 0.05, 0.05) ==
                 Verdict::Ambiguous,
             "interval across 1 + delta");
  expectTrue(decide({1.5, 1.4, 1.6}, Significant, 0.30, 0.05) ==
                 Verdict::Ambiguous,
             "too noisy for a verdict");
  expectTrue(std::string(verdictName(Verdict::Faster)) == "faster" &&
                 std::string(verdictName(Verdict::Ambiguous)) == "ambiguous",
             "verdict names");
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

void testPaired() {
  std::vector<double> B, A;
  // A constant 2x under drift: the paired interval is exactly 2, where
  // resampling the variants independently sees the drift.
  pairs(std::vector<double>(12, 2.0), B, A);
  Interval P = pairedBootstrapSpeedup(B, A);
  expectNear(P.Point, 2.0, 1e-12, "paired point");
  expectNear(P.Low, 2.0, 1e-12, "paired low");
  expectNear(P.High, 2.0, 1e-12, "paired high");
  Interval U = bootstrapSpeedup(B, A);
  expectTrue(U.High - U.Low > 0.5, "unpaired interval widened by drift");

  // Exact signed-rank: log ratios ranked 1..4, signs + - + +: W+ = 8;
  // 3 of the 16 sign patterns reach 8 or more, p = 2 * 3/16.
  pairs({1.1, 1 / 1.2, 1.3, 1.4}, B, A);
  RankTest W = wilcoxonSignedRank(B, A);
  expectTrue(W.Exact, "signed-rank exact");
  expectNear(W.U, 8, 1e-12, "W+ of 4 pairs");
  expectNear(W.P, 0.375, 1e-12, "exact p of 4 pairs");
  // All five slower before: only 1 of 32 patterns, p = 2/32.
  pairs({1.1, 1.2, 1.3, 1.4, 1.5}, B, A);
  W = wilcoxonSignedRank(B, A);
  expectNear(W.U, 15, 1e-12, "W+ of 5 pairs");
  expectNear(W.P, 0.0625, 1e-12, "exact p of 5 pairs");
  // Ties: |log 2| four times (ranks 1-4, 2.5 each), |log 3| twice (5.5);
  // W+ = 3 * 2.5 + 5.5 = 13, mean 10.5, variance 6*7*13/24 - (60 + 6)/48
  // = 21.375, z = (2.5 - 0.5)/sqrt(21.375), p = erfc(z/sqrt 2) = 0.665312.
  pairs({2, 2, 0.5, 2, 3, 1 / 3.0}, B, A);
  W = wilcoxonSignedRank(B, A);
  expectTrue(!W.Exact, "ties: normal approximation");
  expectNear(W.U, 13, 1e-9, "W+ with ties");
  expectNear(W.P, 0.665312, 1e-6, "p with ties");
  // Equal pairs carry no information.
  pairs({1, 1, 1}, B, A);
  expectNear(wilcoxonSignedRank(B, A).P, 1, 1e-12, "no differences");
}

} // namespace

int main() {
  testPaired();
  testSummaries();
  testBootstrap();
  testMannWhitney();
  testStopping();
  testVerdicts();
  if (Failures) {
    std::printf("%d failure(s)\n", Failures);
    return 1;
  }
  std::printf("all statistics tests passed\n");
  return 0;
}
