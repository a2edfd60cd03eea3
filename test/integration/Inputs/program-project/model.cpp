#include "model.h"

StackNetImpl::StackNetImpl(int64_t Width, int64_t Depth, int64_t Classes) {
  for (int64_t I = 0; I < Depth; ++I)
    Layers->push_back(torch::nn::Linear(Width, Width));
  register_module("layers", Layers);
  Head = register_module("head", torch::nn::Linear(Width, Classes));
}

torch::Tensor StackNetImpl::forward(torch::Tensor X) {
  for (const auto &Layer : *Layers)
    X = torch::relu(Layer->as<torch::nn::Linear>()->forward(X));
  return torch::log_softmax(Head(X), 1);
}
