#pragma once
#include <ATen/core/TensorBody.h>
#include <vector>
namespace torch {
namespace nn {
namespace utils {
inline double clip_grad_norm_(std::vector<at::Tensor> parameters,
                              double max_norm, double norm_type = 2.0,
                              bool error_if_nonfinite = false) {
  return 0;
}
} // namespace utils
} // namespace nn
} // namespace torch
