// RUN: %torch_mock_2
#include <torch/torch.h>

#ifndef NDEBUG
static bool Anomaly = (torch::autograd::AnomalyMode::set_enabled(true), true);
#endif

struct BlockImpl : torch::nn::Module {
  torch::nn::Conv2d conv{torch::nn::Conv2dOptions(3, 8, 3)};
  torch::nn::BatchNorm2d bn{8};
  torch::nn::Sequential seq{torch::nn::Conv2d(torch::nn::Conv2dOptions(8, 8, 3).bias(true)), torch::nn::BatchNorm2d(8)};
  torch::Tensor forward(torch::Tensor x) { return seq->forward(bn(conv(x))); }
};
TORCH_MODULE(Block);

torch::nn::Conv2d make(int c) { return torch::nn::Conv2d(torch::nn::Conv2dOptions(c, c, 1)); }

void train(Block &b) {
  torch::autograd::DetectAnomalyGuard guard;
  auto s = torch::nn::Sequential(make(3), torch::nn::BatchNorm2d(3));
  at::globalContext().setDeterministicAlgorithms(true);
  torch::load(b, "x.pt");
}
