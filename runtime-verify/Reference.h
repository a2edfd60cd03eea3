//===--- Reference.h - libtorch-tidy-verify ---------------------*- C++ -*-===//
//
// The checks' reference benchmarks: a fixed workload run with the flagged
// pattern and with its fix, interleaved, for findings whose own code cannot
// be rebuilt. Results from here are labeled `reference`, not `snippet`.
//
// Every benchmark is timed by the verifier's one measurement loop
// (MeasureLoop.h, which the snippet harnesses use too): an untimed warm-up,
// then the two variants alternated (which goes first alternates too). With
// FixedRounds > 0 it takes exactly that many samples of each; otherwise it
// samples until the StopRule says stop.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_REFERENCE_H
#define LIBTORCH_TIDY_VERIFY_REFERENCE_H

#include "Stats.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace torchtidy {

struct Samples {
  std::vector<double> Before, After; ///< microseconds per step
  /// CUDA event microseconds per step of the same samples; empty without
  /// CUDA events (MeasureLoop.h).
  std::vector<double> GpuBefore, GpuAfter;
  std::string Device;     ///< "cpu" or "cuda"
  double Seconds = 0;     ///< timed work
  std::string StopReason; ///< "rounds", a StopRule reason, or why none ran
  std::string Workload;   ///< one line: what one step does, and its sizes
  /// Largest absolute difference between what the two variants computed
  /// (see each benchmark); negative when not compared.
  double MaxAbsDiff = -1;
  /// MaxAbsDiff relative to the largest magnitude of what the flagged
  /// variant computed: what the check's TOLERANCE is read against
  /// (ReferenceVerdict.h); negative when not compared.
  double MaxRelDiff = -1;
};

/// Records \p MaxAbs, the largest absolute difference between what the two
/// variants computed, and relative to \p Scale, the largest magnitude the
/// flagged variant computed (infinite for a difference from all zeros).
inline void setDifference(Samples &S, double MaxAbs, double Scale) {
  S.MaxAbsDiff = MaxAbs;
  if (Scale > 0)
    S.MaxRelDiff = MaxAbs / Scale;
  else
    S.MaxRelDiff = MaxAbs == 0 ? 0 : std::numeric_limits<double>::infinity();
}

/// One training step of a small convolutional network with anomaly mode on
/// (before) and off (after).
Samples measureAnomalyMode(int Batch, int StepsPerSample, int FixedRounds,
                           const StopRule &Rule);

struct ZeroGradParams {
  int Width = 1024, Layers = 6, Batch = 2;
  int StepsPerSample = 3;
};

/// One SGD training step of an MLP with the gradients zero-filled (before)
/// and reset to undefined (after), on two copies of the same model.
/// MaxAbsDiff compares their parameters after the run: the updates must be
/// the same.
Samples measureZeroGrad(const ZeroGradParams &P, int FixedRounds,
                        const StopRule &Rule);
inline Samples measureZeroGrad(int FixedRounds, const StopRule &Rule) {
  return measureZeroGrad(ZeroGradParams(), FixedRounds, Rule);
}

struct ConvBiasParams {
  int Dim = 2; ///< 1, 2 or 3: Conv1d/2d/3d with BatchNorm1d/2d/3d
  int64_t InChannels = 16, OutChannels = 32, Kernel = 3, Batch = 16,
          Spatial = 32;
  int StepsPerSample = 1;
};

/// One SGD training step of conv -> batchnorm -> ReLU with the conv's bias
/// (before) and without it (after). MaxAbsDiff compares one train-mode
/// forward of both with the same weights: BatchNorm cancels the bias, so it
/// must be tiny. Parameters that cannot make a valid network yield no
/// samples, with the reason in StopReason.
Samples measureConvBias(const ConvBiasParams &P, int FixedRounds,
                        const StopRule &Rule);

// CUDA only: without a CUDA device these return no samples, Device "cpu" and
// StopReason "no CUDA device". Sizes that make no valid workload yield no
// samples either, with the reason in StopReason.

struct HostSyncParams {
  int Steps = 50; ///< training steps per sample
  int64_t Batch = 64, Features = 256;
};

/// Steps small MLP training steps on the GPU reading the loss with
/// `item<float>()` every step (before) against summing `loss.detach()` on
/// the device and reading it once after the loop (after).
Samples measureHostSyncInLoop(const HostSyncParams &P, int FixedRounds,
                              const StopRule &Rule);

struct BlockingCopyParams {
  std::vector<int64_t> BatchShape = {32, 3, 224, 224};
  int Steps = 8; ///< batches per sample
};

/// Per step, copy a host batch to the GPU and compute on it: a pageable
/// batch with `.to(device)` (before) against a batch pinned beforehand, as a
/// loader with pinned memory would hand it over, copied with
/// `.to(device, /*non_blocking=*/true)` (after).
Samples measureBlockingCopy(const BlockingCopyParams &P, int FixedRounds,
                            const StopRule &Rule);

struct HostTensorParams {
  std::vector<int64_t> Shape = {1024, 1024};
  int Steps = 10; ///< tensors made per sample
};

/// `torch::randn(Shape).to(device)` (before) against
/// `torch::randn(Shape, torch::device(device))` (after).
Samples measureHostTensorToDevice(const HostTensorParams &P, int FixedRounds,
                                  const StopRule &Rule);

struct UnfusedPointwiseParams {
  /// The fused op of the fix: silu, gelu, gelu-tanh, softplus, softmax,
  /// log_softmax, log_sigmoid, rsqrt, log1p, expm1, hypot, mish,
  /// linalg_vector_norm, lerp, addcmul or addcdiv.
  std::string Fused = "silu";
  std::vector<int64_t> Shape = {64, 16, 32, 32};
  int Calls = 5; ///< formula evaluations per sample
};

/// The formula torch-unfused-pointwise reports for that fused op, written
/// out (before), against the fused op (after), on the device snippets run
/// on (CUDA when present, else the CPU). MaxAbsDiff compares their results.
/// An unknown op yields no samples, with the reason in StopReason.
Samples measureUnfusedPointwise(const UnfusedPointwiseParams &P,
                                int FixedRounds, const StopRule &Rule);

struct NoGradEvalParams {
  int64_t Batch = 64;
  int Steps = 4; ///< evaluation forward passes per sample
};

/// An evaluation forward pass of a small convolutional network in eval()
/// mode with autograd on (before) and under a NoGradGuard (after).
/// MaxAbsDiff compares the two outputs: they must be equal.
Samples measureNoGradEval(const NoGradEvalParams &P, int FixedRounds,
                          const StopRule &Rule);

struct LoaderWorkersParams {
  int64_t Samples = 256, Batch = 32;
  size_t Workers = 2;
};

/// One epoch over a data set whose get() parses each sample from text into
/// a 3x32x32 tensor, feeding a linear layer's training step: a loader with
/// 0 workers (before) against P.Workers workers (after). MaxAbsDiff compares
/// the sums of every batch the two epochs saw.
Samples measureLoaderWorkers(const LoaderWorkersParams &P, int FixedRounds,
                             const StopRule &Rule);

struct CudnnBenchmarkParams {
  int64_t Batch = 32, Channels = 64, Spatial = 64;
  int Steps = 10; ///< training steps per sample
};

/// CUDA only: training steps of Conv2d(C, C, 3) -> ReLU -> Conv2d(C, C, 3)
/// with cuDNN's benchmark mode off (before) and on (after), after an untimed
/// step of each that lets the autotuner pick.
Samples measureCudnnBenchmark(const CudnnBenchmarkParams &P, int FixedRounds,
                              const StopRule &Rule);

struct Tf32MatmulParams {
  int64_t Batch = 256, Features = 4096;
  int Steps = 10; ///< training steps per sample
};

/// CUDA only: training steps of Linear(F, F) -> ReLU -> Linear(F, F) with
/// the float32 matmul precision "highest" (before) and "high", TF32 (after).
/// MaxAbsDiff and MaxRelDiff compare one forward pass's output between the
/// two precisions (TF32 changes numbers by design: the check declares its
/// tolerance).
Samples measureTf32Matmul(const Tf32MatmulParams &P, int FixedRounds,
                          const StopRule &Rule);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_REFERENCE_H
