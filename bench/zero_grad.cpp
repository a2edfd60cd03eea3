// Measures what torch-zero-grad's fix buys: one training step of an MLP with
// the gradients zero-filled (Optimizer::zero_grad() on LibTorch 1.x) against
// the same step with the gradients reset (the fix-it). The two variants run
// interleaved, A B A B, and the result is the ratio of the medians with a 95%
// bootstrap interval. Also checks both variants give the same parameters.
//
//   bench_zero_grad [--rounds N] [--width N] [--layers N] [--batch N]

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
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

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

double quantile(std::vector<double> V, double Q) {
  std::sort(V.begin(), V.end());
  double Pos = Q * (V.size() - 1);
  size_t Lo = static_cast<size_t>(Pos);
  size_t Hi = std::min(Lo + 1, V.size() - 1);
  return V[Lo] + (Pos - Lo) * (V[Hi] - V[Lo]);
}

} // namespace

int main(int argc, char **argv) {
  Config C;
  for (int I = 1; I + 1 < argc; I += 2) {
    int Value = std::atoi(argv[I + 1]);
    if (Value <= 0) {
      std::fprintf(stderr, "error: %s needs a positive number\n", argv[I]);
      return 2;
    }
    if (!std::strcmp(argv[I], "--rounds"))
      C.Rounds = Value;
    else if (!std::strcmp(argv[I], "--width"))
      C.Width = Value;
    else if (!std::strcmp(argv[I], "--layers"))
      C.Layers = Value;
    else if (!std::strcmp(argv[I], "--batch"))
      C.Batch = Value;
    else {
      std::fprintf(stderr, "error: unknown option %s\n", argv[I]);
      return 2;
    }
  }
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

  // Bootstrap the ratio of medians.
  std::mt19937 Rng(12345);
  std::uniform_int_distribution<size_t> Pick(0, Zero.size() - 1);
  std::vector<double> Ratios;
  for (int B = 0; B < 2000; ++B) {
    std::vector<double> SZ, SR;
    for (size_t I = 0; I < Zero.size(); ++I) {
      SZ.push_back(Zero[Pick(Rng)]);
      SR.push_back(Reset[Pick(Rng)]);
    }
    Ratios.push_back(median(SZ) / median(SR));
  }
  double MZ = median(Zero), MR = median(Reset);
  long Params = 0;
  for (auto &P : PA)
    Params += P.numel();
  std::printf("device: %s, LibTorch %s, threads %d\n",
              Device.is_cuda() ? "cuda" : "cpu", TORCH_VERSION,
              torch::get_num_threads());
  std::printf("model: %d x Linear(%d, %d), %ld parameters, batch %d\n",
              C.Layers, C.Width, C.Width, Params, C.Batch);
  std::printf("zero-filled grads: median %.1f us/step (IQR %.1f)\n", MZ,
              quantile(Zero, 0.75) - quantile(Zero, 0.25));
  std::printf("reset grads:       median %.1f us/step (IQR %.1f)\n", MR,
              quantile(Reset, 0.75) - quantile(Reset, 0.25));
  std::printf("speedup zero/reset: %.3f (95%% CI %.3f .. %.3f), %d rounds x "
              "%d steps, interleaved\n",
              MZ / MR, quantile(Ratios, 0.025), quantile(Ratios, 0.975),
              C.Rounds, C.StepsPerSample);
  std::printf("max parameter difference after the run: %.3g\n", MaxDiff);
  return 0;
}
