// Measures what torch-zero-grad's fix buys: one training step of an MLP with
// the gradients zero-filled (Optimizer::zero_grad() on LibTorch 1.x) against
// the same step with the gradients reset (the fix-it). The two variants run
// interleaved, A B A B, and the result is the ratio of the medians with a 95%
// bootstrap interval. Also checks both variants give the same parameters.
//
//   bench_zero_grad [--rounds N] [--width N] [--layers N] [--batch N]

#include "BenchOptions.h"
#include "Stats.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Config {
  int Rounds = 30;
  int Width = 1024;
  int Layers = 6;
  int Batch = 2;
  int StepsPerSample = 3;
};

torch::nn::Sequential makeModel(const Config &C) {
  torch::nn::Sequential Model;
  for (int I = 0; I < C.Layers; ++I) {
    Model->push_back(torch::nn::Linear(C.Width, C.Width));
    Model->push_back(torch::nn::ReLU());
  }
  return Model;
}

void resetGrads(torch::optim::Optimizer &Opt) {
  for (auto &Group : Opt.param_groups())
    for (auto &Param : Group.params())
      Param.mutable_grad().reset();
}

void zeroGrads(torch::optim::Optimizer &Opt) {
  // What Optimizer::zero_grad() does on LibTorch 1.x (and zero_grad(false)).
  for (auto &Group : Opt.param_groups())
    for (auto &Param : Group.params())
      if (Param.grad().defined()) {
        Param.mutable_grad().detach_();
        Param.mutable_grad().zero_();
      }
}

} // namespace

int main(int argc, char **argv) {
  Config C;
  if (!bench::parseOptions(argc, argv,
                           {{"--rounds", &C.Rounds},
                            {"--width", &C.Width},
                            {"--layers", &C.Layers},
                            {"--batch", &C.Batch}}))
    return 2;
  torch::Device Device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto sync = [&] {
    if (Device.is_cuda())
      torch::cuda::synchronize();
  };

  // Two identical models, one per variant.
  torch::manual_seed(0);
  auto ModelA = makeModel(C);
  auto ModelB = makeModel(C);
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
  auto Input = torch::randn({C.Batch, C.Width}, torch::device(Device));
  auto Target = torch::randn({C.Batch, C.Width}, torch::device(Device));

  auto step = [&](torch::nn::Sequential &M, torch::optim::SGD &Opt,
                  bool Reset) {
    if (Reset)
      resetGrads(Opt);
    else
      zeroGrads(Opt);
    auto Loss = torch::mse_loss(M->forward(Input), Target);
    Loss.backward();
    Opt.step();
  };
  auto timeSteps = [&](torch::nn::Sequential &M, torch::optim::SGD &Opt,
                       bool Reset) {
    sync();
    auto Start = std::chrono::steady_clock::now();
    for (int I = 0; I < C.StepsPerSample; ++I)
      step(M, Opt, Reset);
    sync();
    std::chrono::duration<double, std::micro> D =
        std::chrono::steady_clock::now() - Start;
    return D.count() / C.StepsPerSample;
  };

  // Warm-up, untimed: allocator growth and first-call costs.
  for (int I = 0; I < 3; ++I) {
    step(ModelA, OptA, false);
    step(ModelB, OptB, true);
  }

  std::vector<double> Zero, Reset;
  for (int R = 0; R < C.Rounds; ++R) {
    // Alternate which variant goes first to cancel drift.
    if (R % 2) {
      Zero.push_back(timeSteps(ModelA, OptA, false));
      Reset.push_back(timeSteps(ModelB, OptB, true));
    } else {
      Reset.push_back(timeSteps(ModelB, OptB, true));
      Zero.push_back(timeSteps(ModelA, OptA, false));
    }
  }

  // Same updates: both variants leave the same parameters.
  double MaxDiff = 0;
  auto PA = ModelA->parameters(), PB = ModelB->parameters();
  for (size_t I = 0; I < PA.size(); ++I)
    MaxDiff = std::max(MaxDiff, (PA[I] - PB[I]).abs().max().item<double>());

  double MZ = torchverify::median(Zero), MR = torchverify::median(Reset);
  torchverify::Interval Speedup = torchverify::bootstrapSpeedup(Zero, Reset);
  long Params = 0;
  for (auto &P : PA)
    Params += P.numel();
  std::printf("device: %s, LibTorch %s, threads %d\n",
              Device.is_cuda() ? "cuda" : "cpu", TORCH_VERSION,
              torch::get_num_threads());
  std::printf("model: %d x Linear(%d, %d), %ld parameters, batch %d\n",
              C.Layers, C.Width, C.Width, Params, C.Batch);
  std::printf("zero-filled grads: median %.1f us/step (IQR %.1f)\n", MZ,
              torchverify::iqr(Zero));
  std::printf("reset grads:       median %.1f us/step (IQR %.1f)\n", MR,
              torchverify::iqr(Reset));
  std::printf("speedup zero/reset: %.3f (95%% CI %.3f .. %.3f), %d rounds x "
              "%d steps, interleaved\n",
              Speedup.Point, Speedup.Low, Speedup.High, C.Rounds,
              C.StepsPerSample);
  std::printf("max parameter difference after the run: %.3g\n", MaxDiff);
  return 0;
}
