#include <torch/torch.h>

#include <cmath>

// One statement per formula of torch-unfused-pointwise, on a tensor whose
// shape the verifier is given (--shape x=...): each fix is measured.
void activations(torch::Tensor x) {
  auto silu = x * torch::sigmoid(x);
  auto gelu = 0.5 * x * (1 + torch::erf(x / std::sqrt(2.0)));
  auto geluTanh = 0.5 * x * (1 + torch::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * torch::pow(x, 3))));
  auto softplus = torch::log(1 + torch::exp(x));
  auto softmax = torch::exp(x) / torch::exp(x).sum(1, true);
  auto logSoftmax = torch::log(torch::softmax(x, 1));
  auto logSumExp = x - x.logsumexp(1, true);
  auto logSigmoid = torch::log(torch::sigmoid(x));
  auto rsqrt = 1 / torch::sqrt(x * x + 1e-5);
  auto log1p = torch::log(1 + x * x);
  auto expm1 = x.exp() - 1;
}
