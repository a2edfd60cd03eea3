// Code that never mentions a CUDA device (no kCUDA, cuda(), torch::Device,
// "cuda" string) runs on the CPU, where item() waits for nothing: silent,
// unless CheckCpuOnlyCode is set.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2
// RUN: %check_torch_tidy --check-suffix=ALL %s torch-host-sync-in-loop %t.all -- \
// RUN:   -config="{CheckOptions: {torch-host-sync-in-loop.CheckCpuOnlyCode: true}}" -- %torch_mock_2

#include <torch/torch.h>

torch::Tensor computeLoss(const torch::Tensor &X);

void train(const std::vector<torch::Tensor> &Batches) {
  for (const auto &X : Batches) {
    float Loss = computeLoss(X).item<float>();
    // CHECK-MESSAGES-ALL: :[[@LINE-1]]:33: warning: 'item()' synchronizes the host with the device per iteration of the loop
    (void)Loss;
  }
}
