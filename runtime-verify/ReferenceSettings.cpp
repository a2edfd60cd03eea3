//===--- ReferenceSettings.cpp - libtorch-tidy-verify ---------------------===//
//
// The reference benchmarks of torch-missing-no-grad, torch-dataloader-workers,
// torch-cudnn-benchmark and torch-tf32-disabled: what their fixes change is
// a mode (autograd, loader threads, a global library setting), which no
// snippet of the flagged line can show.
//
//===----------------------------------------------------------------------===//

#include "MeasureLoop.h"
#include "Reference.h"

#include <torch/torch.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace torchtidy {

namespace {

void fill(Samples &S, LoopResult R) {
  S.Before = std::move(R.Before);
  S.After = std::move(R.After);
  S.GpuBefore = std::move(R.GpuBefore);
  S.GpuAfter = std::move(R.GpuAfter);
  S.Seconds = R.Seconds;
  S.StopReason = std::move(R.StopReason);
}

LoopOptions loopOptions(int Calls, int StepsPerCall, int FixedRounds,
                        const StopRule &Rule) {
  LoopOptions Options;
  Options.Rule = Rule;
  Options.FixedRounds = FixedRounds;
  Options.RunsPerSample = Calls;
  Options.StepsPerRun = StepsPerCall;
  return Options;
}

/// The largest difference between \p Before and \p After, what the flagged
/// and the fixed variant computed, into S (setDifference).
void compare(Samples &S, const torch::Tensor &Before,
             const torch::Tensor &After) {
  setDifference(S, (Before - After).abs().max().item<double>(),
                Before.abs().max().item<double>());
}

Samples cudaOnly(std::string Workload) {
  Samples S;
  S.Device = "cpu";
  S.Workload = std::move(Workload);
  S.StopReason = "no CUDA device";
  return S;
}

/// Samples stored as text, parsed back into a tensor by get(): the decoding
/// a real data set does per sample (a CSV row, an image file).
class TextImages : public torch::data::datasets::Dataset<TextImages> {
public:
  explicit TextImages(std::shared_ptr<const std::vector<std::string>> Rows)
      : Rows(std::move(Rows)) {}
  torch::data::Example<> get(size_t Index) override {
    std::vector<float> Values(3 * 32 * 32);
    const char *Text = (*Rows)[Index].c_str();
    char *End = nullptr;
    for (float &V : Values) {
      V = std::strtof(Text, &End);
      Text = End;
    }
    return {torch::from_blob(Values.data(), {3, 32, 32}).clone(),
            torch::tensor(static_cast<int64_t>(Index % 10))};
  }
  torch::optional<size_t> size() const override { return Rows->size(); }

private:
  std::shared_ptr<const std::vector<std::string>> Rows;
};

} // namespace

Samples measureNoGradEval(const NoGradEvalParams &P, int FixedRounds,
                          const StopRule &Rule) {
  torch::Device Device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  Samples S;
  S.Device = Device.is_cuda() ? "cuda" : "cpu";
  S.Workload = "eval() forward pass of Conv2d(3, 32, 3) -> ReLU -> "
               "Conv2d(32, 32, 3) -> ReLU -> Linear(32768, 10), batch " +
               std::to_string(P.Batch) + " of 3x32x32";
  if (P.Batch <= 0 || P.Steps <= 0) {
    S.StopReason = "no valid network for these sizes";
    return S;
  }
  torch::manual_seed(0);
  torch::nn::Sequential Model(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 32, 3).padding(1)),
      torch::nn::ReLU(),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 32, 3).padding(1)),
      torch::nn::ReLU(), torch::nn::Flatten(),
      torch::nn::Linear(32 * 32 * 32, 10));
  Model->to(Device);
  Model->eval();
  auto Input = torch::randn({P.Batch, 3, 32, 32}, torch::device(Device));
  torch::Tensor WithGrad = Model->forward(Input);
  torch::Tensor NoGrad;
  {
    torch::NoGradGuard Guard;
    NoGrad = Model->forward(Input);
  }
  compare(S, WithGrad.detach(), NoGrad);
  fill(S, measureInterleaved(
              [&] { (void)Model->forward(Input); },
              [&] {
                torch::NoGradGuard Guard;
                (void)Model->forward(Input);
              },
              loopOptions(P.Steps, 1, FixedRounds, Rule)));
  return S;
}

Samples measureLoaderWorkers(const LoaderWorkersParams &P, int FixedRounds,
                             const StopRule &Rule) {
  Samples S;
  S.Device = "cpu";
  S.Workload = "epoch of " + std::to_string(P.Samples) +
               " samples parsed from text into 3x32x32 in get(), batch " +
               std::to_string(P.Batch) + ", Linear(3072, 10) training step; " +
               std::to_string(P.Workers) + " workers after";
  if (P.Samples <= 0 || P.Batch <= 0 || P.Workers == 0) {
    S.StopReason = "no valid workload for these sizes";
    return S;
  }
  auto Rows = std::make_shared<std::vector<std::string>>();
  for (int64_t I = 0; I < P.Samples; ++I) {
    std::ostringstream Row;
    for (int K = 0; K < 3 * 32 * 32; ++K)
      Row << ((I + K) % 255) / 255.0 << ' ';
    Rows->push_back(Row.str());
  }
  torch::manual_seed(0);
  torch::nn::Linear Layer(3 * 32 * 32, 10);
  torch::optim::SGD Opt(Layer->parameters(), torch::optim::SGDOptions(1e-3));
  auto Epoch = [&](size_t Workers, double *Checksum) {
    auto Loader = torch::data::make_data_loader(
        TextImages(Rows).map(torch::data::transforms::Stack<>()),
        torch::data::DataLoaderOptions(static_cast<size_t>(P.Batch))
            .workers(Workers));
    for (auto &Batch : *Loader) {
      if (Checksum)
        *Checksum += Batch.data.sum().item<double>();
      Opt.zero_grad();
      auto Loss = torch::nll_loss(
          torch::log_softmax(Layer(Batch.data.view({Batch.data.size(0), -1})),
                             1),
          Batch.target);
      Loss.backward();
      Opt.step();
    }
  };
  double Before = 0, After = 0;
  Epoch(0, &Before);
  Epoch(P.Workers, &After);
  setDifference(S, std::abs(Before - After), std::abs(Before));
  fill(S, measureInterleaved([&] { Epoch(0, nullptr); },
                             [&] { Epoch(P.Workers, nullptr); },
                             loopOptions(1, 1, FixedRounds, Rule)));
  return S;
}

Samples measureCudnnBenchmark(const CudnnBenchmarkParams &P, int FixedRounds,
                              const StopRule &Rule) {
  std::string C = std::to_string(P.Channels);
  std::string Workload = "training step of Conv2d(" + C + ", " + C +
                         ", 3) -> ReLU -> Conv2d(" + C + ", " + C +
                         ", 3), batch " + std::to_string(P.Batch) + " of " +
                         C + "x" + std::to_string(P.Spatial) + "x" +
                         std::to_string(P.Spatial);
  if (!torch::cuda::is_available())
    return cudaOnly(Workload);
  Samples S;
  S.Device = "cuda";
  S.Workload = Workload;
  if (P.Batch <= 0 || P.Channels <= 0 || P.Spatial < 3 || P.Steps <= 0) {
    S.StopReason = "no valid network for these sizes";
    return S;
  }
  torch::Device Device(torch::kCUDA);
  torch::manual_seed(0);
  torch::nn::Sequential Model(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(P.Channels, P.Channels, 3)
                            .padding(1)),
      torch::nn::ReLU(),
      torch::nn::Conv2d(torch::nn::Conv2dOptions(P.Channels, P.Channels, 3)
                            .padding(1)));
  Model->to(Device);
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(1e-3));
  auto Input = torch::randn({P.Batch, P.Channels, P.Spatial, P.Spatial},
                            torch::device(Device));
  at::Context &Ctx = at::globalContext();
  bool Was = Ctx.benchmarkCuDNN();
  auto Step = [&](bool Benchmark) {
    Ctx.setBenchmarkCuDNN(Benchmark);
    Opt.zero_grad();
    Model->forward(Input).square().mean().backward();
    Opt.step();
  };
  fill(S, measureInterleaved([&] { Step(false); }, [&] { Step(true); },
                             loopOptions(P.Steps, 1, FixedRounds, Rule)));
  Ctx.setBenchmarkCuDNN(Was);
  return S;
}

/// The setting's name: LibTorch 2.11 sets the precision by name only.
static const char *precisionName(at::Float32MatmulPrecision P) {
  switch (P) {
  case at::Float32MatmulPrecision::HIGH:
    return "high";
  case at::Float32MatmulPrecision::MEDIUM:
    return "medium";
  default:
    return "highest";
  }
}

Samples measureTf32Matmul(const Tf32MatmulParams &P, int FixedRounds,
                          const StopRule &Rule) {
  std::string F = std::to_string(P.Features);
  std::string Workload = "training step of Linear(" + F + ", " + F +
                         ") -> ReLU -> Linear(" + F + ", " + F +
                         "), batch " + std::to_string(P.Batch) +
                         ", float32 matmul precision highest vs high";
  if (!torch::cuda::is_available())
    return cudaOnly(Workload);
  Samples S;
  S.Device = "cuda";
  S.Workload = Workload;
  if (P.Batch <= 0 || P.Features <= 0 || P.Steps <= 0) {
    S.StopReason = "no valid network for these sizes";
    return S;
  }
  torch::Device Device(torch::kCUDA);
  torch::manual_seed(0);
  torch::nn::Sequential Model(torch::nn::Linear(P.Features, P.Features),
                              torch::nn::ReLU(),
                              torch::nn::Linear(P.Features, P.Features));
  Model->to(Device);
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(1e-4));
  auto Input = torch::randn({P.Batch, P.Features}, torch::device(Device));
  at::Context &Ctx = at::globalContext();
  at::Float32MatmulPrecision Was = Ctx.float32MatmulPrecision();
  {
    torch::NoGradGuard Guard;
    Ctx.setFloat32MatmulPrecision("highest");
    torch::Tensor Exact = Model->forward(Input);
    Ctx.setFloat32MatmulPrecision("high");
    torch::Tensor Tf32 = Model->forward(Input);
    // Read against the output's scale: TF32 keeps 10 bits of mantissa.
    compare(S, Exact, Tf32);
  }
  auto Step = [&](const char *Precision) {
    Ctx.setFloat32MatmulPrecision(Precision);
    Opt.zero_grad();
    Model->forward(Input).square().mean().backward();
    Opt.step();
  };
  fill(S, measureInterleaved([&] { Step("highest"); }, [&] { Step("high"); },
                             loopOptions(P.Steps, 1, FixedRounds, Rule)));
  Ctx.setFloat32MatmulPrecision(precisionName(Was));
  return S;
}

} // namespace torchtidy
