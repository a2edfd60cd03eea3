// RUN: %check_torch_tidy %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13
// Each variant below changes one thing that makes the program silent.
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DBENCHMARK_OFF
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DDETERMINISTIC
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DDETERMINISTIC_ALGORITHMS
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DCPU_ONLY
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DNO_CONVOLUTION
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DNO_TRAINING

#include <torch/torch.h>

#include <vector>

struct NetImpl : torch::nn::Module {
#ifdef NO_CONVOLUTION
  torch::nn::Linear Fc{nullptr};
  at::Tensor forward(const at::Tensor &X) { return Fc(X); }
#else
  torch::nn::Conv2d Conv{nullptr};
  at::Tensor forward(const at::Tensor &X) { return Conv(X); }
#endif
};
TORCH_MODULE(Net);

void train(Net &Model, torch::optim::SGD &Opt, torch::Device Device) {
  for (int Step = 0; Step < 100; ++Step) {
    auto Loss = Model(torch::randn({8, 3, 32, 32}, Device)).sum();
#ifndef NO_TRAINING
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
#endif
  }
}

int main() {
  torch::DeviceType DeviceType = torch::kCPU;
#ifndef CPU_ONLY
  if (torch::cuda::is_available())
    DeviceType = torch::kCUDA;
#endif
  torch::Device Device(DeviceType);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: convolutions train on a device that can be CUDA with cuDNN's autotuner off: each convolution runs the algorithm cuDNN's heuristics pick, not the fastest one for its shapes; enable it once with 'at::globalContext().setBenchmarkCuDNN(true)' when the input shapes stay the same from step to step [torch-cudnn-benchmark]
  // CHECK-MESSAGES: :26:3: note: training loop here
  // CHECK-FIXES: {{^}}  torch::Device Device(DeviceType);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  at::globalContext().setBenchmarkCuDNN(true);{{$}}
#ifdef BENCHMARK_OFF
  at::globalContext().setBenchmarkCuDNN(false);
#endif
#ifdef DETERMINISTIC
  at::globalContext().setDeterministicCuDNN(true);
#endif
#ifdef DETERMINISTIC_ALGORITHMS
  torch::globalContext().setDeterministicAlgorithms(true, false);
#endif
  Net Model;
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(0.1));
  train(Model, Opt, Device);
}
