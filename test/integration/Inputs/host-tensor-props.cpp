// Tensors made on the host and moved: after torch-host-tensor-to-device's
// fixes they must keep their dtype, requires_grad and device.
#include <torch/torch.h>

#include <iostream>

void report(const char *Name, const torch::Tensor &T) {
  std::cout << Name << " dtype=" << T.scalar_type()
            << " requires_grad=" << T.requires_grad()
            << " is_leaf=" << T.is_leaf()
            << " device_type=" << (T.is_cuda() ? "cuda" : "cpu") << "\n";
}

int main() {
  // Valid on a CPU-only LibTorch too.
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
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
  return 0;
}
