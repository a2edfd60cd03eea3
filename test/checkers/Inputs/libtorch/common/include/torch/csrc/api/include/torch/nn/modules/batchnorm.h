#pragma once
#include <torch/nn/module.h>
#include <torch/nn/options/batchnorm.h>
#include <torch/nn/pimpl.h>

namespace torch {
namespace nn {
template <size_t D, typename Derived> class BatchNormImplBase : public Module {
public:
  explicit BatchNormImplBase(const BatchNormOptions &options_);
  at::Tensor forward(const at::Tensor &input);
};

#define LIBTORCH_MOCK_BATCHNORM(Name, D)                                       \
  class Name##Impl : public BatchNormImplBase<D, Name##Impl> {                 \
  public:                                                                      \
    using BatchNormImplBase<D, Name##Impl>::BatchNormImplBase;                 \
  };                                                                           \
  TORCH_MODULE(Name)

LIBTORCH_MOCK_BATCHNORM(BatchNorm1d, 1);
LIBTORCH_MOCK_BATCHNORM(BatchNorm2d, 2);
LIBTORCH_MOCK_BATCHNORM(BatchNorm3d, 3);
#undef LIBTORCH_MOCK_BATCHNORM
} // namespace nn
} // namespace torch
