#pragma once
#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/Formatting.h>
#include <ATen/core/TensorBody.h>
#include <torch/csrc/autograd/anomaly_mode.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/cuda.h>
#include <torch/data/dataloader.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/nn/utils/rnn.h>
#include <torch/optim/optimizer.h>
#include <torch/serialize.h>
#include <torch/version.h>
#include <torch/utils.h>

#include <initializer_list>
#include <optional>

namespace torch {
using namespace at;
namespace detail {
// torch::tensor's argument: a scalar, a braced list or a vector.
class TensorDataContainer {
public:
  TensorDataContainer(uint8_t Value);
  TensorDataContainer(int16_t Value);
  TensorDataContainer(int Value);
  TensorDataContainer(int64_t Value);
  TensorDataContainer(float Value);
  TensorDataContainer(double Value);
  TensorDataContainer(bool Value);
  TensorDataContainer(std::initializer_list<TensorDataContainer> List);
  template <typename T> TensorDataContainer(const std::vector<T> &Values);
};
} // namespace detail
at::Tensor randn(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor zeros(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor ones(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor tensor(detail::TensorDataContainer Data,
                  const at::TensorOptions &Options = {});
at::Tensor rand(std::vector<int64_t> Sizes, at::TensorOptions Options = {});
at::Tensor randint(int64_t High, std::vector<int64_t> Sizes,
                   at::TensorOptions Options = at::kLong);
at::Tensor empty(std::vector<int64_t> Sizes, at::TensorOptions Options = {},
                 std::optional<int> MemoryFormat = std::nullopt);
at::Tensor full(std::vector<int64_t> Sizes, double FillValue,
                at::TensorOptions Options = {});
at::Tensor arange(double End, at::TensorOptions Options = {});
at::Tensor linspace(double Start, double End, int64_t Steps,
                    at::TensorOptions Options = {});
at::Tensor eye(int64_t N, at::TensorOptions Options = {});
at::Tensor from_blob(void *Data, std::vector<int64_t> Sizes,
                     at::TensorOptions Options = {});
at::Tensor relu(const at::Tensor &Input);
at::Tensor stack(std::vector<at::Tensor> Tensors, int64_t Dim = 0);
at::Tensor cat(std::vector<at::Tensor> Tensors, int64_t Dim = 0);
at::Tensor nll_loss(const at::Tensor &Input, const at::Tensor &Target);
at::Tensor mse_loss(const at::Tensor &Input, const at::Tensor &Target);
namespace autograd {
void backward(const std::vector<at::Tensor> &Tensors);
} // namespace autograd
} // namespace torch

namespace torch {
namespace nn {
namespace detail {
// Internal code with a convolution and its bias before a BatchNorm: checks
// never report here.
inline Sequential convBatchNormBlock() {
  return Sequential(Conv2d(3, 8, 3), BatchNorm2d(8));
}
} // namespace detail
} // namespace nn
} // namespace torch
