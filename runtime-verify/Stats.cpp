//===--- Stats.cpp - libtorch-tidy-verify ---------------------------------===//

#include "Stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

namespace torchtidy {

double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

double quantile(std::vector<double> V, double Q) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  double Pos = Q * (V.size() - 1);
  size_t Lo = static_cast<size_t>(Pos);
  size_t Hi = std::min(Lo + 1, V.size() - 1);
  return V[Lo] + (Pos - Lo) * (V[Hi] - V[Lo]);
}

double iqr(const std::vector<double> &V) {
  return quantile(V, 0.75) - quantile(V, 0.25);
}

double relativeSpread(const std::vector<double> &V) {
  double M = median(V);
  return M > 0 ? iqr(V) / M : INFINITY;
}

Interval bootstrapSpeedup(const std::vector<double> &Before,
                          const std::vector<double> &After, double Confidence,
                          int Resamples, uint64_t Seed) {
  Interval Result;
  if (Before.empty() || After.empty())
    return Result;
  Result.Point = median(Before) / median(After);
  std::mt19937_64 Rng(Seed);
  std::uniform_int_distribution<size_t> PickB(0, Before.size() - 1);
  std::uniform_int_distribution<size_t> PickA(0, After.size() - 1);
  std::vector<double> Ratios, SB(Before.size()), SA(After.size());
  Ratios.reserve(Resamples);
  for (int I = 0; I < Resamples; ++I) {
    for (double &X : SB)
      X = Before[PickB(Rng)];
    for (double &X : SA)
      X = After[PickA(Rng)];
    Ratios.push_back(median(SB) / median(SA));
  }
  double Tail = (1 - Confidence) / 2;
  Result.Low = quantile(Ratios, Tail);
  Result.High = quantile(Ratios, 1 - Tail);
  return Result;
}

std::vector<double> pairRatios(const std::vector<double> &Before,
                               const std::vector<double> &After) {
  std::vector<double> R;
  for (size_t I = 0; I < std::min(Before.size(), After.size()); ++I)
    R.push_back(Before[I] / After[I]);
  return R;
}

Interval pairedBootstrapSpeedup(const std::vector<double> &Before,
                                const std::vector<double> &After,
                                double Confidence, int Resamples,
                                uint64_t Seed) {
  Interval Result;
  std::vector<double> Pairs = pairRatios(Before, After);
  if (Pairs.empty())
    return Result;
  Result.Point = median(Pairs);
  std::mt19937_64 Rng(Seed);
  std::uniform_int_distribution<size_t> Pick(0, Pairs.size() - 1);
  std::vector<double> Medians, Sample(Pairs.size());
  Medians.reserve(Resamples);
  for (int I = 0; I < Resamples; ++I) {
    for (double &X : Sample)
      X = Pairs[Pick(Rng)];
    Medians.push_back(median(Sample));
  }
  double Tail = (1 - Confidence) / 2;
  Result.Low = quantile(Medians, Tail);
  Result.High = quantile(Medians, 1 - Tail);
  return Result;
}

RankTest wilcoxonSignedRank(const std::vector<double> &Before,
                            const std::vector<double> &After) {
  RankTest Result;
  std::vector<double> D;
  for (double R : pairRatios(Before, After))
    if (R > 0 && std::log(R) != 0)
      D.push_back(std::log(R));
  size_t N = D.size();
  if (N == 0)
    return Result;
  std::vector<size_t> Order(N);
  for (size_t I = 0; I < N; ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return std::fabs(D[A]) < std::fabs(D[B]);
  });
  // Average ranks of |d|, ties sharing theirs.
  std::vector<double> Rank(N);
  double TieTerm = 0;
  for (size_t I = 0; I < N;) {
    size_t J = I;
    while (J + 1 < N && std::fabs(D[Order[J + 1]]) == std::fabs(D[Order[I]]))
      ++J;
    double Avg = (I + J) / 2.0 + 1;
    for (size_t K = I; K <= J; ++K)
      Rank[Order[K]] = Avg;
    double T = static_cast<double>(J - I + 1);
    TieTerm += T * T * T - T;
    I = J + 1;
  }
  double WPlus = 0;
  for (size_t I = 0; I < N; ++I)
    if (D[I] > 0)
      WPlus += Rank[I];
  Result.U = WPlus;
  double Total = N * (N + 1) / 2.0;
  if (N <= 50) {
    // Exact over the 2^N sign patterns, tied pairs keeping their average
    // rank (doubled, to count in integers): CPU times in clock ticks tie
    // often, and with a dozen pairs the normal approximation can never
    // reach the small p-values a sequential rule asks for.
    // Average ranks keep their sum: twice N(N+1)/2.
    auto Total2 = static_cast<size_t>(2 * Total);
    std::vector<size_t> Twice(N);
    for (size_t I = 0; I < N; ++I)
      Twice[I] = static_cast<size_t>(std::lround(2 * Rank[I]));
    std::vector<double> Count(Total2 + 1, 0);
    Count[0] = 1;
    for (size_t R : Twice)
      for (size_t S = Total2; S >= R; --S)
        Count[S] += Count[S - R];
    auto WPlus2 = static_cast<size_t>(std::lround(2 * WPlus));
    double All = std::pow(2.0, static_cast<double>(N));
    double Upper = 0, Lower = 0;
    for (size_t S = 0; S <= Total2; ++S) {
      if (S >= WPlus2)
        Upper += Count[S];
      if (S <= WPlus2)
        Lower += Count[S];
    }
    Result.P = std::min(1.0, 2 * std::min(Upper, Lower) / All);
    Result.Exact = true;
    return Result;
  }
  double Mean = Total / 2;
  double Var = N * (N + 1.0) * (2 * N + 1.0) / 24 - TieTerm / 48;
  double Z = (std::fabs(WPlus - Mean) - 0.5) / std::sqrt(Var);
  Result.P = std::min(1.0, Z <= 0 ? 1.0 : std::erfc(Z / std::sqrt(2.0)));
  return Result;
}

namespace {

/// Number of arrangements of n1 + n2 distinct values whose first sample has
/// U = u, for every u: the exact null distribution of U.
std::vector<double> exactUCounts(unsigned N1, unsigned N2) {
  // Counts[n1][n2][u] by the recurrence f(n1, n2, u) = f(n1 - 1, n2, u - n2)
  // + f(n1, n2 - 1, u), where the largest value is in the first sample or
  // in the second.
  std::vector<std::vector<std::vector<double>>> F(
      N1 + 1, std::vector<std::vector<double>>(N2 + 1));
  for (unsigned I = 0; I <= N1; ++I)
    for (unsigned J = 0; J <= N2; ++J) {
      F[I][J].assign(I * J + 1, 0);
      if (I == 0 || J == 0) {
        F[I][J][0] = 1;
        continue;
      }
      for (unsigned U = 0; U <= I * J; ++U) {
        double Count = 0;
        if (U >= J)
          Count += F[I - 1][J][U - J];
        if (U <= I * (J - 1))
          Count += F[I][J - 1][U];
        F[I][J][U] = Count;
      }
    }
  return F[N1][N2];
}

} // namespace

RankTest mannWhitneyU(const std::vector<double> &A,
                      const std::vector<double> &B) {
  RankTest Result;
  size_t N1 = A.size(), N2 = B.size(), N = N1 + N2;
  if (!N1 || !N2)
    return Result;
  std::vector<std::pair<double, int>> All;
  for (double X : A)
    All.push_back({X, 0});
  for (double X : B)
    All.push_back({X, 1});
  std::sort(All.begin(), All.end());
  // Average ranks over ties, and the tie correction term.
  double RankSumA = 0, TieTerm = 0;
  bool Ties = false;
  for (size_t I = 0; I < N;) {
    size_t J = I;
    while (J < N && All[J].first == All[I].first)
      ++J;
    double Rank = (I + 1 + J) / 2.0; // ranks I+1 .. J
    double T = J - I;
    if (T > 1) {
      Ties = true;
      TieTerm += T * T * T - T;
    }
    for (size_t K = I; K < J; ++K)
      if (All[K].second == 0)
        RankSumA += Rank;
    I = J;
  }
  Result.U = RankSumA - N1 * (N1 + 1) / 2.0;

  if (!Ties && N1 <= 8 && N2 <= 8) {
    std::vector<double> Counts = exactUCounts(N1, N2);
    double Total = 0, Below = 0, Above = 0;
    for (size_t U = 0; U < Counts.size(); ++U) {
      Total += Counts[U];
      if (U <= Result.U)
        Below += Counts[U];
      if (U >= Result.U)
        Above += Counts[U];
    }
    Result.P = std::min(1.0, 2 * std::min(Below, Above) / Total);
    Result.Exact = true;
    return Result;
  }
  double Mean = N1 * N2 / 2.0;
  double Var = N1 * N2 / 12.0 * ((N + 1) - TieTerm / (N * (N - 1.0)));
  if (Var <= 0)
    return Result;
  double Z = (std::fabs(Result.U - Mean) - 0.5) / std::sqrt(Var);
  Result.P = std::min(1.0, Z <= 0 ? 1.0 : std::erfc(Z / std::sqrt(2.0)));
  return Result;
}

std::optional<std::string> stopReason(const std::vector<double> &Before,
                                      const std::vector<double> &After,
                                      double Seconds, const StopRule &Rule) {
  size_t N = std::min(Before.size(), After.size());
  if (Seconds >= Rule.TimeCapSeconds && N >= 2)
    return "time";
  if (N >= Rule.MaxSamples)
    return "samples";
  if (N >= Rule.MinSamples && relativeSpread(Before) < Rule.NoiseTarget &&
      relativeSpread(After) < Rule.NoiseTarget)
    return "noise";
  return std::nullopt;
}

const char *verdictName(Verdict V) {
  switch (V) {
  case Verdict::Faster:
    return "faster";
  case Verdict::Same:
    return "same";
  case Verdict::Slower:
    return "slower";
  case Verdict::Ambiguous:
    return "ambiguous";
  }
  return "ambiguous";
}

Verdict decide(const Interval &Speedup, const RankTest &Test,
               double SpreadBefore, double SpreadAfter,
               const DecisionRule &Rule) {
  if (SpreadBefore > Rule.MaxSpread || SpreadAfter > Rule.MaxSpread)
    return Verdict::Ambiguous;
  double Up = 1 + Rule.Delta, Down = 1 / (1 + Rule.Delta);
  bool Significant = Test.P <= Rule.Alpha;
  if (Speedup.Low > Up && Significant)
    return Verdict::Faster;
  if (Speedup.High < Down && Significant)
    return Verdict::Slower;
  if (Speedup.Low >= Down && Speedup.High <= Up)
    return Verdict::Same;
  return Verdict::Ambiguous;
}

} // namespace torchtidy
