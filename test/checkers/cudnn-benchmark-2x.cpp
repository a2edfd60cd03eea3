// RUN: %check_torch_tidy %s torch-cudnn-benchmark %t -- -- %torch_mock_2

// LibTorch 2.x; the device is a global, so the setting goes at the start of
// main().
#include <torch/torch.h>

const torch::Device TheDevice(torch::cuda::is_available() ? torch::kCUDA
                                                          : torch::kCPU);
// CHECK-MESSAGES: :[[@LINE-2]]:21: warning: convolutions train on a device that can be CUDA with cuDNN's autotuner off

void fit(torch::nn::Sequential &Model, torch::optim::SGD &Opt) {
  for (int Epoch = 0; Epoch < 10; ++Epoch) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: note: training loop here
    auto Loss = Model->forward(torch::randn({4, 1, 28, 28}, TheDevice)).sum();
    Loss.backward();
    Opt.step();
  }
}

int main() {
  torch::nn::Sequential Model(torch::nn::Conv2d(1, 8, 3), torch::nn::ReLU());
  // CHECK-FIXES: {{^}}int main() {{{$}}
  // CHECK-FIXES-NEXT: {{^}}  at::globalContext().setBenchmarkCuDNN(true);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::nn::Sequential Model(torch::nn::Conv2d(1, 8, 3), torch::nn::ReLU());{{$}}
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(0.1));
  fit(Model, Opt);
}
