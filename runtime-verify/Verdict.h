//===--- Verdict.h - libtorch-tidy-verify -----------------------*- C++ -*-===//
//
// The verdict rule on interleaved samples of the code before and after a
// fix, applied by the verifier and by bench/ alike: one function, so both
// always say the same of the same samples. No LibTorch and no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_VERDICT_H
#define LIBTORCH_TIDY_VERIFY_VERDICT_H

#include "Stats.h"


#include <vector>

namespace torchtidy {

/// What the statistics say of one before/after comparison.
struct Judgement {
  Interval Speedup;  ///< before / after, with its 95% interval
  RankTest Test;     ///< the rank test that backs the verdict
  bool Paired = false;
  double RatioSpread = 0; ///< IQR/median of the pair ratios, when paired
  Verdict Decision = Verdict::Ambiguous;
};

/// The verdict on samples of the flagged code (\p Before) and its fix
/// (\p After), in microseconds. When both have as many samples, Before[I]
/// and After[I] ran back to back and the statistics are paired: the speedup
/// is the median of the pair ratios with a bootstrap interval over the
/// pairs, tested with the Wilcoxon signed-rank test, and the noise is the
/// spread of the ratios (each ratio cancels what drifts on a shared machine
/// between rounds: measured, a 62% IQR/median of raw samples during a busy
/// spell, 4.5% of their ratios), reported but not gated: the interval
/// carries it. Otherwise the samples are independent: the ratio of the
/// medians, the Mann-Whitney U test, and Rule.MaxSpread gates each
/// variant's own spread. Either way decide() gives the verdict.
Judgement judge(const std::vector<double> &Before,
                const std::vector<double> &After,
                const DecisionRule &Rule = {});

/// "Wilcoxon signed-rank on the pair ratios" or "Mann-Whitney U".
const char *testName(const Judgement &J);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_VERDICT_H
