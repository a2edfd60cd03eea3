//===--- Sequential.cpp - libtorch-tidy-verify ----------------------------===//

#include "Sequential.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace torchtidy {

bool SequentialRule::isLook(int Rounds) const {
  return std::find(Looks.begin(), Looks.end(), Rounds) != Looks.end();
}

int SequentialRule::lookAtOrAfter(int Rounds) const {
  for (int L : Looks)
    if (L >= Rounds)
      return L;
  return lastLook();
}

int SequentialRule::fewestPairsForTest() const {
  int N = 1;
  while (N < 64 && 2 * std::pow(0.5, N) > alphaPerLook())
    ++N;
  return N;
}

namespace {

std::string percent(double Fraction) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.0f%%", 100 * Fraction);
  return Buf;
}

std::string times(double X) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.2fx", X);
  return Buf;
}

/// How far, in log speedup, the point lies inside the region of the
/// verdict it points to (beyond a bound for faster/slower, within the band
/// for same): the interval's half-width must shrink below it.
double distanceToDecision(double LogPoint, double LogBound) {
  if (LogPoint > LogBound)
    return LogPoint - LogBound;
  if (LogPoint < -LogBound)
    return -LogBound - LogPoint;
  return LogBound - std::fabs(LogPoint);
}

/// The rounds at which the interval, shrinking as 1/sqrt(rounds), would
/// decide; 0 when none can.
long long roundsNeeded(const Interval &S, size_t Rounds,
                       const SequentialRule &Rule) {
  if (!(S.Point > 0 && S.Low > 0 && S.High > 0))
    return 0;
  double LogPoint = std::log(S.Point);
  double Half = std::max(std::log(S.High) - LogPoint,
                         LogPoint - std::log(S.Low));
  double Distance = distanceToDecision(LogPoint, std::log1p(Rule.Delta));
  if (Distance <= 0)
    return 0;
  double Needed = Rounds * (Half / Distance) * (Half / Distance);
  bool Band = std::fabs(LogPoint) <= std::log1p(Rule.Delta);
  if (!Band)
    Needed = std::max(Needed, double(Rule.fewestPairsForTest()));
  if (Needed > 1e9)
    return 0;
  return std::max<long long>(static_cast<long long>(std::ceil(Needed)),
                             static_cast<long long>(Rounds) + 1);
}

/// Whether some speedup inside the interval would be decided at \p Reach
/// rounds, the interval shrinking as 1/sqrt(rounds): the point estimate of
/// few rounds is too rough to give up on by itself.
bool decidableWithin(const Interval &S, size_t Rounds, long long Reach,
                     const SequentialRule &Rule) {
  if (!(S.Point > 0 && S.Low > 0 && S.High > 0) || Reach <= 0)
    return false;
  double LogPoint = std::log(S.Point), Low = std::log(S.Low),
         High = std::log(S.High);
  double Half = std::max(High - LogPoint, LogPoint - Low) *
                std::sqrt(static_cast<double>(Rounds) / Reach);
  double Bound = std::log1p(Rule.Delta);
  double Closest = std::clamp(0.0, Low, High); // to no effect
  return High - Bound > Half || -Bound - Low > Half ||
         Bound - std::fabs(Closest) > Half;
}

std::string ambiguousWhy(const LookResult &L, size_t Rounds,
                         long long MostRounds) {
  const Interval &S = L.J.Speedup;
  double Half = std::max(S.High / S.Point - 1, 1 - S.Low / S.Point);
  std::string Why = "noise " + percent(L.J.RatioSpread) +
                    " (IQR/median of the pair ratios); after " +
                    std::to_string(Rounds) + " rounds the interval spans " +
                    times(S.Low) + " .. " + times(S.High) + " (+-" +
                    percent(Half) + ")";
  if (L.RoundsNeeded == 0)
    return Why + ", and " + times(S.Point) +
           " sits on a bound: no number of rounds decides it";
  Why += ": about " + std::to_string(L.RoundsNeeded) +
         " rounds would decide it";
  if (L.RoundsNeeded > MostRounds)
    Why += ", the budget allows " + std::to_string(MostRounds);
  return Why;
}

} // namespace

LookResult judgeAtLook(const std::vector<double> &Before,
                       const std::vector<double> &After, long long MostRounds,
                       const SequentialRule &Rule) {
  LookResult L;
  L.J.Paired = true;
  L.J.Speedup = pairedBootstrapSpeedup(Before, After, Rule.confidencePerLook(),
                                       Rule.Resamples);
  L.J.Test = wilcoxonSignedRank(Before, After);
  L.J.RatioSpread = relativeSpread(pairRatios(Before, After));
  // The interval carries the noise, at the confidence of one look; no
  // spread gate, or noisy samples could never be decided by more rounds.
  DecisionRule D;
  D.Delta = Rule.Delta;
  D.Alpha = Rule.alphaPerLook();
  D.MaxSpread = std::numeric_limits<double>::infinity();
  L.J.Decision = decide(L.J.Speedup, L.J.Test, 0, 0, D);
  size_t Rounds = std::min(Before.size(), After.size());
  if (L.J.Decision != Verdict::Ambiguous) {
    L.Done = true;
    return L;
  }
  L.RoundsNeeded = roundsNeeded(L.J.Speedup, Rounds, Rule);
  long long Reach = std::min<long long>(MostRounds, Rule.lastLook());
  L.Done = !decidableWithin(L.J.Speedup, Rounds, Reach, Rule);
  L.Why = ambiguousWhy(L, Rounds, Reach);
  return L;
}

LookResult judgeOnce(const std::vector<double> &Before,
                     const std::vector<double> &After,
                     const DecisionRule &Rule) {
  SequentialRule Once;
  int Pairs = static_cast<int>(std::min(Before.size(), After.size()));
  Once.Looks = {Pairs};
  Once.Alpha = Rule.Alpha;
  Once.Delta = Rule.Delta;
  return judgeAtLook(Before, After, Pairs, Once);
}

} // namespace torchtidy
