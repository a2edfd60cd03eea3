// The model: a convolution with its BatchNorm, then a stack of small fully
// connected layers.
#pragma once
#include <torch/torch.h>

struct StackNetImpl : torch::nn::Module {
  StackNetImpl(int64_t Width, int64_t Depth, int64_t Classes);
  torch::Tensor forward(torch::Tensor X);

  torch::nn::Conv2d Conv{nullptr};
  torch::nn::BatchNorm2d Norm{nullptr};
  torch::nn::ModuleList Layers;
  torch::nn::Linear Head{nullptr};
};
TORCH_MODULE(StackNet);
