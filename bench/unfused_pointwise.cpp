// Measures what torch-unfused-pointwise's fixes buy: each hand-written
// formula the check reports against the fused ATen op its fix-it writes,
// side by side on the same tensor. The two variants run interleaved, A B A B,
// and are judged as the verifier judges them (torchtidy::judge): the median
// of the pair ratios with a 95% bootstrap interval, and the verdict. Also
// prints the largest difference between the two results (the fused ops round
// differently).
//
//   bench_unfused_pointwise [--rounds N] [--rows N] [--cols N] [--calls N]

#include "BenchOptions.h"
#include "BenchReport.h"
#include "Stats.h"
#include "Verdict.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using Fn = std::function<torch::Tensor(const torch::Tensor &)>;

struct Formula {
  const char *Name;
  Fn Unfused, Fused;
  /// The input the formula is defined on (positive for rsqrt).
  bool Positive = false;
};

/// \p Y, \p Z: the other tensors of the formulas of several (the same
/// shape as the input; Z positive).
std::vector<Formula> formulas(const torch::Tensor &Y, const torch::Tensor &Z) {
  const double K = std::sqrt(2.0 / M_PI);
  return {
      {"x * sigmoid(x) -> silu", [](const torch::Tensor &x) { return x * torch::sigmoid(x); },
       [](const torch::Tensor &x) { return torch::silu(x); }},
      {"erf GELU -> gelu",
       [](const torch::Tensor &x) {
         return 0.5 * x * (1 + torch::erf(x / std::sqrt(2.0)));
       },
       [](const torch::Tensor &x) { return torch::gelu(x); }},
      {"tanh GELU -> gelu(tanh)",
       [K](const torch::Tensor &x) {
         return 0.5 * x * (1 + torch::tanh(K * (x + 0.044715 * torch::pow(x, 3))));
       },
       [](const torch::Tensor &x) { return torch::gelu(x, "tanh"); }},
      {"log(1 + exp(x)) -> softplus",
       [](const torch::Tensor &x) { return torch::log(1 + torch::exp(x)); },
       [](const torch::Tensor &x) { return torch::softplus(x); }},
      {"exp / sum(exp) -> softmax",
       [](const torch::Tensor &x) {
         return torch::exp(x) / torch::exp(x).sum(1, true);
       },
       [](const torch::Tensor &x) { return torch::softmax(x, 1); }},
      {"log(softmax) -> log_softmax",
       [](const torch::Tensor &x) { return torch::log(torch::softmax(x, 1)); },
       [](const torch::Tensor &x) { return torch::log_softmax(x, 1); }},
      {"x - logsumexp -> log_softmax",
       [](const torch::Tensor &x) { return x - x.logsumexp(1, true); },
       [](const torch::Tensor &x) { return torch::log_softmax(x, 1); }},
      {"log(sigmoid(x)) -> log_sigmoid",
       [](const torch::Tensor &x) { return torch::log(torch::sigmoid(x)); },
       [](const torch::Tensor &x) { return torch::log_sigmoid(x); }},
      {"1 / sqrt(x) -> rsqrt",
       [](const torch::Tensor &x) { return 1 / torch::sqrt(x); },
       [](const torch::Tensor &x) { return torch::rsqrt(x); }, true},
      {"log(1 + x) -> log1p",
       [](const torch::Tensor &x) { return torch::log(1 + x); },
       [](const torch::Tensor &x) { return torch::log1p(x); }, true},
      {"exp(x) - 1 -> expm1",
       [](const torch::Tensor &x) { return torch::exp(x) - 1; },
       [](const torch::Tensor &x) { return torch::expm1(x); }},
      {"x * tanh(softplus(x)) -> mish",
       [](const torch::Tensor &x) {
         return x * torch::tanh(torch::softplus(x));
       },
       [](const torch::Tensor &x) { return torch::mish(x); }},
      {"sqrt(sum(x * x)) -> vector_norm",
       [](const torch::Tensor &x) { return torch::sqrt(torch::sum(x * x)); },
       [](const torch::Tensor &x) { return torch::linalg_vector_norm(x); }},
      {"row sqrt(sum(x^2)) -> vector_norm",
       [](const torch::Tensor &x) { return x.pow(2).sum(1, true).sqrt(); },
       [](const torch::Tensor &x) {
         return torch::linalg_vector_norm(x, 2, 1, true);
       }},
      {"x + (y - x) * z -> lerp",
       [Y, Z](const torch::Tensor &x) { return x + (Y - x) * Z; },
       [Y, Z](const torch::Tensor &x) { return torch::lerp(x, Y, Z); }},
      {"0.99 x + 0.01 y -> lerp",
       [Y](const torch::Tensor &x) { return 0.99 * x + 0.01 * Y; },
       [Y](const torch::Tensor &x) { return torch::lerp(x, Y, 0.01); }},
      {"x + 0.5 * y * z -> addcmul",
       [Y, Z](const torch::Tensor &x) { return x + 0.5 * Y * Z; },
       [Y, Z](const torch::Tensor &x) {
         return torch::addcmul(x, Y, Z, 0.5);
       }},
      {"x - 0.1 * y / z -> addcdiv",
       [Y, Z](const torch::Tensor &x) { return x - 0.1 * Y / Z; },
       [Y, Z](const torch::Tensor &x) {
         return torch::addcdiv(x, Y, Z, -0.1);
       }},
  };
}

void sync(const torch::Device &D) {
  if (D.is_cuda())
    torch::cuda::synchronize();
}

/// Microseconds per call of \p F, over \p Calls calls.
double timeCalls(const Fn &F, const torch::Tensor &X, int Calls,
                 const torch::Device &D) {
  sync(D);
  auto Start = std::chrono::steady_clock::now();
  for (int I = 0; I < Calls; ++I)
    F(X);
  sync(D);
  std::chrono::duration<double, std::micro> T =
      std::chrono::steady_clock::now() - Start;
  return T.count() / Calls;
}

void measure(const Formula &F, const torch::Tensor &Input, int Rounds,
             int Calls, const torch::Device &D) {
  torch::NoGradGuard NoGrad;
  torch::Tensor X = F.Positive ? Input.abs() + 0.1 : Input;
  double Diff =
      (F.Unfused(X) - F.Fused(X)).abs().max().to(torch::kCPU).item<double>();
  timeCalls(F.Unfused, X, Calls, D); // warm-up
  timeCalls(F.Fused, X, Calls, D);
  std::vector<double> Before, After;
  for (int R = 0; R < Rounds; ++R) {
    Before.push_back(timeCalls(F.Unfused, X, Calls, D));
    After.push_back(timeCalls(F.Fused, X, Calls, D));
  }
  torchtidy::Judgement J = torchtidy::judge(Before, After);
  std::printf("%-32s %10.1f %10.1f %7.2fx (%5.2f .. %5.2f) %-9s %.2g\n",
              F.Name, torchtidy::median(Before), torchtidy::median(After),
              J.Speedup.Point, J.Speedup.Low, J.Speedup.High,
              torchtidy::verdictName(J.Decision), Diff);
}

} // namespace

int main(int argc, char **argv) {
  int Rounds = 20, Rows = 256, Cols = 4096, Calls = 20;
  if (!torchtidy::parseBenchOptions(argc, argv,
                                    {{"--rounds", &Rounds},
                                     {"--rows", &Rows},
                                     {"--cols", &Cols},
                                     {"--calls", &Calls}}))
    return 2;
  torch::Device D(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  torch::manual_seed(0);
  torch::Tensor X = torch::randn({Rows, Cols}, torch::TensorOptions(D));
  std::printf("device: %s, LibTorch %s, threads %d, input %d x %d float, "
              "%d rounds x %d calls, interleaved\n",
              D.is_cuda() ? "cuda" : "cpu", TORCH_VERSION,
              torch::get_num_threads(), Rows, Cols, Rounds, Calls);
  std::printf("%-32s %10s %10s %s\n", "formula -> fused op", "unfused us",
              "fused us", "speedup (95% CI)   verdict   max |diff|");
  torch::Tensor Y = torch::randn({Rows, Cols}, torch::TensorOptions(D));
  torch::Tensor Z = torch::rand({Rows, Cols}, torch::TensorOptions(D)) + 0.1;
  for (const Formula &F : formulas(Y, Z))
    measure(F, X, Rounds, Calls, D);
  return 0;
}
