//===--- MeasureLoop.h - libtorch-tidy-verify -------------------*- C++ -*-===//
//
// The one measurement loop of the verifier (shared/reference/measurement.md):
// the reference benchmarks (Reference.cpp) and the snippet harnesses
// (HarnessSupport.h, compiled into each harness) time their two variants
// here, so both warm up, sample, order and stop the same way.
//
// An untimed warm-up of both variants (two rounds at least, then until
// 100 ms have gone by, at most 1000 rounds); runs per sample given or grown
// until a sample takes about 10 ms; interleaved rounds in ABBA order; the
// StopRule of Stats.h (or a fixed number of rounds). A sample is host wall
// time (steady_clock) with the device synchronized at both ends, per step;
// where the LibTorch build has CUDA events and a CUDA device is there, the
// event time of the same runs is kept beside it.
//
// Header-only, with LibTorch and the standard library alone: harnesses are
// built from it at run time.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_MEASURE_LOOP_H
#define LIBTORCH_TIDY_VERIFY_MEASURE_LOOP_H

#include "Stats.h"

#include <torch/torch.h>
// CUDA event time where the LibTorch build and the CUDA headers allow it.
#if __has_include(<ATen/cuda/CUDAEvent.h>) && __has_include(<cuda_runtime_api.h>)
#include <ATen/cuda/CUDAEvent.h>
#define LIBTORCH_TIDY_CUDA_EVENTS 1
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

using Step = std::function<void()>;

struct LoopOptions {
  StopRule Rule;
  /// Samples of each variant to take whatever the rule says; 0: the rule
  /// decides when to stop.
  int FixedRounds = 0;
  /// Runs of a variant per sample; 0: grown until a sample takes ~10 ms.
  long RunsPerSample = 0;
  /// Steps one run does: samples are reported per step.
  int StepsPerRun = 1;
};

struct LoopResult {
  /// Host microseconds per step, the device synchronized at both ends.
  std::vector<double> Before, After;
  /// CUDA event microseconds per step; empty without CUDA events.
  std::vector<double> GpuBefore, GpuAfter;
  long RunsPerSample = 1;
  double Seconds = 0;     ///< timed work
  std::string StopReason; ///< "rounds" or the StopRule's reason
};

inline void synchronizeDevice() {
  if (torch::cuda::is_available())
    torch::cuda::synchronize();
}

inline double steadySeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// One sample: host and (where there are events) device time of Runs runs.
struct SampleTime {
  double WallSeconds = 0;
  std::optional<double> GpuMilliseconds;
};

inline SampleTime timeRuns(const Step &Run, long Runs) {
  SampleTime T;
  synchronizeDevice();
#ifdef LIBTORCH_TIDY_CUDA_EVENTS
  bool Events = torch::cuda::is_available();
  at::cuda::CUDAEvent Start(cudaEventDefault), Stop(cudaEventDefault);
  if (Events)
    Start.record();
#endif
  double T0 = steadySeconds();
  for (long I = 0; I < Runs; ++I)
    Run();
#ifdef LIBTORCH_TIDY_CUDA_EVENTS
  if (Events)
    Stop.record();
#endif
  synchronizeDevice();
  T.WallSeconds = steadySeconds() - T0;
#ifdef LIBTORCH_TIDY_CUDA_EVENTS
  if (Events)
    T.GpuMilliseconds = Start.elapsed_time(Stop);
#endif
  return T;
}

/// Untimed: first calls, allocator growth and library autotuning are
/// one-time costs, not the steady state being compared.
inline void warmUp(const Step &Before, const Step &After) {
  double Start = steadySeconds();
  for (int Round = 0;
       Round < 2 || (steadySeconds() - Start < 0.1 && Round < 1000); ++Round) {
    Before();
    After();
  }
  synchronizeDevice();
}

/// Runs per sample for a sample of about 10 ms.
inline long calibrateRuns(const Step &Before, const Step &After) {
  double PerRunUs = std::min(timeRuns(Before, 1).WallSeconds,
                             timeRuns(After, 1).WallSeconds) *
                    1e6;
  return std::max(
      1L, static_cast<long>(std::ceil(10000.0 / std::max(PerRunUs, 1e-3))));
}

/// Takes one sample of \p Run into \p Wall (and \p Gpu).
inline void takeSample(const Step &Run, LoopResult &R,
                       std::vector<double> &Wall, std::vector<double> &Gpu,
                       int StepsPerRun) {
  SampleTime T = timeRuns(Run, R.RunsPerSample);
  double Steps = static_cast<double>(R.RunsPerSample) * StepsPerRun;
  R.Seconds += T.WallSeconds;
  Wall.push_back(T.WallSeconds * 1e6 / Steps);
  if (T.GpuMilliseconds)
    Gpu.push_back(*T.GpuMilliseconds * 1e3 / Steps);
}

/// Whether to stop before round \p Round, with the reason.
inline std::optional<std::string> loopStop(const LoopResult &R,
                                           const LoopOptions &O, int Round) {
  if (O.FixedRounds > 0)
    return Round >= O.FixedRounds ? std::optional<std::string>("rounds")
                                  : std::nullopt;
  return stopReason(R.Before, R.After, R.Seconds, O.Rule);
}

/// Times \p Before and \p After interleaved, the one way the verifier
/// measures.
inline LoopResult measureInterleaved(const Step &Before, const Step &After,
                                     const LoopOptions &O) {
  LoopResult R;
  warmUp(Before, After);
  R.RunsPerSample =
      O.RunsPerSample > 0 ? O.RunsPerSample : calibrateRuns(Before, After);
  int Steps = std::max(O.StepsPerRun, 1);
  for (int Round = 0;; ++Round) {
    if (std::optional<std::string> Why = loopStop(R, O, Round)) {
      R.StopReason = *Why;
      break;
    }
    // ABBA: which variant goes first alternates, to cancel drift.
    if (Round % 2 == 0) {
      takeSample(Before, R, R.Before, R.GpuBefore, Steps);
      takeSample(After, R, R.After, R.GpuAfter, Steps);
    } else {
      takeSample(After, R, R.After, R.GpuAfter, Steps);
      takeSample(Before, R, R.Before, R.GpuBefore, Steps);
    }
  }
  return R;
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_MEASURE_LOOP_H
