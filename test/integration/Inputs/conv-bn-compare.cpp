// Builds each model before and after the fix, gives both the same weights,
// and shows what the fix changed: the parameter count drops by exactly the
// convolution biases, and the output in train mode stays the same.
#include <torch/torch.h>

#include <cstdio>

namespace before {
torch::nn::Sequential makeModel(int Which);
}
namespace after {
torch::nn::Sequential makeModel(int Which);
}

int main() {
  torch::manual_seed(0);
  int Failures = 0;
  for (int Which = 0; Which < 8; ++Which) {
    torch::nn::Sequential Before = before::makeModel(Which);
    torch::nn::Sequential After = after::makeModel(Which);
    int64_t CountBefore = 0, CountAfter = 0, ConvBias = 0;
    auto Params = Before->named_parameters();
    for (const auto &P : Params)
      CountBefore += P.value().numel();
    {
      torch::NoGradGuard NoGrad;
      for (auto &P : After->named_parameters()) {
        CountAfter += P.value().numel();
        P.value().copy_(Params[P.key()]);
      }
    }
    for (const auto &M : Before->modules())
      if (auto *Conv = M->as<torch::nn::Conv2dImpl>()) {
        if (Conv->bias.defined())
          ConvBias += Conv->bias.numel();
      } else if (auto *Up = M->as<torch::nn::ConvTranspose2dImpl>()) {
        if (Up->bias.defined())
          ConvBias += Up->bias.numel();
      }
    Before->train();
    After->train();
    torch::Tensor X = torch::randn({4, 3, 8, 8});
    double Diff =
        (Before->forward(X) - After->forward(X)).abs().max().item<double>();
    bool Same = Diff < 1e-4;
    Failures += !Same;
    std::printf("model %d: parameters %lld -> %lld, removed %lld, conv bias "
                "%lld; train-mode output max |difference| %.1e: %s\n",
                Which, static_cast<long long>(CountBefore),
                static_cast<long long>(CountAfter),
                static_cast<long long>(CountBefore - CountAfter),
                static_cast<long long>(ConvBias), Diff,
                Same ? "same" : "DIFFERENT");
  }
  return Failures;
}
