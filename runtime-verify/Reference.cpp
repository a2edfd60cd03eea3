//===--- Reference.cpp - libtorch-tidy-verify -----------------------------===//

#include "Reference.h"
#include "MeasureLoop.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

namespace torchtidy {

namespace {

torch::Device defaultDevice() {
  return torch::Device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
}

/// Fills S's samples, S.Seconds and S.StopReason from the verifier's one
/// measurement loop (MeasureLoop.h). A sample times \p Calls calls of one
/// variant and is recorded per step, a call running \p StepsPerCall steps.
void interleave(Samples &S, int Calls, int StepsPerCall, int FixedRounds,
                const StopRule &Rule, const Step &Before, const Step &After) {
  LoopOptions Options;
  Options.Rule = Rule;
  Options.FixedRounds = FixedRounds;
  Options.RunsPerSample = Calls;
  Options.StepsPerRun = StepsPerCall;
  LoopResult R = measureInterleaved(Before, After, Options);
  S.Before = std::move(R.Before);
  S.After = std::move(R.After);
  S.GpuBefore = std::move(R.GpuBefore);
  S.GpuAfter = std::move(R.GpuAfter);
  S.Seconds = R.Seconds;
  S.StopReason = std::move(R.StopReason);
}

Samples startSamples(const torch::Device &Device, std::string Workload) {
  Samples S;
  S.Device = Device.is_cuda() ? "cuda" : "cpu";
  S.Workload = std::move(Workload);
  return S;
}

/// The CUDA-only benchmarks' result without a CUDA device.
Samples noCuda(std::string Workload) {
  Samples S = startSamples(torch::kCPU, std::move(Workload));
  S.StopReason = "no CUDA device";
  return S;
}

std::string dims(const std::vector<int64_t> &Sizes) {
  std::string Text;
  for (int64_t Size : Sizes)
    Text += (Text.empty() ? "" : "x") + std::to_string(Size);
  return Text.empty() ? "scalar" : Text;
}

bool positive(const std::vector<int64_t> &Sizes) {
  return std::all_of(Sizes.begin(), Sizes.end(),
                     [](int64_t Size) { return Size > 0; });
}

/// The largest difference between \p A and \p B, what the flagged and the
/// fixed variant computed, into S (setDifference).
void compare(Samples &S, const std::vector<torch::Tensor> &A,
             const std::vector<torch::Tensor> &B) {
  double Max = 0, Scale = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    Max = std::max(Max, (A[I] - B[I]).abs().max().item<double>());
    Scale = std::max(Scale, A[I].abs().max().item<double>());
  }
  setDifference(S, Max, Scale);
}

struct NetImpl : torch::nn::Module {
  NetImpl()
      : Conv1(register_module(
            "conv1",
            torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).padding(1)))),
        Conv2(register_module(
            "conv2",
            torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)))),
        Fc(register_module("fc", torch::nn::Linear(32 * 8 * 8, 10))) {}
  torch::Tensor forward(torch::Tensor X) {
    X = torch::max_pool2d(torch::relu(Conv1(X)), 2);
    X = torch::max_pool2d(torch::relu(Conv2(X)), 2);
    return torch::log_softmax(Fc(X.view({X.size(0), -1})), 1);
  }
  torch::nn::Conv2d Conv1, Conv2;
  torch::nn::Linear Fc;
};
TORCH_MODULE(Net);

/// What the flagged `optimizer.zero_grad()` does on LibTorch 1.x.
void zeroFillGrads(torch::optim::Optimizer &Opt) {
#if TORCH_VERSION_MAJOR >= 2
  // zero_grad() resets here; fill by hand, as zero_grad(false) would.
  for (auto &Group : Opt.param_groups())
    for (auto &Param : Group.params())
      if (Param.grad().defined())
        Param.mutable_grad().zero_();
#else
  Opt.zero_grad();
#endif
}

/// The fix-it's grad reset.
void resetGrads(torch::optim::Optimizer &Opt) {
#if TORCH_VERSION_MAJOR >= 2
  Opt.zero_grad(); // set_to_none = true by default
#else
  for (auto &Group : Opt.param_groups())
    for (auto &Param : Group.params())
      Param.mutable_grad().reset();
#endif
}

template <size_t D, typename Conv, typename Norm>
torch::nn::Sequential convNormRelu(const ConvBiasParams &P, bool Bias) {
  return torch::nn::Sequential(
      Conv(torch::nn::ConvOptions<D>(P.InChannels, P.OutChannels, P.Kernel)
               .bias(Bias)),
      Norm(torch::nn::BatchNormOptions(P.OutChannels)), torch::nn::ReLU());
}

torch::nn::Sequential makeConvNormRelu(const ConvBiasParams &P, bool Bias) {
  // The same seed for both variants: the same weights, the same input.
  torch::manual_seed(0);
  if (P.Dim == 1)
    return convNormRelu<1, torch::nn::Conv1d, torch::nn::BatchNorm1d>(P, Bias);
  if (P.Dim == 2)
    return convNormRelu<2, torch::nn::Conv2d, torch::nn::BatchNorm2d>(P, Bias);
  return convNormRelu<3, torch::nn::Conv3d, torch::nn::BatchNorm3d>(P, Bias);
}

} // namespace

Samples measureAnomalyMode(int Batch, int StepsPerSample, int FixedRounds,
                           const StopRule &Rule) {
  torch::Device Device = defaultDevice();
  Samples S = startSamples(
      Device, "training step of Conv2d(3, 16, 3) -> Conv2d(16, 32, 3) -> "
              "Linear(2048, 10), batch " +
                  std::to_string(Batch) + " of 3x32x32");
  torch::manual_seed(0);
  Net Model;
  Model->to(Device);
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(1e-3));
  auto Input = torch::randn({Batch, 3, 32, 32}, torch::device(Device));
  auto Target =
      torch::randint(10, {Batch}, torch::device(Device).dtype(torch::kLong));
  auto Step = [&](bool Anomaly) {
    torch::autograd::AnomalyMode::set_enabled(Anomaly);
    for (auto &P : Model->parameters())
      P.mutable_grad().reset();
    auto Loss = torch::nll_loss(Model->forward(Input), Target);
    Loss.backward();
    Opt.step();
  };

  bool Was = torch::autograd::AnomalyMode::is_enabled();
  interleave(
      S, StepsPerSample, 1, FixedRounds, Rule, [&] { Step(true); },
      [&] { Step(false); });
  torch::autograd::AnomalyMode::set_enabled(Was);
  return S;
}

Samples measureZeroGrad(const ZeroGradParams &P, int FixedRounds,
                        const StopRule &Rule) {
  torch::Device Device = defaultDevice();
  std::string Linear = "Linear(" + std::to_string(P.Width) + ", " +
                       std::to_string(P.Width) + ")";
  Samples S = startSamples(
      Device, "SGD training step of " + std::to_string(P.Layers) + " x (" +
                  Linear + " -> ReLU), batch " + std::to_string(P.Batch));
  auto MakeModel = [&] {
    torch::nn::Sequential Model;
    for (int I = 0; I < P.Layers; ++I) {
      Model->push_back(torch::nn::Linear(P.Width, P.Width));
      Model->push_back(torch::nn::ReLU());
    }
    return Model;
  };

  // Two copies of one model, one per variant, so their parameters can be
  // compared after the run.
  torch::manual_seed(0);
  auto ModelA = MakeModel(), ModelB = MakeModel();
  {
    torch::NoGradGuard NoGrad;
    auto PA = ModelA->parameters(), PB = ModelB->parameters();
    for (size_t I = 0; I < PA.size(); ++I)
      PB[I].copy_(PA[I]);
  }
  ModelA->to(Device);
  ModelB->to(Device);
  torch::optim::SGD OptA(ModelA->parameters(), torch::optim::SGDOptions(1e-3));
  torch::optim::SGD OptB(ModelB->parameters(), torch::optim::SGDOptions(1e-3));
  auto Input = torch::randn({P.Batch, P.Width}, torch::device(Device));
  auto Target = torch::randn({P.Batch, P.Width}, torch::device(Device));
  auto Step = [&](torch::nn::Sequential &Model, torch::optim::SGD &Opt) {
    auto Loss = torch::mse_loss(Model->forward(Input), Target);
    Loss.backward();
    Opt.step();
  };

  interleave(
      S, P.StepsPerSample, 1, FixedRounds, Rule,
      [&] {
        zeroFillGrads(OptA);
        Step(ModelA, OptA);
      },
      [&] {
        resetGrads(OptB);
        Step(ModelB, OptB);
      });
  // Both ran the same steps: adding into zeros or into nothing must give the
  // same updates.
  compare(S, ModelA->parameters(), ModelB->parameters());
  return S;
}

Samples measureConvBias(const ConvBiasParams &P, int FixedRounds,
                        const StopRule &Rule) {
  torch::Device Device = defaultDevice();
  std::string D = std::to_string(P.Dim) + "d";
  std::vector<int64_t> Shape = {P.Batch, P.InChannels};
  Shape.insert(Shape.end(), std::max(P.Dim, 0), P.Spatial);
  Samples S = startSamples(
      Device, "training step of Conv" + D + "(" + std::to_string(P.InChannels) +
                  ", " + std::to_string(P.OutChannels) + ", " +
                  std::to_string(P.Kernel) + ") -> BatchNorm" + D +
                  " -> ReLU, batch " + std::to_string(P.Batch) + " of " +
                  dims(std::vector<int64_t>(Shape.begin() + 1, Shape.end())));
  if (P.Dim < 1 || P.Dim > 3 || !positive(Shape) || P.OutChannels <= 0 ||
      P.Kernel <= 0 || P.Spatial < P.Kernel || P.StepsPerSample <= 0) {
    S.StopReason = "no valid network for these sizes";
    return S;
  }

  auto Biased = makeConvNormRelu(P, /*Bias=*/true);
  auto Unbiased = makeConvNormRelu(P, /*Bias=*/false);
  {
    // Same weights by name; only the conv bias has no counterpart.
    torch::NoGradGuard NoGrad;
    auto From = Biased->named_parameters();
    for (auto &To : Unbiased->named_parameters())
      To.value().copy_(From[To.key()]);
  }
  Biased->to(Device);
  Unbiased->to(Device);
  auto Input = torch::randn(Shape, torch::device(Device));

  // Check the outputs match before timing: in train mode BatchNorm subtracts
  // the batch mean, which takes the per-channel bias with it.
  torch::Tensor Out = Biased->forward(Input);
  compare(S, {Out.detach()}, {Unbiased->forward(Input).detach()});

  auto Target = torch::randn_like(Out);
  torch::optim::SGD OptBiased(Biased->parameters(),
                              torch::optim::SGDOptions(1e-3));
  torch::optim::SGD OptUnbiased(Unbiased->parameters(),
                                torch::optim::SGDOptions(1e-3));
  auto Step = [&](torch::nn::Sequential &Model, torch::optim::SGD &Opt) {
    resetGrads(Opt);
    auto Loss = torch::mse_loss(Model->forward(Input), Target);
    Loss.backward();
    Opt.step();
  };
  interleave(
      S, P.StepsPerSample, 1, FixedRounds, Rule,
      [&] { Step(Biased, OptBiased); }, [&] { Step(Unbiased, OptUnbiased); });
  return S;
}

Samples measureHostSyncInLoop(const HostSyncParams &P, int FixedRounds,
                              const StopRule &Rule) {
  std::string F = std::to_string(P.Features);
  std::string Workload = std::to_string(P.Steps) +
                         " SGD training steps of Linear(" + F + ", " + F +
                         ") -> ReLU -> Linear(" + F + ", 1), batch " +
                         std::to_string(P.Batch) + ", loss read on the host";
  if (!torch::cuda::is_available())
    return noCuda(Workload);
  torch::Device Device(torch::kCUDA);
  Samples S = startSamples(Device, Workload);
  if (P.Steps <= 0 || P.Batch <= 0 || P.Features <= 0) {
    S.StopReason = "no valid network for these sizes";
    return S;
  }

  torch::manual_seed(0);
  torch::nn::Sequential Model(torch::nn::Linear(P.Features, P.Features),
                              torch::nn::ReLU(),
                              torch::nn::Linear(P.Features, 1));
  Model->to(Device);
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(1e-3));
  auto Input = torch::randn({P.Batch, P.Features}, torch::device(Device));
  auto Target = torch::randn({P.Batch, 1}, torch::device(Device));
  volatile float Read = 0; // the host uses the loss in both variants
  auto Train = [&](bool ReadEveryStep) {
    auto Sum = torch::zeros({}, torch::device(Device));
    for (int I = 0; I < P.Steps; ++I) {
      resetGrads(Opt);
      auto Loss = torch::mse_loss(Model->forward(Input), Target);
      Loss.backward();
      Opt.step();
      if (ReadEveryStep)
        Read = Read + Loss.item<float>();
      else
        Sum += Loss.detach();
    }
    if (!ReadEveryStep)
      Read = Read + Sum.item<float>();
  };
  interleave(
      S, 1, P.Steps, FixedRounds, Rule, [&] { Train(true); },
      [&] { Train(false); });
  return S;
}

Samples measureBlockingCopy(const BlockingCopyParams &P, int FixedRounds,
                            const StopRule &Rule) {
  int64_t Features = 1;
  for (size_t I = 1; I < P.BatchShape.size(); ++I)
    Features *= P.BatchShape[I];
  const int64_t Outputs = 64;
  std::string Workload = "host-to-device copy of a " + dims(P.BatchShape) +
                         " float batch, then its matmul with a " +
                         std::to_string(Features) + "x" +
                         std::to_string(Outputs) + " weight";
  if (!torch::cuda::is_available())
    return noCuda(Workload);
  torch::Device Device(torch::kCUDA);
  Samples S = startSamples(Device, Workload);
  if (P.BatchShape.empty() || !positive(P.BatchShape) || P.Steps <= 0) {
    S.StopReason = "no valid batch for these sizes";
    return S;
  }

  torch::manual_seed(0);
  auto Pageable = torch::randn(P.BatchShape);
  // Pinned once, outside the timing, as a loader with pinned memory hands
  // its batches over.
  auto Pinned = Pageable.pin_memory();
  auto Weight = torch::randn({Features, Outputs}, torch::device(Device));
  torch::Tensor Out;
  auto Compute = [&](const torch::Tensor &X) {
    Out = torch::relu(torch::matmul(X.reshape({X.size(0), -1}), Weight));
  };
  interleave(
      S, P.Steps, 1, FixedRounds, Rule, [&] { Compute(Pageable.to(Device)); },
      [&] { Compute(Pinned.to(Device, /*non_blocking=*/true)); });
  return S;
}

Samples measureHostTensorToDevice(const HostTensorParams &P, int FixedRounds,
                                  const StopRule &Rule) {
  std::string Workload =
      "torch::randn of a " + dims(P.Shape) + " float tensor for the GPU";
  if (!torch::cuda::is_available())
    return noCuda(Workload);
  torch::Device Device(torch::kCUDA);
  Samples S = startSamples(Device, Workload);
  if (!positive(P.Shape) || P.Steps <= 0) {
    S.StopReason = "no valid tensor for these sizes";
    return S;
  }

  torch::Tensor Made;
  interleave(
      S, P.Steps, 1, FixedRounds, Rule,
      [&] { Made = torch::randn(P.Shape).to(Device); },
      [&] { Made = torch::randn(P.Shape, torch::device(Device)); });
  return S;
}

namespace {

using PointwiseFn = torch::Tensor (*)(const torch::Tensor &);

/// The written-out formula and the fused op of each fix.
std::optional<std::pair<PointwiseFn, PointwiseFn>>
pointwisePair(const std::string &Fused) {
  static const std::map<std::string, std::pair<PointwiseFn, PointwiseFn>>
      Pairs = {
          {"silu",
           {[](const torch::Tensor &X) { return X * torch::sigmoid(X); },
            [](const torch::Tensor &X) { return torch::silu(X); }}},
          {"gelu",
           {[](const torch::Tensor &X) {
              return 0.5 * X * (1 + torch::erf(X * M_SQRT1_2));
            },
            [](const torch::Tensor &X) { return torch::gelu(X); }}},
          {"gelu-tanh",
           {[](const torch::Tensor &X) {
              return 0.5 * X *
                     (1 + torch::tanh(0.7978845608028654 *
                                      (X + 0.044715 * torch::pow(X, 3))));
            },
            [](const torch::Tensor &X) { return torch::gelu(X, "tanh"); }}},
          {"softplus",
           {[](const torch::Tensor &X) { return torch::log(1 + torch::exp(X)); },
            [](const torch::Tensor &X) { return torch::softplus(X); }}},
          {"softmax",
           {[](const torch::Tensor &X) {
              return torch::exp(X) / torch::exp(X).sum(-1, true);
            },
            [](const torch::Tensor &X) { return torch::softmax(X, -1); }}},
          {"log_softmax",
           {[](const torch::Tensor &X) {
              return torch::log(torch::softmax(X, -1));
            },
            [](const torch::Tensor &X) { return torch::log_softmax(X, -1); }}},
          {"log_sigmoid",
           {[](const torch::Tensor &X) {
              return torch::log(torch::sigmoid(X));
            },
            [](const torch::Tensor &X) { return torch::log_sigmoid(X); }}},
          {"rsqrt",
           {[](const torch::Tensor &X) { return 1 / torch::sqrt(X.abs()); },
            [](const torch::Tensor &X) { return torch::rsqrt(X.abs()); }}},
          {"log1p",
           {[](const torch::Tensor &X) { return torch::log(1 + X.abs()); },
            [](const torch::Tensor &X) { return torch::log1p(X.abs()); }}},
          {"expm1",
           {[](const torch::Tensor &X) { return torch::exp(X) - 1; },
            [](const torch::Tensor &X) { return torch::expm1(X); }}},
          {"mish",
           {[](const torch::Tensor &X) {
              return X * torch::tanh(torch::softplus(X));
            },
            [](const torch::Tensor &X) { return torch::mish(X); }}},
          {"linalg_vector_norm",
           {[](const torch::Tensor &X) {
              return X.pow(2).sum(-1, true).sqrt();
            },
            [](const torch::Tensor &X) {
              return torch::linalg_vector_norm(X, 2, -1, true);
            }}},
      };
  auto It = Pairs.find(Fused);
  if (It == Pairs.end())
    return std::nullopt;
  return It->second;
}

using Tensor = torch::Tensor;
/// A formula of three tensors (X, and Y and Z, random, of X's shape, Z
/// positive); hypot reads two.
using TernaryFn = Tensor (*)(const Tensor &, const Tensor &, const Tensor &);

/// The fused ops of several tensors, as pointwisePair.
std::optional<std::pair<TernaryFn, TernaryFn>>
ternaryPair(const std::string &Fused) {
  static const std::map<std::string, std::pair<TernaryFn, TernaryFn>> Pairs = {
      {"hypot",
       {[](const Tensor &X, const Tensor &Y, const Tensor &) {
          return torch::sqrt(X * X + Y * Y);
        },
        [](const Tensor &X, const Tensor &Y, const Tensor &) {
          return torch::hypot(X, Y);
        }}},
      {"lerp",
       {[](const Tensor &X, const Tensor &Y, const Tensor &Z) {
          return X + (Y - X) * Z;
        },
        [](const Tensor &X, const Tensor &Y, const Tensor &Z) {
          return torch::lerp(X, Y, Z);
        }}},
      {"addcmul",
       {[](const Tensor &X, const Tensor &Y, const Tensor &Z) {
          return X + 0.5 * Y * Z;
        },
        [](const Tensor &X, const Tensor &Y, const Tensor &Z) {
          return torch::addcmul(X, Y, Z, 0.5);
        }}},
      {"addcdiv",
       {[](const Tensor &X, const Tensor &Y, const Tensor &Z) {
          return X - 0.1 * Y / Z;
        },
        [](const Tensor &X, const Tensor &Y, const Tensor &Z) {
          return torch::addcdiv(X, Y, Z, -0.1);
        }}},
  };
  auto It = Pairs.find(Fused);
  if (It == Pairs.end())
    return std::nullopt;
  return It->second;
}

} // namespace

Samples measureUnfusedPointwise(const UnfusedPointwiseParams &P,
                                int FixedRounds, const StopRule &Rule) {
  torch::Device Device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Samples S = startSamples(Device, "the written-out formula of " + P.Fused +
                                       " against " + P.Fused + " on a " +
                                       dims(P.Shape) + " float tensor");
  auto Pair = pointwisePair(P.Fused);
  auto Ternary = ternaryPair(P.Fused);
  if ((!Pair && !Ternary) || !positive(P.Shape) || P.Calls <= 0) {
    S.StopReason = "no formula for '" + P.Fused + "'";
    return S;
  }
  torch::NoGradGuard NoGrad;
  torch::Tensor X = torch::randn(P.Shape, torch::device(Device));
  torch::Tensor Y = torch::randn(P.Shape, torch::device(Device));
  torch::Tensor Z = torch::rand(P.Shape, torch::device(Device)) + 0.1;
  auto Before = [&] {
    return Pair ? Pair->first(X) : Ternary->first(X, Y, Z);
  };
  auto After = [&] {
    return Pair ? Pair->second(X) : Ternary->second(X, Y, Z);
  };
  compare(S, {Before()}, {After()});
  torch::Tensor Out;
  interleave(
      S, P.Calls, 1, FixedRounds, Rule, [&] { Out = Before(); },
      [&] { Out = After(); });
  return S;
}

} // namespace torchtidy
