//===--- Stats.h - libtorch-tidy-verify -------------------------*- C++ -*-===//
//
// The statistics of the runtime verifier, following
// shared/reference/measurement.md: medians and IQRs per variant, a bootstrap
// interval for the speedup, the Mann-Whitney U test, the adaptive stopping
// rule and the verdict. No LibTorch and no LLVM here, so all of it is unit
// tested on known values.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_STATS_H
#define LIBTORCH_TIDY_VERIFY_STATS_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

double median(std::vector<double> V);
/// Linear interpolation between order statistics (numpy's default).
double quantile(std::vector<double> V, double Q);
double iqr(const std::vector<double> &V);
/// IQR / median: the noise of one variant's samples.
double relativeSpread(const std::vector<double> &V);

struct Interval {
  double Point = 0, Low = 0, High = 0;
};

/// median(Before) / median(After), the speedup, with a percentile bootstrap
/// interval at \p Confidence; the two samples are resampled independently.
/// Deterministic for a given \p Seed.
Interval bootstrapSpeedup(const std::vector<double> &Before,
                          const std::vector<double> &After,
                          double Confidence = 0.95, int Resamples = 2000,
                          uint64_t Seed = 12345);

/// The speedup of interleaved samples: Before[I] and After[I] were taken
/// back to back, so their ratio cancels what drifts on the machine between
/// rounds (a busy neighbour, clocks) and hits both. Point: the median of
/// the ratios; interval: percentile bootstrap over the pairs.
Interval pairedBootstrapSpeedup(const std::vector<double> &Before,
                                const std::vector<double> &After,
                                double Confidence = 0.95, int Resamples = 2000,
                                uint64_t Seed = 12345);

/// Before[I] / After[I].
std::vector<double> pairRatios(const std::vector<double> &Before,
                               const std::vector<double> &After);

struct RankTest {
  double U = 0; ///< U statistic of the first sample
  double P = 1; ///< two-sided p-value
  bool Exact = false;
};

/// Two-sided Mann-Whitney U test. Exact distribution for samples of up to 8
/// each without ties; otherwise the normal approximation with tie correction
/// and continuity correction (scipy.stats.mannwhitneyu's "auto").
RankTest mannWhitneyU(const std::vector<double> &A,
                      const std::vector<double> &B);

/// Two-sided Wilcoxon signed-rank test of the log ratios of paired samples
/// (zero differences dropped). Exact distribution for up to 50 pairs, tied
/// pairs sharing their average rank (the permutation distribution of the
/// signs); otherwise the normal approximation with tie and continuity
/// correction. U holds W+, the rank sum of the pairs where Before is
/// slower.
RankTest wilcoxonSignedRank(const std::vector<double> &Before,
                            const std::vector<double> &After);

struct StopRule {
  unsigned MinSamples = 10;   ///< per variant, before any early stop
  unsigned MaxSamples = 200;  ///< per variant
  double NoiseTarget = 0.10;  ///< stop once IQR/median is below, both
  double TimeCapSeconds = 10; ///< stop at this much timed work
};

/// Why to stop sampling ("noise", "samples", "time"), given the samples so
/// far and the seconds spent timing them; nothing while sampling goes on.
std::optional<std::string> stopReason(const std::vector<double> &Before,
                                      const std::vector<double> &After,
                                      double Seconds, const StopRule &Rule);

enum class Verdict { Faster, Same, Slower, Ambiguous };
const char *verdictName(Verdict V);

struct DecisionRule {
  double Delta = 0.10;     ///< a gain must clear 1 + Delta (TorchBench)
  double Alpha = 0.01;     ///< significance level of the rank test
  double MaxSpread = 0.25; ///< refuse a verdict above this IQR/median
                           ///< (judge(): unpaired samples only)
};

/// The verdict on a speedup interval: faster when its lower bound clears
/// 1 + Delta and the rank test agrees, slower when its upper bound is below
/// 1 / (1 + Delta) and the test agrees, same when the interval lies within
/// [1 / (1 + Delta), 1 + Delta], ambiguous otherwise or when the samples are
/// too noisy.
Verdict decide(const Interval &Speedup, const RankTest &Test,
               double SpreadBefore, double SpreadAfter,
               const DecisionRule &Rule = {});

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_STATS_H
