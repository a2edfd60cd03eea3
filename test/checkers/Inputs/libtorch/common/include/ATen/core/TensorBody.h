#pragma once
#include <c10/core/TensorOptions.h>
#include <cstdint>
#include <vector>

namespace at {
using namespace c10;

class TensorBase {
public:
  bool defined() const;
  void reset();
  int64_t dim() const;
};

class Tensor : public TensorBase {
public:
  Tensor();
  Tensor &mutable_grad() const;
  const Tensor &grad() const;
  Tensor &zero_() const;
  Tensor &detach_() const;
  Tensor detach() const;
  Tensor sum() const;
  Tensor norm() const;
  Tensor &add_(const Tensor &Other) const;
  template <typename T> T item() const;
  Tensor to(TensorOptions Options = {}, bool NonBlocking = false,
            bool Copy = false) const;
  void backward(const Tensor &Gradient = {}, bool RetainGraph = false,
                bool CreateGraph = false) const;
};

Tensor operator+(const Tensor &A, const Tensor &B);
Tensor operator*(const Tensor &A, double B);

// A LibTorch-internal helper that zero-fills; checks never report here.
inline void clearGradsInPlace(std::vector<Tensor> &Params) {
  for (auto &P : Params)
    P.grad().zero_();
}
} // namespace at
