// A dtype conversion keeps the device: it is no copy to the CPU.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t.v1 -- -- %torch_mock_1_13

#include <torch/torch.h>

#include <vector>

using torch::Tensor;

void negativeDtypeConversions(const std::vector<Tensor> &Batches,
                              const Tensor &Reference) {
  for (const auto &X : Batches) {
    Tensor A = X.to(Reference.dtype());
    Tensor B = X.to(Reference.dtype(), /*NonBlocking=*/false, /*Copy=*/true);
    Tensor C = X.to(torch::kDouble, /*NonBlocking=*/true);
    Tensor D = X.to(torch::dtype(torch::kFloat));
    Tensor E = X.to(torch::TensorOptions().dtype(torch::kInt));
    Tensor F = X.to(torch::dtype(torch::kFloat).requires_grad(false));
    (void)A, (void)B, (void)C, (void)D, (void)E, (void)F;
  }
}

void positiveConversionsThatNameTheCpu(const std::vector<Tensor> &Batches,
                                       std::vector<Tensor> &Host) {
  for (const auto &X : Batches) {
    Host.push_back(X.to(torch::dtype(torch::kFloat).device(torch::kCPU)));
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; keep the data on the device, or copy it once after the loop [torch-host-sync-in-loop]
    Host.push_back(X.to(torch::kCPU, torch::kFloat));
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: copying a tensor to the CPU synchronizes
  }
}

void positiveItemAfterADtypeConversion(const std::vector<Tensor> &Batches,
                                       const Tensor &Reference, float &Sum) {
  for (const auto &X : Batches) {
    // The conversion keeps the tensor on its device: item() still syncs.
    Sum += X.to(Reference.dtype()).sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
}

// This file runs on the GPU.
static const torch::Device Gpu(torch::kCUDA);
