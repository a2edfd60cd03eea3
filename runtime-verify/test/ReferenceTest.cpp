//===--- ReferenceTest.cpp - libtorch-tidy-verify -------------------------===//
//
// The reference benchmarks that run on a CPU, each once with few rounds:
// what their two variants compute agrees within the check's tolerance (the
// table's TOLERANCE), so none of them calls a fix changes-results for float
// noise; and the CUDA-only ones measure nothing without a GPU.
//
//===----------------------------------------------------------------------===//

#include "CheckTable.h"
#include "Reference.h"
#include "ReferenceVerdict.h"

#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <string>

namespace torchtidy {
namespace {

constexpr int Rounds = 2;

double toleranceOf(std::string_view Check) {
  const CheckInfo *Info = findCheck(Check);
  EXPECT_TRUE(Info) << Check;
  return Info ? Info->Tolerance : 0;
}

/// \p S compared its variants within \p Check's tolerance.
void expectWithin(const Samples &S, std::string_view Check) {
  EXPECT_EQ(S.Before.size(), static_cast<size_t>(Rounds)) << S.StopReason;
  EXPECT_GE(S.MaxAbsDiff, 0) << Check;
  EXPECT_GE(S.MaxRelDiff, 0) << Check;
  EXPECT_TRUE(withinTolerance(S.MaxAbsDiff, S.MaxRelDiff, toleranceOf(Check)))
      << Check << ": max abs " << S.MaxAbsDiff << ", max rel "
      << S.MaxRelDiff;
}

TEST(ReferenceTest, CpuBenchmarksAgreeWithinTolerance) {
  StopRule Rule;
  ZeroGradParams Zero;
  Zero.Width = 64;
  expectWithin(measureZeroGrad(Zero, Rounds, Rule), "torch-zero-grad");
  ConvBiasParams Conv;
  Conv.Batch = 4;
  Conv.Spatial = 8;
  expectWithin(measureConvBias(Conv, Rounds, Rule),
               "torch-conv-bias-before-batchnorm");
  NoGradEvalParams Eval;
  Eval.Batch = 2;
  Eval.Steps = 1;
  expectWithin(measureNoGradEval(Eval, Rounds, Rule), "torch-missing-no-grad");
  LoaderWorkersParams Loader;
  Loader.Samples = 16;
  Loader.Batch = 4;
  expectWithin(measureLoaderWorkers(Loader, Rounds, Rule),
               "torch-dataloader-workers");
}

TEST(ReferenceTest, EveryFusedOpWithinTolerance) {
  for (const char *Op : {"silu", "gelu", "gelu-tanh", "softplus", "softmax",
                         "log_softmax", "log_sigmoid", "rsqrt", "log1p",
                         "expm1", "hypot", "mish", "linalg_vector_norm",
                         "lerp", "addcmul", "addcdiv"}) {
    UnfusedPointwiseParams P;
    P.Fused = Op;
    P.Shape = {16, 16, 32, 32};
    P.Calls = 1;
    expectWithin(measureUnfusedPointwise(P, Rounds, StopRule()),
                 "torch-unfused-pointwise");
  }
}

TEST(ReferenceTest, CudaOnlyBenchmarksMeasureNothingWithoutCuda) {
  if (torch::cuda::is_available())
    GTEST_SKIP() << "a CUDA device is present";
  Samples Tf32 = measureTf32Matmul(Tf32MatmulParams(), Rounds, StopRule());
  EXPECT_TRUE(Tf32.Before.empty());
  EXPECT_EQ(Tf32.StopReason, "no CUDA device");
  VerifyResult R;
  recordReference(Tf32, toleranceOf("torch-tf32-disabled"), R);
  EXPECT_EQ(verdictText(R), "not-applicable");
}

} // namespace
} // namespace torchtidy
