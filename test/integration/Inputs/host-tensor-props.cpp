// Tensors made on the host and moved: after torch-host-tensor-to-device's
// fixes they must keep their dtype, requires_grad and device.
#include <torch/torch.h>

#include <iostream>
#include <vector>

void report(const char *Name, const torch::Tensor &T) {
  std::cout << Name << " dtype=" << T.scalar_type()
            << " requires_grad=" << T.requires_grad()
            << " is_leaf=" << T.is_leaf()
            << " device_type=" << (T.is_cuda() ? "cuda" : "cpu") << " sizes=";
  for (int64_t Size : T.sizes())
    std::cout << Size << "x";
  std::cout << "\n";
}

// Called from the training loop in main: runs every step.
void step(torch::Device device, const torch::Tensor &pred) {
  report("randn", torch::randn({2, 3}).to(device));
  report("randint", torch::randint(10, {3}).to(device));
  report("zeros_double", torch::zeros({2}, torch::kDouble).to(device));
  report("requires_grad",
         torch::randn({2}, torch::dtype(torch::kFloat).requires_grad(true))
             .to(device));
  torch::TensorOptions opts =
      torch::TensorOptions().dtype(torch::kFloat64).requires_grad(true);
  report("merged_options", torch::ones({2}, opts).to(device));
  report("arange", torch::arange(5).to(device));
  report("tensor", torch::tensor({1.0, 2.0}).to(device));
  report("eye", torch::eye(3).to(device));
  report("full", torch::full({2}, 1.5).to(device));
  auto noise = torch::rand({4});
  report("via_variable", noise.to(device));
  // Chains: shape ops, dtype conversions, options and devices of tensors.
  int64_t n = 6;
  report("arange_view_float",
         torch::arange(n).view({2, -1}).to(torch::kFloat).to(device));
  report("ones_bool", torch::ones({3}).to(torch::kBool).to(device));
  report("randint_float", torch::randint(5, {4}).to(torch::kFloat).to(device));
  report("full_int", torch::full({2}, 7).to(torch::kInt).to(device));
  report("eye_repeat", torch::eye(2).unsqueeze(0).repeat({3, 1, 1}).to(device));
  report("zeros_other_device", torch::zeros({2}).t().to(pred.device()));
  auto pred_opts = pred.options();
  report("ones_options", torch::ones({2}).to(pred_opts));
  report("tensor_options", torch::tensor({1}).to(pred.options()));
  auto device_only = torch::TensorOptions().device(device);
  report("randint_device_options", torch::randint(5, {2}).to(device_only));
  // Host scalars made into device tensors.
  float f = 0.5f;
  double d = 0.25;
  int i = 3;
  int64_t l = 4;
  bool b = true;
  report("scalar_float", torch::tensor({f}, torch::TensorOptions().device(device)));
  report("scalar_double", torch::tensor({d}, torch::TensorOptions().device(device)));
  report("scalar_int", torch::tensor({i}, torch::TensorOptions().device(device)));
  report("scalar_long", torch::tensor({l}, torch::TensorOptions().device(device)));
  report("scalar_bool", torch::tensor({b}, torch::TensorOptions().device(device)));
  report("scalar_dtype",
         torch::tensor({i}, torch::TensorOptions().dtype(torch::kDouble).device(device)));
  // One value in braces, one scalar without: made on the device.
  report("tensor_one", torch::tensor({d}).to(device));
  report("host_scalar", torch::tensor(d).to(device));
  report("host_scalar_dtype", torch::tensor(i, torch::kDouble).to(device));
  // Computed from factories through ops that keep the device (no fix-it).
  torch::Tensor mask = torch::triu(torch::ones({3, 3}, torch::kInt), 1);
  mask = mask.unsqueeze(0).expand({2, -1, -1});
  report("triu_mask", mask.to(torch::kBool).to(device));
  auto rows = torch::arange(3, torch::dtype(torch::kInt)).unsqueeze(1);
  auto ones = torch::ones({1, 3}, torch::dtype(torch::kInt));
  auto coords = torch::matmul(rows, ones).to(torch::kFloat) / 2.0;
  coords = coords * 2 - 1;
  report("coords", coords.repeat({2, 1, 1}).to(device));
}

// A loss that keeps a host constant and moves it in every call.
struct WeightedLoss : torch::nn::Module {
  WeightedLoss() : weights(torch::tensor({1.0, 2.0, 3.0, 4.0})) {}
  torch::Tensor forward(const torch::Tensor &x) {
    return x * weights.to(x.device());
  }
  torch::Tensor weights;
};

// A window made by a helper on the host, kept as a member and moved through
// a parameter in every call.
torch::Tensor window(int64_t n) {
  torch::Tensor c = torch::arange(n, torch::kFloat);
  c -= n / 2;
  return torch::exp(-(c.pow(2)) / 2.0).unsqueeze(0);
}

torch::Tensor smooth(const torch::Tensor &x, const torch::Tensor &win) {
  return x + win.to(x.device(), x.scalar_type()).sum();
}

struct SmoothLoss : torch::nn::Module {
  SmoothLoss() { win = window(5).repeat({2, 1}); }
  torch::Tensor forward(const torch::Tensor &x) { return smooth(x, win); }
  torch::Tensor win;
};

// A blur kernel computed on the host in the constructor (square keeps the
// device) and moved in every call of the functor.
struct GaussBlur {
  GaussBlur() {
    auto s = torch::arange(5, torch::TensorOptions(torch::kFloat32))
                 .unsqueeze(1)
                 .expand({-1, 5});
    kernel = torch::exp(-(s.square() + s.transpose(0, 1).square()) / 2.0);
  }
  torch::Tensor operator()(const torch::Tensor &x) {
    return x + kernel.to(x.device()).sum();
  }
  torch::Tensor kernel;
};

// A shape probe called once before training: silent.
int64_t probe(torch::Device device) {
  return torch::zeros({1, 4}).to(device).numel();
}

int main() {
  // Valid on a CPU-only LibTorch too.
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  torch::Tensor pred = torch::zeros({1}, torch::TensorOptions(torch::kDouble).device(device));
  WeightedLoss loss;
  SmoothLoss smooth_loss;
  GaussBlur blur;
  int64_t size = probe(device);
  for (int epoch = 0; epoch < 1; ++epoch) {
    step(device, pred);
    report("loss", loss.forward(torch::ones({size}, torch::device(device))));
    report("smooth", smooth_loss.forward(torch::ones({size}, torch::device(device))));
    report("blur", blur(torch::ones({size}, torch::device(device))));
  }
  return 0;
}
