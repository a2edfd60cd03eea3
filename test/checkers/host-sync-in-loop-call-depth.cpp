// MaxCallDepth bounds how deep calls from a loop are followed.
// RUN: %check_torch_tidy --check-suffix=DEFAULT %s torch-host-sync-in-loop %t -- -- %torch_mock_2
// RUN: %check_torch_tidy --check-suffix=ONE %s torch-host-sync-in-loop %t.one -- \
// RUN:   -config="{CheckOptions: {torch-host-sync-in-loop.MaxCallDepth: 1}}" -- %torch_mock_2
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t.zero -- \
// RUN:   -config="{CheckOptions: {torch-host-sync-in-loop.MaxCallDepth: 0}}" -- %torch_mock_2

#include <torch/torch.h>

#include <iostream>

float level3(const torch::Tensor &T) { return T.item<float>(); }
float level2(const torch::Tensor &T) { return level3(T); }
float level1(const torch::Tensor &T) { return level2(T); }
void direct(const torch::Tensor &T) { std::cout << T; }

void loop(const std::vector<torch::Tensor> &Values) {
  for (const auto &V : Values) {
    level1(V);
    // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:5: warning: call to 'level1' synchronizes the host with the device per iteration of the loop: 'item()' (through 'level2', 'level3'); keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
    direct(V);
    // CHECK-MESSAGES-DEFAULT: :[[@LINE-1]]:5: warning: call to 'direct' synchronizes
    // CHECK-MESSAGES-ONE: :[[@LINE-2]]:5: warning: call to 'direct' synchronizes the host with the device per iteration of the loop: printing a tensor; print it after the loop or every N steps
  }
}

// This file runs on the GPU.
static const torch::Device Gpu(torch::kCUDA);
