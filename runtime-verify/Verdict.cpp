//===--- Verdict.cpp - libtorch-tidy-verify -------------------------------===//

#include "Verdict.h"
#include "Sequential.h"

namespace torchtidy {

Judgement judge(const std::vector<double> &Before,
                const std::vector<double> &After, const DecisionRule &Rule) {
  Judgement J;
  J.Paired = Before.size() == After.size();
  // Pairs: one look of the sequential rule, with no spread gate (the
  // interval over the pairs carries the noise; a gate refused 89x and 364x
  // gains on a GPU whose ratios spread 40%).
  if (J.Paired)
    return judgeOnce(Before, After, Rule).J;
  J.Speedup = bootstrapSpeedup(Before, After);
  J.Test = mannWhitneyU(Before, After);
  J.Decision = decide(J.Speedup, J.Test, relativeSpread(Before),
                      relativeSpread(After), Rule);
  return J;
}

const char *testName(const Judgement &J) {
  return J.Paired ? "Wilcoxon signed-rank on the pair ratios"
                  : "Mann-Whitney U";
}

} // namespace torchtidy
