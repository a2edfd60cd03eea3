#pragma once
#include <ATen/core/Formatting.h>
#include <ATen/core/TensorBody.h>
#include <torch/cuda.h>
#include <torch/data/dataloader.h>
#include <torch/nn/module.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/optimizer.h>
#include <torch/version.h>

namespace torch {
using namespace at;
at::Tensor randn(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor zeros(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor ones(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor tensor(std::vector<float> Values, at::TensorOptions Options = {});
at::Tensor nll_loss(const at::Tensor &Input, const at::Tensor &Target);
at::Tensor mse_loss(const at::Tensor &Input, const at::Tensor &Target);
namespace autograd {
void backward(const std::vector<at::Tensor> &Tensors);
} // namespace autograd
} // namespace torch
