#pragma once
#include <ATen/core/TensorBody.h>
#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>
#include <torch/version.h>

namespace torch {
using namespace at;
at::Tensor randn(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor nll_loss(const at::Tensor &Input, const at::Tensor &Target);
namespace autograd {
void backward(const std::vector<at::Tensor> &Tensors);
} // namespace autograd
} // namespace torch
