#pragma once
#include <c10/core/TensorOptions.h>
#include <c10/util/Exception.h>
#include <cstdint>
#include <vector>

namespace at {
using namespace c10;

class TensorBase {
public:
  bool defined() const;
  void reset();
  int64_t dim() const;
  int64_t numel() const;
  void *data_ptr() const;
  template <typename T> T *data_ptr() const;
  Device device() const;
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
  Tensor mean() const;
  Tensor norm() const;
  Tensor argmax(int64_t Dim) const;
  Tensor view(std::vector<int64_t> Sizes) const;
  Tensor reshape(std::vector<int64_t> Shape) const;
  Tensor repeat(std::vector<int64_t> Repeats) const;
  Tensor expand(std::vector<int64_t> Size, bool Implicit = false) const;
  Tensor unsqueeze(int64_t Dim) const;
  Tensor t() const;
  Tensor permute(std::vector<int64_t> Dims) const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor flatten(int64_t StartDim = 0, int64_t EndDim = -1) const;
  Tensor squeeze() const;
  Tensor transpose(int64_t Dim0, int64_t Dim1) const;
  Tensor mul(double Other) const;
  Tensor eq(const Tensor &Other) const;
  Tensor &add_(const Tensor &Other) const;
  Tensor operator[](int64_t Index) const;
  template <typename T> T item() const;
  Scalar item() const;
  Tensor cpu() const;
  Tensor cuda() const;
  Tensor pin_memory() const;
  Tensor to(TensorOptions Options = {}, bool NonBlocking = false,
            bool Copy = false) const;
  Tensor to(Device D, ScalarType Type, bool NonBlocking = false,
            bool Copy = false) const;
  Tensor to(ScalarType Type, bool NonBlocking = false, bool Copy = false) const;
  Tensor to(const Tensor &Other, bool NonBlocking = false,
            bool Copy = false) const;
  Tensor nonzero() const;
  Tensor masked_select(const Tensor &Mask) const;
  bool is_nonzero() const;
  bool equal(const Tensor &Other) const;
  bool allclose(const Tensor &Other, double RTol = 1e-05,
                double ATol = 1e-08) const;
  TensorOptions options() const;
  void backward(const Tensor &Gradient = {}, bool RetainGraph = false,
                bool CreateGraph = false) const;
};

Tensor operator+(const Tensor &A, const Tensor &B);
Tensor operator*(const Tensor &A, double B);
Tensor operator>(const Tensor &A, double B);
Tensor nonzero(const Tensor &Self);
bool equal(const Tensor &Self, const Tensor &Other);
Tensor isnan(const Tensor &Self);

// A LibTorch-internal helper that zero-fills; checks never report here.
inline void clearGradsInPlace(std::vector<Tensor> &Params) {
  for (auto &P : Params)
    P.grad().zero_();
}

// LibTorch-internal code that syncs in a loop; checks never report here.
inline float sumOfItems(const std::vector<Tensor> &Values) {
  float Sum = 0;
  for (const auto &V : Values)
    Sum += V.item<float>();
  return Sum;
}
} // namespace at
