// RUN: %check_torch_tidy %s torch-tf32-disabled %t -- -- %torch_mock_2

// LibTorch 2.x; a hand-written attention (matmul) trained on a device
// chosen in a helper.
#include <torch/torch.h>

#include <string>

at::Tensor attend(const at::Tensor &Q, const at::Tensor &K) {
  return torch::matmul(Q, K);
}

void train(const std::string &Name, torch::optim::SGD &Opt, at::Tensor Q,
           at::Tensor K) {
  torch::Device Device(Name == "gpu" ? "cuda" : "cpu");
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: FP32 matmuls train on a device that can be CUDA with TF32 off for cuBLAS
  // CHECK-MESSAGES: :[[@LINE+3]]:3: note: training loop here
  // CHECK-FIXES: {{^}}  torch::Device Device(Name == "gpu" ? "cuda" : "cpu");{{$}}
  // CHECK-FIXES-NEXT: {{^}}  at::globalContext().setFloat32MatmulPrecision("high");{{$}}
  for (int Step = 0; Step < 10; ++Step) {
    attend(Q.to(Device), K.to(Device)).sum().backward();
    Opt.step();
  }
}
