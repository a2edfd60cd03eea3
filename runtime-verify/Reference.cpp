//===--- Reference.cpp - libtorch-tidy-verify -----------------------------===//

#include "Reference.h"

#include <torch/torch.h>

#include <chrono>

namespace torchverify {

namespace {

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

Samples measureAnomalyMode(int Batch, int StepsPerSample, int FixedRounds,
                           const StopRule &Rule) {
  torch::Device Device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto Sync = [&] {
    if (Device.is_cuda())
      torch::cuda::synchronize();
  };
  torch::manual_seed(0);
  Net Model;
  Model->to(Device);
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(1e-3));
  auto Input = torch::randn({Batch, 3, 32, 32}, torch::device(Device));
  auto Target =
      torch::randint(10, {Batch}, torch::device(Device).dtype(torch::kLong));

  Samples S;
  S.Device = Device.is_cuda() ? "cuda" : "cpu";
  bool Was = torch::autograd::AnomalyMode::is_enabled();
  auto TimeSteps = [&](bool Anomaly) {
    torch::autograd::AnomalyMode::set_enabled(Anomaly);
    Sync();
    auto Start = std::chrono::steady_clock::now();
    for (int I = 0; I < StepsPerSample; ++I) {
      for (auto &P : Model->parameters())
        P.mutable_grad().reset();
      auto Loss = torch::nll_loss(Model->forward(Input), Target);
      Loss.backward();
      Opt.step();
    }
    Sync();
    std::chrono::duration<double, std::micro> D =
        std::chrono::steady_clock::now() - Start;
    S.Seconds += D.count() * 1e-6;
    return D.count() / StepsPerSample;
  };

  // Warm-up, untimed.
  for (int I = 0; I < 2; ++I) {
    TimeSteps(true);
    TimeSteps(false);
  }
  S.Seconds = 0;
  for (int R = 0;; ++R) {
    if (FixedRounds > 0
            ? R >= FixedRounds
            : shouldStop(S.Before, S.After, S.Seconds, Rule, &S.StopReason))
      break;
    // Alternate which variant goes first to cancel drift.
    if (R % 2) {
      S.Before.push_back(TimeSteps(true));
      S.After.push_back(TimeSteps(false));
    } else {
      S.After.push_back(TimeSteps(false));
      S.Before.push_back(TimeSteps(true));
    }
  }
  if (FixedRounds > 0)
    S.StopReason = "rounds";
  torch::autograd::AnomalyMode::set_enabled(Was);
  return S;
}

} // namespace torchverify
