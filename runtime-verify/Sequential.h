//===--- Sequential.h - libtorch-tidy-verify --------------------*- C++ -*-===//
//
// Program mode measures until each finding is decided: rounds go on, and at
// fixed rounds (the looks) every variant still undecided is judged on its
// pairs with the baseline; a variant with a verdict, or one that the budget
// left cannot decide, stops being run. Looking more than once inflates the
// error rates of a test made for one look, so each look spends an equal
// share of them (Bonferroni over the planned looks): the rate of false
// faster/slower verdicts over the whole run stays at most Alpha. No
// LibTorch and no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_SEQUENTIAL_H
#define LIBTORCH_TIDY_VERIFY_SEQUENTIAL_H

#include "Verdict.h"

#include <string>
#include <vector>

namespace torchtidy {

struct SequentialRule {
  /// Rounds at which the samples are judged; the first is the fewest
  /// rounds of any verdict, the last the most rounds of a run.
  std::vector<int> Looks = {8, 12, 16, 24, 32, 48, 64, 96, 128, 200};
  double Alpha = 0.01;      ///< false faster/slower rate, all looks together
  double Confidence = 0.95; ///< of the interval, all looks together
  double Delta = 0.10;      ///< a gain must clear 1 + Delta
  int Resamples = 2000;     ///< of the bootstrap interval

  double alphaPerLook() const { return Alpha / Looks.size(); }
  double confidencePerLook() const {
    return 1 - (1 - Confidence) / Looks.size();
  }
  bool isLook(int Rounds) const;
  int lastLook() const { return Looks.empty() ? 0 : Looks.back(); }
  /// The first look at or after \p Rounds; lastLook() past the last.
  int lookAtOrAfter(int Rounds) const;
  /// The fewest pairs with which the signed-rank test can reach
  /// alphaPerLook() (all ratios on one side: p = 2 / 2^n).
  int fewestPairsForTest() const;
};

/// One look at a variant's pairs.
struct LookResult {
  Judgement J;
  /// Stop running it: a verdict, or no decision within the budget.
  bool Done = false;
  /// Rounds that would decide it at the noise measured; 0 when no number
  /// of rounds can (the speedup sits on a bound).
  long long RoundsNeeded = 0;
  /// For an ambiguous verdict: the noise, the effect these rounds tell
  /// apart, and the rounds that would decide it.
  std::string Why;
};

/// Judges \p Before and \p After (paired, one pair per round) at a look;
/// \p MostRounds is the most rounds the budget left can reach.
LookResult judgeAtLook(const std::vector<double> &Before,
                       const std::vector<double> &After, long long MostRounds,
                       const SequentialRule &Rule = {});

/// Judges interleaved pairs once, after all of them (a single look at
/// \p Rule's Alpha and Delta): what judge() decides for paired samples,
/// with the reason an ambiguous verdict gets.
LookResult judgeOnce(const std::vector<double> &Before,
                     const std::vector<double> &After,
                     const DecisionRule &Rule = {});

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_SEQUENTIAL_H
