//===--- ReferenceVerdictTest.cpp - libtorch-tidy-verify ------------------===//
//
// Unit tests of the verdict on a reference benchmark's samples against the
// check's tolerance, on synthetic samples (the CUDA-only benchmarks, TF32's
// among them, measure nothing on a machine without a GPU): within the
// tolerance the timing gives the verdict and the difference is reported;
// beyond it the verdict is changes-results with the difference and the
// tolerance in the reason. And how the console table, the HTML page and
// the JSON report show it.
//
//===----------------------------------------------------------------------===//

#include "../Reference.h"
#include "../ReferenceVerdict.h"
#include "../Report.h"
#include "../Result.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

using namespace torchtidy;

namespace {

bool contains(const std::string &Haystack, const std::string &Needle) {
  return Haystack.find(Needle) != std::string::npos;
}

/// 40 interleaved pairs, the fixed variant \p Speedup times as fast, with a
/// little spread.
Samples timed(double Speedup) {
  Samples S;
  S.Device = "cuda";
  S.StopReason = "noise";
  S.Workload = "training step of Linear(4096, 4096)";
  for (int I = 0; I < 40; ++I) {
    double After = 100 + (I * 7 % 11) * 0.2;
    S.After.push_back(After);
    S.Before.push_back(After * Speedup * (1 + (I % 3) * 0.001));
  }
  return S;
}

/// A result for the TF32 finding, as the dispatcher hands it over.
VerifyResult tf32Result() {
  VerifyResult R;
  R.Index = 0;
  R.Check = "torch-tf32-disabled";
  R.File = "/src/train.cpp";
  R.Line = 139;
  R.Message = "FP32 matmuls train on CUDA without TF32";
  return R;
}

VerifyReport reportOf(const VerifyResult &R) {
  VerifyReport Report;
  Report.Results.push_back(R);
  return Report;
}

} // namespace

TEST(ReferenceVerdictTest, Tolerance) {
  // The check's tolerance, never below the float noise.
  EXPECT_DOUBLE_EQ(allowedRelDiff(1e-2), 1e-2);
  EXPECT_DOUBLE_EQ(allowedRelDiff(1e-5), FloatNoiseRtol);
  EXPECT_DOUBLE_EQ(allowedRelDiff(0), FloatNoiseRtol);

  EXPECT_TRUE(withinTolerance(0.05, 1.2e-3, 1e-2));
  EXPECT_TRUE(withinTolerance(0.05, 1e-2, 1e-2));
  EXPECT_FALSE(withinTolerance(0.05, 3e-2, 1e-2));
  // Tolerance 0: float noise passes, more does not.
  EXPECT_TRUE(withinTolerance(0, 0, 0));
  EXPECT_TRUE(withinTolerance(2e-3, 5e-6, 0));
  EXPECT_FALSE(withinTolerance(2e-3, 5e-3, 0));
  // Tiny absolute differences pass whatever the scale (values next to 0).
  EXPECT_TRUE(withinTolerance(4e-6, std::numeric_limits<double>::infinity(),
                              0));
  EXPECT_FALSE(withinTolerance(1e-3, std::numeric_limits<double>::infinity(),
                               0));
  // Without a scale the difference is read as relative.
  EXPECT_TRUE(withinTolerance(5e-3, -1, 1e-2));
  EXPECT_FALSE(withinTolerance(5e-3, -1, 0));
  // A NaN is never within.
  double NaN = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(withinTolerance(NaN, NaN, 1e-2));
  EXPECT_FALSE(withinTolerance(1, NaN, 1e-2));
}

TEST(ReferenceVerdictTest, SetDifference) {
  Samples S;
  setDifference(S, 0.02, 4.0);
  EXPECT_DOUBLE_EQ(S.MaxAbsDiff, 0.02);
  EXPECT_DOUBLE_EQ(S.MaxRelDiff, 0.005);
  setDifference(S, 0, 0);
  EXPECT_DOUBLE_EQ(S.MaxRelDiff, 0);
  setDifference(S, 1e-3, 0);
  EXPECT_TRUE(std::isinf(S.MaxRelDiff));
}

TEST(ReferenceVerdictTest, WithinToleranceKeepsTheTimingsVerdict) {
  Samples S = timed(2.0);
  setDifference(S, 6e-3, 5.0); // 1.2e-3 relative: TF32's rounding
  VerifyResult R = tf32Result();
  recordReference(S, 1e-2, R);
  EXPECT_EQ(verdictText(R), "faster");
  EXPECT_EQ(R.Kind, "reference");
  ASSERT_TRUE(R.Speedup);
  EXPECT_NEAR(R.Speedup->Point, 2.0, 0.01);
  EXPECT_EQ(R.Workload, "training step of Linear(4096, 4096)");
  EXPECT_EQ(R.Reason, "");
  ASSERT_TRUE(R.Diff);
  EXPECT_DOUBLE_EQ(*R.Diff->MaxAbs, 6e-3);
  EXPECT_DOUBLE_EQ(*R.Diff->MaxRel, 1.2e-3);
  EXPECT_EQ(R.Diff->Equal, true);
  EXPECT_DOUBLE_EQ(*R.Diff->Tolerance, 1e-2);

  // Reported next to the speedup: console, HTML and JSON.
  std::string Table = renderTable(reportOf(R));
  EXPECT_TRUE(contains(Table, "torch-tf32-disabled  train.cpp:139  faster"))
      << Table;
  EXPECT_TRUE(contains(Table, "2.00x (")) << Table;
  EXPECT_TRUE(contains(Table, "), reference; difference 1.2e-03 relative, "
                              "within the tolerance 1.0e-02\n"))
      << Table;
  std::string Html = renderHtml(reportOf(R));
  EXPECT_TRUE(contains(Html, "outputs within the tolerance: max abs 6.0e-03, "
                             "max rel 1.2e-03, tolerance 1.0e-02 relative"));
  nlohmann::json J = toJson(R);
  EXPECT_EQ(J["verdict"], "faster");
  EXPECT_EQ(J["difference"]["equal"], true);
  EXPECT_DOUBLE_EQ(J["difference"]["max_rel"].get<double>(), 1.2e-3);
  EXPECT_DOUBLE_EQ(J["difference"]["tolerance"].get<double>(), 1e-2);
  VerifyResult Back = resultFromJson(J);
  ASSERT_TRUE(Back.Diff && Back.Diff->Tolerance);
  EXPECT_DOUBLE_EQ(*Back.Diff->Tolerance, 1e-2);
  // The merge into findings and SARIF carries it too.
  EXPECT_DOUBLE_EQ(
      verificationJson(R)["difference"]["tolerance"].get<double>(), 1e-2);

  // The same verdict as the timing alone: same stays same.
  Samples Even = timed(1.0);
  setDifference(Even, 6e-3, 5.0);
  VerifyResult Same = tf32Result();
  recordReference(Even, 1e-2, Same);
  EXPECT_EQ(verdictText(Same), "same");
}

TEST(ReferenceVerdictTest, BeyondToleranceChangesResults) {
  Samples S = timed(2.0);
  setDifference(S, 0.15, 5.0); // 3e-2 relative
  VerifyResult R = tf32Result();
  recordReference(S, 1e-2, R);
  EXPECT_EQ(verdictText(R), "changes-results");
  EXPECT_EQ(R.Reason, "the reference benchmark's results differ by 3.0e-02 "
                      "relative (max abs 1.5e-01), beyond the check's "
                      "tolerance of 0.01");
  // What was measured stays in the report.
  ASSERT_TRUE(R.Speedup);
  EXPECT_NEAR(R.Speedup->Point, 2.0, 0.01);
  ASSERT_TRUE(R.Diff);
  EXPECT_EQ(R.Diff->Equal, false);
  EXPECT_DOUBLE_EQ(*R.Diff->Tolerance, 1e-2);

  std::string Table = renderTable(reportOf(R));
  EXPECT_TRUE(contains(Table, "changes-results")) << Table;
  EXPECT_TRUE(contains(Table, "), reference; results differ by 3.0e-02 "
                              "relative, beyond the tolerance 1.0e-02\n"))
      << Table;
  EXPECT_TRUE(contains(Table, "1 finding: 1 changes-results")) << Table;
  std::string Html = renderHtml(reportOf(R));
  EXPECT_TRUE(contains(Html, "outputs beyond the tolerance: max abs 1.5e-01, "
                             "max rel 3.0e-02, tolerance 1.0e-02 relative"));
  EXPECT_TRUE(contains(Html, "beyond the check&#39;s tolerance of 0.01"));
  nlohmann::json J = toJson(R);
  EXPECT_EQ(J["verdict"], "changes-results");
  EXPECT_EQ(J["difference"]["equal"], false);
}

TEST(ReferenceVerdictTest, ToleranceZeroAllowsOnlyFloatNoise) {
  // A fix that must leave the values equal (torch-missing-no-grad,
  // torch-zero-grad, torch-dataloader-workers): float noise passes.
  Samples Noise = timed(1.5);
  setDifference(Noise, 2e-6, 1.0);
  VerifyResult Kept;
  recordReference(Noise, 0, Kept);
  EXPECT_EQ(verdictText(Kept), "faster");
  ASSERT_TRUE(Kept.Diff);
  EXPECT_DOUBLE_EQ(*Kept.Diff->Tolerance, FloatNoiseRtol);

  Samples Off = timed(1.5);
  setDifference(Off, 0.25, 10.0); // 2.5e-2 relative
  VerifyResult Changed;
  recordReference(Off, 0, Changed);
  EXPECT_EQ(verdictText(Changed), "changes-results");
  EXPECT_EQ(Changed.Reason,
            "the reference benchmark's results differ by 2.5e-02 relative "
            "(max abs 2.5e-01), beyond float noise (0.0001 relative; the "
            "check allows no difference)");

  // torch-unfused-pointwise's 1e-5 is under the float noise.
  VerifyResult Pointwise;
  recordReference(Off, 1e-5, Pointwise);
  EXPECT_TRUE(contains(Pointwise.Reason, "the check's tolerance is 1e-05"));

  // A NaN difference changes results.
  Samples Nan = timed(1.5);
  setDifference(Nan, std::numeric_limits<double>::quiet_NaN(), 1.0);
  VerifyResult NanResult;
  recordReference(Nan, 1e-2, NanResult);
  EXPECT_EQ(verdictText(NanResult), "changes-results");
}

TEST(ReferenceVerdictTest, NothingComparedOrMeasured) {
  // A benchmark that compares nothing (cuDNN's autotuner): the timing alone.
  VerifyResult Plain;
  recordReference(timed(2.0), 0, Plain);
  EXPECT_EQ(verdictText(Plain), "faster");
  EXPECT_FALSE(Plain.Diff);
  EXPECT_FALSE(contains(renderTable(reportOf(Plain)), "tolerance"));

  // The CUDA-only benchmarks on a machine without CUDA.
  Samples NoCuda;
  NoCuda.Device = "cpu";
  NoCuda.StopReason = "no CUDA device";
  VerifyResult NotApplicable;
  recordReference(NoCuda, 1e-2, NotApplicable);
  EXPECT_EQ(verdictText(NotApplicable), "not-applicable");
  EXPECT_EQ(NotApplicable.Reason, "reference benchmark: no CUDA device");
  EXPECT_FALSE(NotApplicable.Speedup);

  Samples Invalid;
  Invalid.StopReason = "no valid network for these sizes";
  setDifference(Invalid, 1, 1); // never read without samples
  VerifyResult NotVerifiable;
  recordReference(Invalid, 0, NotVerifiable);
  EXPECT_EQ(verdictText(NotVerifiable), "not-verifiable");
  EXPECT_FALSE(NotVerifiable.Diff);
}

namespace {

/// \p Pairs interleaved pairs, the fix \p Speedup times as fast, each
/// ratio off by lognormal noise of \p Sigma (log scale), from \p Seed.
Samples noisy(double Speedup, double Sigma, int Pairs, uint64_t Seed) {
  std::mt19937_64 Gen(Seed);
  std::normal_distribution<double> Noise(0, Sigma);
  Samples S;
  S.Device = "cuda";
  S.StopReason = "time";
  for (int I = 0; I < Pairs; ++I) {
    double After = 100 * std::exp(Noise(Gen));
    S.After.push_back(After);
    S.Before.push_back(100 * Speedup * std::exp(Noise(Gen)));
  }
  return S;
}

} // namespace

TEST(ReferenceVerdictTest, LargeGainsWithNoisyRatiosAreDecided) {
  // The GPU's anomaly-mode benchmark: ratios spread 40%, the interval far
  // above 1.10. A spread gate called it ambiguous.
  Samples S = noisy(90, 0.35, 30, 7);
  VerifyResult R = tf32Result();
  recordReference(S, 0, R);
  ASSERT_TRUE(R.RatioSpread);
  EXPECT_GT(*R.RatioSpread, 0.25);
  EXPECT_EQ(verdictText(R), "faster") << R.Reason;
  EXPECT_EQ(R.Reason, "");
}

TEST(ReferenceVerdictTest, AmbiguousSaysWhy) {
  // 1.12x at 8% noise: the interval reaches across 1.10.
  Samples S = noisy(1.12, 0.08, 30, 11);
  VerifyResult R = tf32Result();
  recordReference(S, 0, R);
  EXPECT_EQ(verdictText(R), "ambiguous");
  EXPECT_TRUE(contains(R.Reason, "(IQR/median of the pair ratios); after 30 "
                                 "rounds the interval spans "))
      << R.Reason;
  EXPECT_TRUE(contains(R.Reason, "rounds would decide it") ||
              contains(R.Reason, "no number of rounds decides it"))
      << R.Reason;
  EXPECT_TRUE(contains(renderTable(reportOf(R)), "ambiguous"));
}

TEST(ReferenceVerdictTest, NoEffectIsRarelyCalledFasterOrSlower) {
  // Without the spread gate the interval and the rank test alone keep the
  // error rate: on samples with no effect, faster or slower at most at the
  // test's level (1%), here with a margin for 1000 draws.
  int Wrong = 0;
  for (int Run = 0; Run < 1000; ++Run) {
    VerifyResult R = tf32Result();
    recordReference(noisy(1.0, Run % 2 ? 0.05 : 0.4, 30, 1000 + Run), 0, R);
    if (R.Verdict == Outcome::Faster || R.Verdict == Outcome::Slower)
      ++Wrong;
  }
  EXPECT_LE(Wrong, 15);
}
