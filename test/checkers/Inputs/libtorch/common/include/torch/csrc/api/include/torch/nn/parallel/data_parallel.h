#pragma once
// torch/nn/parallel/data_parallel.h (1.13: :252-258; 2.x the same with
// std::optional). The real header includes CUDA headers that a CPU-only
// LibTorch lacks; torch/torch.h does not include it.
#include <ATen/core/TensorBody.h>
#include <cstdint>
#include <optional>
#include <vector>

namespace torch {
namespace nn {
namespace parallel {
template <typename ModuleType>
at::Tensor data_parallel(ModuleType module, at::Tensor input,
                         std::optional<std::vector<at::Device>> devices =
                             std::nullopt,
                         std::optional<at::Device> output_device = std::nullopt,
                         int64_t dim = 0);

// LibTorch-internal use in a loop: checks never report here.
template <typename ModuleType>
void replicateEachStep(ModuleType module, const std::vector<at::Tensor> &Xs) {
  for (const auto &X : Xs)
    data_parallel(module, X);
}
} // namespace parallel
} // namespace nn
} // namespace torch
