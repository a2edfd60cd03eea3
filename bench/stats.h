// Statistics shared by the benchmarks: medians, quantiles, and a bootstrap
// interval for the ratio of two medians measured side by side.

#ifndef LIBTORCH_TIDY_BENCH_STATS_H
#define LIBTORCH_TIDY_BENCH_STATS_H

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

namespace bench {

inline double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

inline double quantile(std::vector<double> V, double Q) {
  std::sort(V.begin(), V.end());
  double Pos = Q * (V.size() - 1);
  size_t Lo = static_cast<size_t>(Pos);
  size_t Hi = std::min(Lo + 1, V.size() - 1);
  return V[Lo] + (Pos - Lo) * (V[Hi] - V[Lo]);
}

inline double iqr(const std::vector<double> &V) {
  return quantile(V, 0.75) - quantile(V, 0.25);
}

struct Ratio {
  double Value, Low, High;
};

/// median(A) / median(B) with a 95% bootstrap interval.
inline Ratio ratioOfMedians(const std::vector<double> &A,
                            const std::vector<double> &B) {
  std::mt19937 Rng(12345);
  std::uniform_int_distribution<size_t> PickA(0, A.size() - 1);
  std::uniform_int_distribution<size_t> PickB(0, B.size() - 1);
  std::vector<double> Ratios;
  for (int I = 0; I < 2000; ++I) {
    std::vector<double> SA, SB;
    for (size_t J = 0; J < A.size(); ++J)
      SA.push_back(A[PickA(Rng)]);
    for (size_t J = 0; J < B.size(); ++J)
      SB.push_back(B[PickB(Rng)]);
    Ratios.push_back(median(SA) / median(SB));
  }
  return {median(A) / median(B), quantile(Ratios, 0.025),
          quantile(Ratios, 0.975)};
}

} // namespace bench

#endif // LIBTORCH_TIDY_BENCH_STATS_H
