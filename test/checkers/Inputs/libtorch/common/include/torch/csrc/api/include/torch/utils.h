#pragma once
#include <ATen/core/TensorBody.h>
#include <torch/csrc/autograd/grad_mode.h>
#include <vector>

namespace torch {
using NoGradGuard = at::NoGradGuard;
using AutoGradMode = at::AutoGradMode;
namespace autograd {
std::vector<at::Tensor> grad(const std::vector<at::Tensor> &outputs,
                             const std::vector<at::Tensor> &inputs,
                             const std::vector<at::Tensor> &grad_outputs = {},
                             std::optional<bool> retain_graph = std::nullopt,
                             bool create_graph = false,
                             bool allow_unused = false);
} // namespace autograd
} // namespace torch
