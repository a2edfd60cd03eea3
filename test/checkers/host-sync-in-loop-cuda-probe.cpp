// A whole program that asks whether CUDA is there, notes it in a device
// variable, then runs on the CPU anyway: the variable is only assigned, never
// read, so nothing reaches a GPU and the syncs wait for nothing. The same
// program handing the variable to its training reads it: reported.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2
// RUN: %check_torch_tidy --check-suffix=USED %s torch-host-sync-in-loop %t.used -- -- %torch_mock_2 -DUSE_DEVICE
// The real headers run it too: integration/host-sync-in-loop-cuda-probe-real.test.

#include <torch/torch.h>

#include <iostream>
#include <vector>

torch::Tensor computeLoss(const torch::Tensor &X) { return X.sum(); }

float train(const std::vector<torch::Tensor> &Batches,
            torch::Device D = torch::kCPU) {
  float Total = 0;
  for (const auto &X : Batches)
    Total += computeLoss(X.to(D)).item<float>();
  // CHECK-MESSAGES-USED: :[[@LINE-1]]:35: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  return Total;
}

int main() {
#ifdef REAL_HEADERS
  // Seeding CUDA's generator puts nothing there either.
  torch::cuda::manual_seed_all(0);
#endif
  auto Device = torch::kCPU;
  if (torch::cuda::is_available()) {
    std::cout << "CUDA is available\n";
    Device = torch::kCUDA;
  }
  Device = torch::kCPU;
  std::vector<torch::Tensor> Batches{torch::randn({4, 4})};
#ifdef USE_DEVICE
  return static_cast<int>(train(Batches, Device));
#else
  return static_cast<int>(train(Batches));
#endif
}
