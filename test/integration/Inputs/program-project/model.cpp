#include "model.h"

StackNetImpl::StackNetImpl(int64_t Width, int64_t Depth, int64_t Classes) {
  // The points as 4x4 images of one channel (Width 16).
  Conv = register_module(
      "conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 2, 3).padding(1)));
  Norm = register_module("norm", torch::nn::BatchNorm2d(2));
  Layers->push_back(torch::nn::Linear(2 * Width, Width));
  for (int64_t I = 1; I < Depth; ++I)
    Layers->push_back(torch::nn::Linear(Width, Width));
  register_module("layers", Layers);
  Head = register_module("head", torch::nn::Linear(Width, Classes));
}

torch::Tensor StackNetImpl::forward(torch::Tensor X) {
  int64_t N = X.size(0);
  X = Norm(Conv(X.view({N, 1, 4, 4}))).view({N, -1});
  for (const auto &Layer : *Layers)
    X = torch::relu(Layer->as<torch::nn::Linear>()->forward(X));
  return torch::log_softmax(Head(X), 1);
}
