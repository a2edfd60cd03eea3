#pragma once
// The pointwise functions and operators of ATen (ATen/ops/*.h and
// ATen/TensorOperators.h), with `double` for their `const Scalar &`.
#include <ATen/core/TensorBody.h>
#include <optional>
#include <string_view>

namespace at {
Tensor operator*(const Tensor &A, const Tensor &B);
Tensor operator*(double A, const Tensor &B);
Tensor operator+(double A, const Tensor &B);
Tensor operator+(const Tensor &A, double B);
Tensor operator-(const Tensor &A, const Tensor &B);
Tensor operator-(double A, const Tensor &B);
Tensor operator-(const Tensor &A);
Tensor operator/(const Tensor &A, const Tensor &B);
Tensor operator/(double A, const Tensor &B);

Tensor sigmoid(const Tensor &Self);
Tensor tanh(const Tensor &Self);
Tensor erf(const Tensor &Self);
Tensor exp(const Tensor &Self);
Tensor log(const Tensor &Self);
Tensor sqrt(const Tensor &Self);
Tensor rsqrt(const Tensor &Self);
Tensor log1p(const Tensor &Self);
Tensor expm1(const Tensor &Self);
Tensor pow(const Tensor &Self, double Exponent);
Tensor mul(const Tensor &Self, const Tensor &Other);
Tensor sum(const Tensor &Self, int64_t Dim, bool KeepDim = false);
Tensor logsumexp(const Tensor &Self, int64_t Dim, bool KeepDim = false);
Tensor softmax(const Tensor &Self, int64_t Dim,
               std::optional<ScalarType> Dtype = std::nullopt);
Tensor log_softmax(const Tensor &Self, int64_t Dim,
                   std::optional<ScalarType> Dtype = std::nullopt);
Tensor silu(const Tensor &Self);
Tensor gelu(const Tensor &Self, std::string_view Approximate = "none");
Tensor softplus(const Tensor &Self, double Beta = 1, double Threshold = 20);
Tensor log_sigmoid(const Tensor &Self);
Tensor hypot(const Tensor &Self, const Tensor &Other);
Tensor sum(const Tensor &Self, std::optional<ScalarType> Dtype = std::nullopt);
Tensor lerp(const Tensor &Self, const Tensor &End, double Weight);
Tensor lerp(const Tensor &Self, const Tensor &End, const Tensor &Weight);
Tensor addcmul(const Tensor &Self, const Tensor &Tensor1,
               const Tensor &Tensor2, double Value = 1);
Tensor addcdiv(const Tensor &Self, const Tensor &Tensor1,
               const Tensor &Tensor2, double Value = 1);
Tensor linalg_vector_norm(const Tensor &Self, double Ord = 2,
                          std::optional<int64_t> Dim = std::nullopt,
                          bool KeepDim = false);
// Mish came with LibTorch 1.9: a test defines this to stand for older ones.
#ifndef TORCH_MOCK_WITHOUT_MISH
Tensor mish(const Tensor &Self);
#endif

// LibTorch-internal code with a hand-written SiLU: checks never report here.
inline Tensor siluByHand(const Tensor &X) { return X * sigmoid(X); }
} // namespace at
