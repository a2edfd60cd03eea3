//===--- SequentialTest.cpp - libtorch-tidy-verify ------------------------===//
//
// The stopping rule of program mode on synthetic rounds: with no effect the
// share of faster/slower verdicts stays within the nominal rate however
// many looks are taken, and a real 1.3x gain is decided faster.
//
//===----------------------------------------------------------------------===//

#include "Sequential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace torchtidy {
namespace {

/// Rounds of a program taking 1 s before the fix and 1/Effect s after,
/// each run with log-normal noise of \p Sigma, and a drift that hits both
/// runs of a round (a busy neighbour): what interleaving pairs away.
class Rounds {
public:
  Rounds(double Effect, double Sigma, uint64_t Seed)
      : Effect(Effect), Noise(0, Sigma), Drift(0, 0.3), Rng(Seed) {}
  void next() {
    double D = std::exp(Drift(Rng));
    Before.push_back(1e6 * D * std::exp(Noise(Rng)));
    After.push_back(1e6 / Effect * D * std::exp(Noise(Rng)));
  }
  std::vector<double> Before, After;

private:
  double Effect;
  std::normal_distribution<double> Noise, Drift;
  std::mt19937_64 Rng;
};

/// The verdict of one sequential run: looks until a look is done (or, with
/// \p UntilDecided, until a verdict or the last look).
Verdict sequentialVerdict(double Effect, double Sigma, uint64_t Seed,
                          const SequentialRule &Rule, bool UntilDecided) {
  Rounds R(Effect, Sigma, Seed);
  for (int Look : Rule.Looks) {
    while (static_cast<int>(R.Before.size()) < Look)
      R.next();
    LookResult L = judgeAtLook(R.Before, R.After, Rule.lastLook(), Rule);
    if (L.J.Decision != Verdict::Ambiguous || (L.Done && !UntilDecided))
      return L.J.Decision;
  }
  return Verdict::Ambiguous;
}

struct Shares {
  double Faster = 0, Slower = 0, Same = 0;
};

Shares verdictShares(double Effect, double Sigma, int Trials,
                     const SequentialRule &Rule, bool UntilDecided) {
  Shares S;
  for (int T = 0; T < Trials; ++T) {
    Verdict V = sequentialVerdict(Effect, Sigma, 1000 + T, Rule, UntilDecided);
    S.Faster += V == Verdict::Faster;
    S.Slower += V == Verdict::Slower;
    S.Same += V == Verdict::Same;
  }
  S.Faster /= Trials;
  S.Slower /= Trials;
  S.Same /= Trials;
  return S;
}

TEST(SequentialTest, RuleArithmetic) {
  SequentialRule Rule;
  EXPECT_NEAR(Rule.alphaPerLook(), 0.001, 1e-12);
  EXPECT_NEAR(Rule.confidencePerLook(), 0.995, 1e-12);
  EXPECT_TRUE(Rule.isLook(8));
  EXPECT_FALSE(Rule.isLook(9));
  EXPECT_EQ(Rule.lookAtOrAfter(9), 12);
  // 2 / 2^10 = 0.00195 > 0.001; 2 / 2^11 = 0.00098.
  EXPECT_EQ(Rule.fewestPairsForTest(), 11);
}

// The worst case for the error rate: no margin (Delta 0, so "same" is never
// reached) and every look taken until a verdict. Without the split of
// alpha over the looks, the same procedure calls a no-effect fix faster or
// slower more often than alpha.
TEST(SequentialTest, NoEffectStaysWithinAlphaAtEveryLook) {
  SequentialRule Rule;
  Rule.Looks = {8, 12, 16, 24, 32, 48};
  Rule.Delta = 0;
  Rule.Alpha = 0.05;
  Rule.Resamples = 200;
  Shares S = verdictShares(1.0, 0.1, 1000, Rule, /*UntilDecided=*/true);
  EXPECT_LE(S.Faster + S.Slower, Rule.Alpha)
      << "faster " << S.Faster << ", slower " << S.Slower;

  // The uncorrected procedure: each look at the full alpha.
  SequentialRule Naive = Rule;
  Naive.Alpha = Rule.Alpha * Rule.Looks.size();
  Naive.Confidence = 1 - (1 - Rule.Confidence) * Rule.Looks.size();
  Shares N = verdictShares(1.0, 0.1, 1000, Naive, /*UntilDecided=*/true);
  EXPECT_GT(N.Faster + N.Slower, Rule.Alpha)
      << "the test could not tell a corrected rule from an uncorrected one";
}

// The rule as program mode uses it, on quiet and on noisy rounds.
TEST(SequentialTest, NoEffectIsSameOrAmbiguous) {
  SequentialRule Rule;
  Rule.Resamples = 500;
  for (double Sigma : {0.03, 0.15}) {
    Shares S = verdictShares(1.0, Sigma, 300, Rule, /*UntilDecided=*/false);
    EXPECT_LE(S.Faster + S.Slower, Rule.Alpha) << "sigma " << Sigma;
    EXPECT_GE(S.Same, 0.8) << "sigma " << Sigma;
  }
}

TEST(SequentialTest, ARealGainIsDecidedFaster) {
  SequentialRule Rule;
  Rule.Resamples = 500;
  for (double Sigma : {0.05, 0.2}) {
    Shares S = verdictShares(1.3, Sigma, 100, Rule, /*UntilDecided=*/false);
    EXPECT_GE(S.Faster, 0.95) << "sigma " << Sigma;
  }
  Shares Slow = verdictShares(1 / 1.3, 0.05, 100, Rule, false);
  EXPECT_GE(Slow.Slower, 0.95);
}

TEST(SequentialTest, AmbiguousSaysWhatWouldDecideIt) {
  // A gain of 1.12x under 20% noise: not decided at 8 rounds, and the
  // reason names the noise, the interval and the rounds needed.
  Rounds R(1.12, 0.2, 7);
  for (int I = 0; I < 8; ++I)
    R.next();
  LookResult L = judgeAtLook(R.Before, R.After, 200);
  ASSERT_EQ(L.J.Decision, Verdict::Ambiguous);
  EXPECT_GT(L.RoundsNeeded, 8);
  EXPECT_NE(L.Why.find("(IQR/median of the pair ratios); after 8 rounds the "
                       "interval spans "),
            std::string::npos)
      << L.Why;
  EXPECT_NE(L.Why.find("rounds would decide it"), std::string::npos) << L.Why;

  // With a budget of 10 rounds it is given up, and the reason says so.
  LookResult Short = judgeAtLook(R.Before, R.After, 10);
  if (Short.RoundsNeeded > 20) {
    EXPECT_TRUE(Short.Done);
    EXPECT_NE(Short.Why.find("the budget allows 10"), std::string::npos)
        << Short.Why;
  }
}

TEST(SequentialTest, OnABoundNoRoundsAreNamed) {
  // Pairs around exactly 1.10x: the median sits on the bound, so no
  // number of rounds can be promised (more may still move it off).
  std::vector<double> Before, After;
  for (int I = 0; I < 12; ++I) {
    After.push_back(100);
    Before.push_back(110 + (I % 2 ? 0.5 : -0.5));
  }
  LookResult L = judgeAtLook(Before, After, 200);
  EXPECT_EQ(L.J.Decision, Verdict::Ambiguous);
  EXPECT_EQ(L.RoundsNeeded, 0);
  EXPECT_NE(L.Why.find("sits on a bound"), std::string::npos) << L.Why;
}

} // namespace
} // namespace torchtidy
