// RUN: %check_torch_tidy %s torch-unfused-pointwise %t -- -- %torch_mock_1_13
// RUN: %check_torch_tidy %s torch-unfused-pointwise %t.v2 -- -- %torch_mock_2
// The real-header tests (integration/unfused-pointwise-real*) run this input
// too: it uses only what the real headers declare.

#include <torch/torch.h>

#include <cmath>

// --- Positive ---------------------------------------------------------------

torch::Tensor siluFunction(const torch::Tensor &x) {
  return x * torch::sigmoid(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}  return torch::silu(x);{{$}}
}

torch::Tensor siluMethod(const torch::Tensor &h) {
  auto y = h.sigmoid() * h;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: SiLU written out in 2 kernels; 'torch::silu(h)' computes it in one
  // CHECK-FIXES: {{^}}  auto y = torch::silu(h);{{$}}
  return y;
}

torch::Tensor siluAt(const at::Tensor &x) {
  return at::sigmoid(x).mul(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: SiLU written out in 2 kernels; 'at::silu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return at::silu(x);{{$}}
}

torch::Tensor siluLocal(const torch::Tensor &x) {
  auto gate = torch::sigmoid(x);
  return x * gate;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-FIXES: {{^}}torch::Tensor siluLocal(const torch::Tensor &x) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::silu(x);{{$}}
}

torch::Tensor geluTanh(const torch::Tensor &x) {
  return 0.5 * x * (1 + torch::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * torch::pow(x, 3))));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tanh-approximated GELU written out in 8 kernels; 'torch::gelu(x, "tanh")' computes it in one
  // CHECK-FIXES: {{^}}  return torch::gelu(x, "tanh");{{$}}
}

torch::Tensor geluTanhExpanded(const torch::Tensor &x) {
  const double k = 0.7978845608;
  auto inner = k * x + k * 0.044715 * x * x * x;
  return x * (torch::tanh(inner) + 1.0) * 0.5;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tanh-approximated GELU written out in 9 kernels; 'torch::gelu(x, "tanh")' computes it in one
  // CHECK-FIXES: {{^}}  const double k = 0.7978845608;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::gelu(x, "tanh");{{$}}
}

torch::Tensor geluErf(const torch::Tensor &x) {
  return x * 0.5 * (1.0 + torch::erf(x / std::sqrt(2.0)));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: GELU written out in 5 kernels; 'torch::gelu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::gelu(x);{{$}}
}

torch::Tensor geluErfMethods(const torch::Tensor &x) {
  return x * (x * M_SQRT1_2).erf().add(1) / 2;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: GELU written out in 5 kernels; 'torch::gelu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::gelu(x);{{$}}
}

torch::Tensor softplus(const torch::Tensor &x) {
  return torch::log(1 + torch::exp(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softplus written out in 3 kernels; 'torch::softplus(x)' computes it in one, without overflow for large inputs
  // CHECK-FIXES: {{^}}  return torch::softplus(x);{{$}}
}

torch::Tensor softplusLog1p(const torch::Tensor &x) {
  return x.exp().log1p();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softplus written out in 2 kernels; 'torch::softplus(x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::softplus(x);{{$}}
}

torch::Tensor softmax(const torch::Tensor &logits) {
  return torch::exp(logits) / torch::exp(logits).sum(1, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softmax written out in 4 kernels; 'torch::softmax(logits, 1)' computes it in one, without overflow for large inputs
  // CHECK-FIXES: {{^}}  return torch::softmax(logits, 1);{{$}}
}

torch::Tensor softmaxLocal(const torch::Tensor &x) {
  auto e = torch::exp(x);
  auto p = e / e.sum(/*dim=*/-1, /*keepdim=*/true);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: softmax written out in 3 kernels; 'torch::softmax(x, -1)' computes it in one
  // CHECK-FIXES: {{^}}torch::Tensor softmaxLocal(const torch::Tensor &x) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto p = torch::softmax(x, -1);{{$}}
  return p;
}

torch::Tensor logSoftmax(const torch::Tensor &x) {
  return torch::log(torch::softmax(x, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log-softmax written out in 2 kernels; 'torch::log_softmax(x, 1)' computes it in one, and more accurately
  // CHECK-FIXES: {{^}}  return torch::log_softmax(x, 1);{{$}}
}

torch::Tensor logSoftmaxMethods(const torch::Tensor &x) {
  return x.softmax(-1).log();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log-softmax written out in 2 kernels; 'torch::log_softmax(x, -1)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::log_softmax(x, -1);{{$}}
}

torch::Tensor logSoftmaxOfFormula(const torch::Tensor &x) {
  return torch::log(torch::exp(x) / torch::exp(x).sum(1, true));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log-softmax written out in 5 kernels; 'torch::log_softmax(x, 1)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::log_softmax(x, 1);{{$}}
}

torch::Tensor logSumExp(const torch::Tensor &x) {
  return x - x.logsumexp(1, true);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log-softmax written out in 2 kernels; 'torch::log_softmax(x, 1)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::log_softmax(x, 1);{{$}}
}

torch::Tensor logSigmoid(const torch::Tensor &x) {
  return torch::log(torch::sigmoid(x));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log-sigmoid written out in 2 kernels; 'torch::log_sigmoid(x)' computes it in one, and more accurately
  // CHECK-FIXES: {{^}}  return torch::log_sigmoid(x);{{$}}
}

torch::Tensor rsqrt(const torch::Tensor &var) {
  return 1 / torch::sqrt(var + 1e-5);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: reciprocal square root written out in 2 kernels; 'torch::rsqrt(var + 1e-5)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::rsqrt(var + 1e-5);{{$}}
}

torch::Tensor log1p(const torch::Tensor &x) {
  return torch::log(x + 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log(1 + x) written out in 2 kernels; 'torch::log1p(x)' computes it in one, and accurately for small x
  // CHECK-FIXES: {{^}}  return torch::log1p(x);{{$}}
}

torch::Tensor log1pOfSquare(const torch::Tensor &x) {
  return torch::log(1 + x * x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log(1 + x) written out in 2 kernels; 'torch::log1p(x * x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::log1p(x * x);{{$}}
}

torch::Tensor expm1(const torch::Tensor &x) {
  return x.exp() - 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: exp(x) - 1 written out in 2 kernels; 'torch::expm1(x)' computes it in one, and accurately for small x
  // CHECK-FIXES: {{^}}  return torch::expm1(x);{{$}}
}

namespace nn {
using namespace torch;
// Unqualified calls: the fix names the namespace.
Tensor swish(const Tensor &x) {
  return x * sigmoid(x);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::silu(x);{{$}}
}
} // namespace nn

// --- Temporaries: a fix removes a local only when nothing names it ----------

// The softplus reads G through to see what the exp computes, but its fix
// names G: G stays, and gets the GELU's own fix.
torch::Tensor geluThenSoftplus(const torch::Tensor &H) {
  auto G = 0.5 * H * (1 + torch::tanh(0.7978845608 * (H + 0.044715 * torch::pow(H, 3))));
  return torch::log(1 + torch::exp(G));
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: tanh-approximated GELU written out in 8 kernels; 'torch::gelu(H, "tanh")' computes it in one
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: softplus written out in 3 kernels; 'torch::softplus(G)' computes it in one
  // CHECK-FIXES: {{^}}  auto G = torch::gelu(H, "tanh");{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::softplus(G);{{$}}
}

// log1p's operand is the local itself: it stays.
torch::Tensor log1pOfLocal(const torch::Tensor &a, const torch::Tensor &b) {
  auto t = a * b;
  return torch::log(1 + t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log(1 + x) written out in 2 kernels; 'torch::log1p(t)' computes it in one
  // CHECK-FIXES: {{^}}  auto t = a * b;{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::log1p(t);{{$}}
}

// An operand that is a formula itself is fused too: one --fix is enough.
torch::Tensor softplusOfSilu(const torch::Tensor &x) {
  return torch::log(1 + torch::exp(x * torch::sigmoid(x)));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softplus written out in 5 kernels; 'torch::softplus(torch::silu(x))' computes it in 2, without overflow for large inputs
  // CHECK-MESSAGES: :[[@LINE-2]]:36: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-FIXES: {{^}}  return torch::softplus(torch::silu(x));{{$}}
}

// The local holding the exp goes; its operand, a SiLU, is fused with it.
torch::Tensor softplusThroughExp(const torch::Tensor &x) {
  auto e = torch::exp(x * torch::sigmoid(x));
  return torch::log1p(e);
  // CHECK-MESSAGES: :[[@LINE-2]]:23: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: softplus written out in 4 kernels; 'torch::softplus(torch::silu(x))' computes it in 2
  // CHECK-FIXES: {{^}}torch::Tensor softplusThroughExp(const torch::Tensor &x) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::softplus(torch::silu(x));{{$}}
}

// The SiLU held in a local is the softplus's operand: the local stays, with
// its own fix.
torch::Tensor softplusOfSiluLocal(const torch::Tensor &x) {
  auto s = x * torch::sigmoid(x);
  return torch::log(1 + torch::exp(s));
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
  // CHECK-MESSAGES: :[[@LINE-2]]:10: warning: softplus written out in 3 kernels; 'torch::softplus(s)' computes it in one
  // CHECK-FIXES: {{^}}  auto s = torch::silu(x);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::softplus(s);{{$}}
}

// Read between its declaration and the formula (not changed): the local is
// still read through.
torch::Tensor readInBetween(const torch::Tensor &h) {
  auto s = torch::softmax(h, 0);
  auto t = torch::softmax(h, -1);
  auto y = torch::log(s);
  return y + t;
  // CHECK-MESSAGES: :[[@LINE-2]]:12: warning: log-softmax written out in 2 kernels; 'torch::log_softmax(h, 0)' computes it in one
  // CHECK-FIXES: {{^}}torch::Tensor readInBetween(const torch::Tensor &h) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto t = torch::softmax(h, -1);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto y = torch::log_softmax(h, 0);{{$}}
}

// Read through, the sum in u hides the product: u is the SiLU's operand.
torch::Tensor sumLocalInProduct(const torch::Tensor &x, const torch::Tensor &b) {
  const auto u = torch::exp(x + b) - 1;
  auto v = torch::sigmoid(b);
  return v + u.mul(u.sigmoid());
  // CHECK-MESSAGES: :[[@LINE-3]]:18: warning: exp(x) - 1 written out in 2 kernels; 'torch::expm1(x + b)' computes it in one
  // CHECK-MESSAGES: :[[@LINE-2]]:14: warning: SiLU written out in 2 kernels; 'torch::silu(u)' computes it in one
  // CHECK-FIXES: {{^}}  const auto u = torch::expm1(x + b);{{$}}
  // CHECK-FIXES: {{^}}  return v + torch::silu(u);{{$}}
}

// r is named twice in the SiLU, whose fix keeps one: the reciprocal square
// root in it is fused too, and r goes.
torch::Tensor usedTwiceInFormula(const torch::Tensor &x) {
  auto r = torch::sqrt(x);
  return (1 / r) * torch::sigmoid(1 / r);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: SiLU written out in 4 kernels; 'torch::silu(torch::rsqrt(x))' computes it in 2
  // CHECK-FIXES: {{^}}torch::Tensor usedTwiceInFormula(const torch::Tensor &x) {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::silu(torch::rsqrt(x));{{$}}
}

// Used again after the formula: not read through, and kept.
torch::Tensor expUsedAfter(const torch::Tensor &x) {
  auto e = torch::exp(x);
  auto y = torch::log(1 + e);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: log(1 + x) written out in 2 kernels; 'torch::log1p(e)' computes it in one
  // CHECK-FIXES: {{^}}  auto e = torch::exp(x);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  auto y = torch::log1p(e);{{$}}
  return y + e;
}

// In a loop and in a lambda.
torch::Tensor inLoopAndLambda(torch::Tensor x, int steps) {
  for (int i = 0; i < steps; ++i) {
    auto g = torch::sigmoid(x);
    x = x * g;
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: SiLU written out in 2 kernels; 'torch::silu(x)' computes it in one
    // CHECK-FIXES: {{^}}  for (int i = 0; i < steps; ++i) {{{$}}
    // CHECK-FIXES-NEXT: {{^}}    x = torch::silu(x);{{$}}
  }
  auto act = [](const torch::Tensor &h) {
    auto e = torch::exp(h);
    return e / e.sum(-1, true);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: softmax written out in 3 kernels; 'torch::softmax(h, -1)' computes it in one
    // CHECK-FIXES: {{^}}  auto act = [](const torch::Tensor &h) {{{$}}
    // CHECK-FIXES-NEXT: {{^}}    return torch::softmax(h, -1);{{$}}
  };
  return act(x);
}

// --- Negative ---------------------------------------------------------------

// A gate: two different tensors.
torch::Tensor gate(const torch::Tensor &a, const torch::Tensor &b) {
  return a * torch::sigmoid(b);
}

// Scalars: std:: math, not tensors.
double scalarSilu(double x) { return x / (1 + std::exp(-x)); }
double scalarSoftplus(double x) { return std::log(1 + std::exp(x)); }
double scalarGelu(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

// The intermediate is needed: the sigmoid and the exp are used elsewhere.
torch::Tensor sigmoidKept(const torch::Tensor &x, torch::Tensor &gateOut) {
  auto s = torch::sigmoid(x);
  gateOut = s;
  return x * s;
}
torch::Tensor expKept(const torch::Tensor &x) {
  auto e = torch::exp(x);
  auto p = e / e.sum(1, true);
  return p + e;
}

// The operand has side effects: it is not the same value twice.
torch::Tensor next();
torch::Tensor sideEffects() { return next() * torch::sigmoid(next()); }

// The operand changes between the local and its use.
torch::Tensor changed(torch::Tensor x) {
  auto s = torch::sigmoid(x);
  x = x * 2.0;
  return x * s;
}

// Not the formulas: other constants, no keepdim, other dimensions. (The
// sum of two products that are no SiLU is a multiply-add.)
torch::Tensor notFormulas(const torch::Tensor &x) {
  auto a = 2.0 * x * torch::sigmoid(x) + x * torch::sigmoid(2.0 * x);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: multiply-add written out in 2 kernels; 'torch::addcmul(2.0 * x * torch::sigmoid(x), x, torch::sigmoid(2.0 * x))' computes it in one
  // CHECK-FIXES: {{^}}  auto a = torch::addcmul(2.0 * x * torch::sigmoid(x), x, torch::sigmoid(2.0 * x));{{$}}
  auto b = 0.5 * x * (1 + torch::erf(x));
  auto c = torch::exp(x) / torch::exp(x).sum(1);
  auto d = torch::exp(x) / torch::exp(x).sum(0, true).sum(1, true);
  auto e = torch::log(2 + x) + torch::exp(x) - 2 + 3 / torch::sqrt(x);
  return a + b + c + d + e;
}

// exp(log_softmax(x, d)) is the softmax; sqrt(a^2 + b^2) of two tensors is
// hypot; a GELU's constant may be written as a scalar tensor.
torch::Tensor probabilities(const torch::Tensor &x) {
  return torch::exp(torch::log_softmax(x, 1));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: softmax as exp(log_softmax) written out in 2 kernels; 'torch::softmax(x, 1)' computes it in one [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}  return torch::softmax(x, 1);{{$}}
}
torch::Tensor magnitude(const torch::Tensor &gx, const torch::Tensor &gy) {
  return torch::sqrt(gx.pow(2) + gy * gy);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: hypotenuse sqrt(a^2 + b^2) written out in 4 kernels; 'torch::hypot(gx, gy)' computes it in one, without overflow for large inputs [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}  return torch::hypot(gx, gy);{{$}}
}
torch::Tensor geluWithTensorConstant(const torch::Tensor &x) {
  auto c = torch::sqrt(torch::tensor(2.0 / 3.14159265358979323846));
  return 0.5 * x * (1.0 + torch::tanh(c * (x + 0.044715 * torch::pow(x, 3))));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tanh-approximated GELU written out in {{[0-9]+}} kernels; 'torch::gelu(x, "tanh")' computes it in one [torch-unfused-pointwise]
  // CHECK-FIXES: {{^}}torch::Tensor geluWithTensorConstant(const torch::Tensor &x) {{[{]}}{{$}}
  // CHECK-FIXES-NEXT: {{^}}  return torch::gelu(x, "tanh");{{$}}
}

// Not these formulas: a constant under the root, one tensor twice, a
// log_softmax over a dtype, a scalar tensor alone.
torch::Tensor notTheseFormulas(const torch::Tensor &x, const torch::Tensor &y) {
  auto a = torch::sqrt(x.pow(2) + 1);
  auto b = torch::sqrt(x.pow(2) + x * x);
  auto c = torch::sqrt(x.pow(2) + y.pow(3));
  auto d = torch::sqrt(torch::tensor(2.0)) * x;
  auto e = torch::exp(torch::log(x));
  return a + b + c + d + e;
}

// log(softmax + eps): a log-softmax, reported without a fix-it (dropping the
// offset changes the value of probabilities below it), directly and through
// a local read elsewhere too. A large offset smooths on purpose: silent.
torch::Tensor logOfOffsetSoftmax(const torch::Tensor &x) {
  return torch::log(torch::softmax(x, 1) + 1e-7);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: log-softmax with an offset written out in {{[0-9]+}} kernels; 'torch::log_softmax(x, 1)' computes it in one, and more accurately [torch-unfused-pointwise]
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: no fix-it: dropping the offset inside the log changes the value where a probability is below it; if it only guards against log(0), log_softmax never computes that
  // CHECK-FIXES: {{^}}  return torch::log(torch::softmax(x, 1) + 1e-7);{{$}}
}
torch::Tensor offsetSoftmaxLocal(const torch::Tensor &x, const torch::Tensor &t) {
  auto p = torch::softmax(x, 1);
  auto lp = torch::log(p + 1e-7);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: log-softmax with an offset written out in {{[0-9]+}} kernels; 'torch::log_softmax(x, 1)' computes it in one
  // CHECK-MESSAGES: :[[@LINE-2]]:13: note: no fix-it: dropping the offset
  // CHECK-FIXES: {{^}}  auto lp = torch::log(p + 1e-7);{{$}}
  return -(t * lp).sum() + p.sum();
}
torch::Tensor logOfSmoothedSoftmax(const torch::Tensor &x) {
  return torch::log(torch::softmax(x, 1) + 0.1);
}
