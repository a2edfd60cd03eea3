// Measures what torch-debug-api-enabled's fix buys: one training step of a
// small convolutional network with anomaly detection on (the flagged code:
// AnomalyMode::set_enabled(true) left in) against the same step with it off
// (the fix: the switch kept to debug builds). The variants run interleaved,
// A B A B, on the same model; the result is the ratio of the medians with a
// 95% bootstrap interval.
//
//   bench_anomaly_mode [--rounds N] [--batch N] [--steps N]

#include "BenchOptions.h"
#include "Stats.h"

#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Config {
  int Rounds = 20;
  int Batch = 16;
  int StepsPerSample = 3;
};

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

} // namespace

int main(int argc, char **argv) {
  Config C;
  if (!bench::parseOptions(argc, argv,
                           {{"--rounds", &C.Rounds},
                            {"--batch", &C.Batch},
                            {"--steps", &C.StepsPerSample}}))
    return 2;
  torch::Device Device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto sync = [&] {
    if (Device.is_cuda())
      torch::cuda::synchronize();
  };

  torch::manual_seed(0);
  Net Model;
  Model->to(Device);
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(1e-3));
  auto Input = torch::randn({C.Batch, 3, 32, 32}, torch::device(Device));
  auto Target =
      torch::randint(10, {C.Batch}, torch::device(Device).dtype(torch::kLong));

  auto timeSteps = [&](bool Anomaly) {
    torch::autograd::AnomalyMode::set_enabled(Anomaly);
    sync();
    auto Start = std::chrono::steady_clock::now();
    for (int I = 0; I < C.StepsPerSample; ++I) {
      for (auto &P : Model->parameters())
        P.mutable_grad().reset();
      auto Loss = torch::nll_loss(Model->forward(Input), Target);
      Loss.backward();
      Opt.step();
    }
    sync();
    std::chrono::duration<double, std::micro> D =
        std::chrono::steady_clock::now() - Start;
    torch::autograd::AnomalyMode::set_enabled(false);
    return D.count() / C.StepsPerSample;
  };

  // Warm-up, untimed.
  for (int I = 0; I < 2; ++I) {
    timeSteps(true);
    timeSteps(false);
  }
  std::vector<double> On, Off;
  for (int R = 0; R < C.Rounds; ++R) {
    // Alternate which variant goes first to cancel drift.
    if (R % 2) {
      On.push_back(timeSteps(true));
      Off.push_back(timeSteps(false));
    } else {
      Off.push_back(timeSteps(false));
      On.push_back(timeSteps(true));
    }
  }

  torchverify::Interval Slowdown = torchverify::bootstrapSpeedup(On, Off);
  std::printf("device: %s, LibTorch %s, threads %d\n",
              Device.is_cuda() ? "cuda" : "cpu", TORCH_VERSION,
              torch::get_num_threads());
  std::printf("model: 2 x Conv2d + Linear, batch %d of 3x32x32\n", C.Batch);
  std::printf("anomaly mode on (before the fix):  median %.1f us/step (IQR "
              "%.1f)\n",
              torchverify::median(On), torchverify::iqr(On));
  std::printf("anomaly mode off (after the fix):  median %.1f us/step (IQR "
              "%.1f)\n",
              torchverify::median(Off), torchverify::iqr(Off));
  std::printf("slowdown on/off: %.3f (95%% CI %.3f .. %.3f), %d rounds x %d "
              "steps, interleaved\n",
              Slowdown.Point, Slowdown.Low, Slowdown.High, C.Rounds,
              C.StepsPerSample);
  // The fix's verdict by the verifier's rule: before = on, after = off.
  torchverify::RankTest Test = torchverify::mannWhitneyU(On, Off);
  torchverify::Verdict V =
      torchverify::decide(Slowdown, Test, torchverify::relativeSpread(On),
                          torchverify::relativeSpread(Off));
  std::printf("verdict of the fix: %s (Mann-Whitney p = %.2g)\n",
              torchverify::verdictName(V), Test.P);
  return 0;
}
