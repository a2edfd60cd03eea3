#pragma once
#include <c10/core/TensorOptions.h>
#include <c10/util/Exception.h>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <tuple>
#include <vector>

namespace at {
using namespace c10;
namespace indexing {
struct TensorIndex;
} // namespace indexing

class TensorBase {
public:
  bool defined() const;
  void reset();
  int64_t dim() const;
  int64_t numel() const;
  int64_t size(int64_t dim) const;
  void *data_ptr() const;
  template <typename T> T *data_ptr() const;
  Device device() const;
  caffe2::TypeMeta dtype() const;
};

class Tensor : public TensorBase {
public:
  Tensor();
  Tensor &mutable_grad() const;
  const Tensor &grad() const;
  Tensor &zero_() const;
  Tensor &detach_() const;
  Tensor detach() const;
  Tensor data() const;
  Tensor sum() const;
  Tensor mean() const;
  Tensor norm() const;
  Tensor argmax(int64_t Dim) const;
  std::tuple<Tensor, Tensor> max(int64_t Dim, bool KeepDim = false) const;
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
  Tensor square() const;
  // Pointwise math and the reductions of softmax (torch-unfused-pointwise).
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor erf() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor pow(double Exponent) const;
  Tensor mul(const Tensor &Other) const;
  Tensor div(double Other) const;
  Tensor add(double Other, double Alpha = 1) const;
  Tensor sum(int64_t Dim, bool KeepDim = false) const;
  Tensor logsumexp(int64_t Dim, bool KeepDim = false) const;
  Tensor softmax(int64_t Dim,
                 std::optional<ScalarType> Dtype = std::nullopt) const;
  Tensor log_softmax(int64_t Dim,
                     std::optional<ScalarType> Dtype = std::nullopt) const;
  Tensor half() const;
  Tensor bfloat16() const;
  Tensor eq(const Tensor &Other) const;
  Tensor &add_(const Tensor &Other) const;
  Tensor &copy_(const Tensor &Src, bool NonBlocking = false) const;
  Tensor &operator-=(double Other) const;
  Tensor operator[](int64_t Index) const;
  Tensor operator[](Tensor Index) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> Indices) const;
  Tensor index_select(int64_t Dim, const Tensor &Index) const;
  Tensor bincount(const std::optional<Tensor> &Weights = {},
                  int64_t MinLength = 0) const;
  Tensor repeat_interleave(const Tensor &Repeats,
                           std::optional<int64_t> Dim = std::nullopt,
                           std::optional<int64_t> OutputSize = std::nullopt) const;
  Tensor repeat_interleave(int64_t Repeats,
                           std::optional<int64_t> Dim = std::nullopt,
                           std::optional<int64_t> OutputSize = std::nullopt) const;
  Tensor gt(double Other) const;
  Tensor logical_and(const Tensor &Other) const;
  Tensor to(caffe2::TypeMeta TypeMeta, bool NonBlocking = false,
            bool Copy = false) const;
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
                bool CreateGraph = false) const;  const Tensor &requires_grad_(bool RequiresGrad = true) const;
};

Tensor operator+(const Tensor &A, const Tensor &B);
Tensor operator*(const Tensor &A, double B);
Tensor operator>(const Tensor &A, double B);
Tensor operator<(const Tensor &A, double B);
Tensor operator&(const Tensor &A, const Tensor &B);
Tensor operator-(const Tensor &A, double B);
Tensor operator/(const Tensor &A, double B);
Tensor triu(const Tensor &Self, int64_t Diagonal = 0);
Tensor matmul(const Tensor &Self, const Tensor &Other);
Tensor logical_not(const Tensor &Self);
Tensor bincount(const Tensor &Self, const std::optional<Tensor> &Weights = {},
                int64_t MinLength = 0);
Tensor repeat_interleave(const Tensor &Repeats,
                         std::optional<int64_t> OutputSize = std::nullopt);
Tensor repeat_interleave(const Tensor &Self, const Tensor &Repeats,
                         std::optional<int64_t> Dim = std::nullopt,
                         std::optional<int64_t> OutputSize = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor &Self,
                                            bool Sorted = true,
                                            bool ReturnInverse = false,
                                            bool ReturnCounts = false);
Tensor randperm(int64_t N, TensorOptions Options = kLong);

namespace indexing {
struct Slice {
  Slice(std::optional<int64_t> Start = std::nullopt,
        std::optional<int64_t> Stop = std::nullopt,
        std::optional<int64_t> Step = std::nullopt);
};
struct TensorIndex {
  TensorIndex(int64_t Integer);
  TensorIndex(int Integer);
  TensorIndex(Slice S);
  TensorIndex(Tensor T);
};
} // namespace indexing
Tensor nonzero(const Tensor &Self);
Tensor multinomial(const Tensor &Self, int64_t NumSamples,
                   bool Replacement = false);
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
