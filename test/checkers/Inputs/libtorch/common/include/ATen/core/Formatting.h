#pragma once
#include <ATen/core/TensorBody.h>
#include <ostream>

namespace at {
static inline std::ostream &operator<<(std::ostream &Out, const Tensor &T) {
  return Out;
}
void print(const Tensor &T, int64_t Linesize = 80);
} // namespace at
