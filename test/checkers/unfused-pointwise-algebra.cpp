// RUN: %check_torch_tidy %s torch-unfused-pointwise %t -- -- %torch_mock_1_13
// RUN: %check_torch_tidy %s torch-unfused-pointwise %t.v2 -- -- %torch_mock_2
// A LibTorch without at::mish (before 1.9): Mish is not reported (the
// hand-written softplus inside it is compiled out there).
// RUN: %check_torch_tidy --drop-checks='Mish|softplus written' %s torch-unfused-pointwise %t.old -- -- %torch_mock_1_13 -DTORCH_MOCK_WITHOUT_MISH
// The real-header tests (integration/unfused-pointwise-real*) run this input
// too: it uses only what the real headers declare.
//
// The fused ops that are an identity of the algebra rather than an
// activation: lerp, addcmul, addcdiv, the 2-norm, and Mish.

#include <torch/torch.h>

// --- Linear interpolation ---------------------------------------------------

torch::Tensor lerpTensorWeight(const torch::Tensor &a, const torch::Tensor &b,
                               const torch::Tensor &w) {
  return a + (b - a) * w;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: linear interpolation written out in 3 kernels; 'torch::lerp(a, b, w)' computes it in one [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}  return torch::lerp(a, b, w);{{$}}
}

torch::Tensor lerpScalarWeight(const torch::Tensor &start,
                               const torch::Tensor &end, double weight) {
  return start + weight * (end - start);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: linear interpolation written out in 3 kernels; 'torch::lerp(start, end, weight)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::lerp(start, end, weight);{{$}}
}

// The same identity, grouped another way.
torch::Tensor lerpComplement(const torch::Tensor &a, const torch::Tensor &b,
                             double t) {
  return (1 - t) * a + t * b;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: linear interpolation written out in 3 kernels; 'torch::lerp(a, b, t)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::lerp(a, b, t);{{$}}
}

// A soft target update, once per parameter per step.
void softUpdate(std::vector<torch::Tensor> &target,
                const std::vector<torch::Tensor> &online, double tau) {
  for (size_t i = 0; i < target.size(); ++i)
    target[i].copy_(tau * online[i] + (1 - tau) * target[i]);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: linear interpolation written out in 3 kernels; 'torch::lerp(target[i], online[i], tau)' computes it in one
  // CHECK-FIXES: {{^}}    target[i].copy_(torch::lerp(target[i], online[i], tau));{{$}}
}

// The same through data(), as target networks are written: data() is a view
// without side effects, the same value each time it is read.
void softUpdateData(std::vector<torch::Tensor> &target,
                    const std::vector<torch::Tensor> &online, float tau) {
  for (size_t i = 0; i < target.size(); ++i)
    target[i].data().copy_(target[i].data() * (1.0 - tau) + online[i].data() * tau);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: linear interpolation written out in 3 kernels; 'torch::lerp(target[i].data(), online[i].data(), tau)' computes it in one
  // CHECK-FIXES: {{^}}    target[i].data().copy_(torch::lerp(target[i].data(), online[i].data(), tau));{{$}}
}

// Constant weights that add up to 1, the result replacing one of the two:
// a moving average.
torch::Tensor movingAverage(const std::vector<torch::Tensor> &batches) {
  torch::Tensor ema = batches[0];
  for (const auto &x : batches)
    ema = 0.99 * ema + 0.01 * x;
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: linear interpolation written out in 3 kernels; 'torch::lerp(ema, x, 0.01)' computes it in one
  // CHECK-FIXES: {{^}}    ema = torch::lerp(ema, x, 0.01);{{$}}
  return ema;
}

// --- Multiply-add and divide-add --------------------------------------------

torch::Tensor multiplyAdd(const torch::Tensor &x, const torch::Tensor &y,
                          const torch::Tensor &z) {
  return x + y * z;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: multiply-add written out in 2 kernels; 'torch::addcmul(x, y, z)' computes it in one [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}  return torch::addcmul(x, y, z);{{$}}
}

torch::Tensor multiplySubtract(torch::Tensor h, const torch::Tensor &g,
                               const torch::Tensor &m, double lr) {
  h = h - lr * g * m;
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: multiply-add written out in 3 kernels; 'torch::addcmul(h, g, m, -lr)' computes it in one
  // CHECK-FIXES: {{^}}  h = torch::addcmul(h, g, m, -lr);{{$}}
  return h;
}

torch::Tensor multiplyAddHalf(const torch::Tensor &a, const torch::Tensor &b,
                              const torch::Tensor &c) {
  return b * c * 0.5 + a;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: multiply-add written out in 3 kernels; 'torch::addcmul(a, b, c, 0.5)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::addcmul(a, b, c, 0.5);{{$}}
}

// An Adam step: the denominator is copied as it is.
torch::Tensor adamStep(const torch::Tensor &p, const torch::Tensor &m,
                       const torch::Tensor &v, double lr, double eps) {
  return p - lr * m / (torch::sqrt(v) + eps);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: divide-add written out in 3 kernels; 'torch::addcdiv(p, m, torch::sqrt(v) + eps, -lr)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::addcdiv(p, m, torch::sqrt(v) + eps, -lr);{{$}}
}

// --- The 2-norm ---------------------------------------------------------------

torch::Tensor norm(const torch::Tensor &x) {
  return torch::sqrt(torch::sum(x * x));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 2-norm written out in 3 kernels; 'torch::linalg_vector_norm(x)' computes it in one [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}  return torch::linalg_vector_norm(x);{{$}}
}

torch::Tensor rowNorms(const torch::Tensor &x) {
  return x.pow(2).sum(1, true).sqrt();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 2-norm written out in 3 kernels; 'torch::linalg_vector_norm(x, 2, 1, true)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::linalg_vector_norm(x, 2, 1, true);{{$}}
}

// --- Mish ---------------------------------------------------------------------

torch::Tensor mish(const torch::Tensor &x) {
  return x * torch::tanh(torch::softplus(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: Mish written out in 3 kernels; 'torch::mish(x)' computes it in one [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}  return torch::mish(x);{{$}}
}

#ifndef TORCH_MOCK_WITHOUT_MISH
// The softplus written out too: reported on its own, its fix inside Mish's.
torch::Tensor mishByHand(const torch::Tensor &x) {
  return x * torch::tanh(torch::log1p(torch::exp(x)));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: Mish written out in 4 kernels; 'torch::mish(x)' computes it in one
  // CHECK-MESSAGES: :[[@LINE-2]]:26: warning: softplus written out in 2 kernels; 'torch::softplus(x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::mish(x);{{$}}
}

// A chain of locals, each used only by the next, is read through; both
// declarations go.
torch::Tensor mishThroughLocals(const torch::Tensor &x) {
  auto e = torch::exp(x);
  auto t = torch::tanh(torch::log1p(e));
  return x * t;
  // CHECK-MESSAGES: :[[@LINE-2]]:24: warning: softplus written out in 2 kernels; 'torch::softplus(x)' computes it in one
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: Mish written out in 4 kernels; 'torch::mish(x)' computes it in one
  // CHECK-FIXES: {{^}}torch::Tensor mishThroughLocals(const torch::Tensor &x) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::mish(x);{{$}}
}
#endif

// --- Formulas inside formulas -------------------------------------------------

// A part that is a formula of its own is read as its fused op, and the fix
// copies it fused: one --fix leaves nothing for a second.
torch::Tensor stepOfSilu(const torch::Tensor &y0, const torch::Tensor &bias,
                         const torch::Tensor &x, const torch::Tensor &d) {
  return y0 + (bias - 0.1 * (x * torch::sigmoid(x)) / d);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: divide-add written out in 5 kernels; 'torch::addcdiv(bias, torch::silu(x), d, -0.1)' computes it in 2
  // CHECK-MESSAGES: :[[@LINE-2]]:30: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return y0 + (torch::addcdiv(bias, torch::silu(x), d, -0.1));{{$}}
}

torch::Tensor lerpOfSilu(const torch::Tensor &a, const torch::Tensor &x,
                         double w) {
  return a + w * (x * torch::sigmoid(x) - a);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: linear interpolation written out in 5 kernels; 'torch::lerp(a, torch::silu(x), w)' computes it in 2
  // CHECK-MESSAGES: :[[@LINE-2]]:19: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::lerp(a, torch::silu(x), w);{{$}}
}

// --- Negative -----------------------------------------------------------------

// A weighted sum of two losses is not a value moved toward another.
torch::Tensor mixedLoss(const torch::Tensor &ce, const torch::Tensor &dice) {
  return 0.7 * ce + 0.3 * dice;
}

// One tensor times a scalar: add's alpha, not a product of two tensors.
torch::Tensor scaledAdd(const torch::Tensor &a, const torch::Tensor &b) {
  return a + 0.5 * b;
}

// A product that is a formula of its own is reported as that.
torch::Tensor residualSilu(const torch::Tensor &h, const torch::Tensor &x) {
  return h + x * torch::sigmoid(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return h + torch::silu(x);{{$}}
}

torch::Tensor next();

// A weight that may differ each time it is read is no lerp's (the identity
// may read it twice); the product is still a multiply-add, the call made
// once as written.
torch::Tensor lerpOfCall(const torch::Tensor &a, const torch::Tensor &b) {
  return a + (b - a) * next();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: multiply-add written out in 2 kernels; 'torch::addcmul(a, b - a, next())' computes it in one
  // CHECK-FIXES: {{^}}  return torch::addcmul(a, b - a, next());{{$}}
}

// Two different tensors: neither a norm nor Mish.
torch::Tensor notNorm(const torch::Tensor &x, const torch::Tensor &y) {
  return torch::sqrt(torch::sum(x * y));
}

torch::Tensor notMish(const torch::Tensor &x, const torch::Tensor &y) {
  return x * torch::tanh(torch::softplus(y));
}

// A division by a scalar is no addcdiv.
torch::Tensor meanStep(const torch::Tensor &a, const torch::Tensor &b, int n) {
  return a + b / n;
}
