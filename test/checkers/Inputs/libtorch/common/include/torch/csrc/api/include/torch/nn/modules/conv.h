#pragma once
#include <torch/nn/module.h>
#include <torch/nn/options/conv.h>
#include <torch/nn/pimpl.h>

namespace torch {
namespace nn {
template <size_t D, typename Derived> class ConvNdImpl : public Module {
public:
  at::Tensor weight;
  at::Tensor bias;
};

#define LIBTORCH_MOCK_CONV(Name, Options, D)                                   \
  class Name##Impl : public ConvNdImpl<D, Name##Impl> {                        \
  public:                                                                      \
    Name##Impl(int64_t input_channels, int64_t output_channels,                \
               ExpandingArray<D> kernel_size)                                  \
        : Name##Impl(                                                          \
              Options(input_channels, output_channels, kernel_size)) {}        \
    explicit Name##Impl(Options options_);                                     \
    at::Tensor forward(const at::Tensor &input);                               \
  };                                                                           \
  TORCH_MODULE(Name)

LIBTORCH_MOCK_CONV(Conv1d, Conv1dOptions, 1);
LIBTORCH_MOCK_CONV(Conv2d, Conv2dOptions, 2);
LIBTORCH_MOCK_CONV(Conv3d, Conv3dOptions, 3);
LIBTORCH_MOCK_CONV(ConvTranspose1d, ConvTranspose1dOptions, 1);
LIBTORCH_MOCK_CONV(ConvTranspose2d, ConvTranspose2dOptions, 2);
LIBTORCH_MOCK_CONV(ConvTranspose3d, ConvTranspose3dOptions, 3);
#undef LIBTORCH_MOCK_CONV
} // namespace nn
} // namespace torch
