#pragma once
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

namespace torch {
namespace nn {
class ReLUImpl : public Module {
public:
  explicit ReLUImpl(bool inplace = false);
  at::Tensor forward(at::Tensor input);
};
TORCH_MODULE(ReLU);

class MaxPool2dImpl : public Module {
public:
  explicit MaxPool2dImpl(int64_t kernel_size);
  at::Tensor forward(const at::Tensor &input);
};
TORCH_MODULE(MaxPool2d);

class DropoutImpl : public Module {
public:
  explicit DropoutImpl(double p = 0.5);
  at::Tensor forward(at::Tensor input);
};
TORCH_MODULE(Dropout);
} // namespace nn
} // namespace torch
