#pragma once
#include <torch/arg.h>
#include <torch/expanding_array.h>
#include <cstdint>

namespace torch {
namespace nn {
template <size_t D> struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels,
              ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels),
        kernel_size_(kernel_size) {}

  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

template <size_t D> struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels,
                       ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels),
        kernel_size_(kernel_size) {}

  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(bool, bias) = true;
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;
} // namespace nn
} // namespace torch
