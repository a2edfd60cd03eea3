// RUN: %check_torch_tidy %s torch-* %t -- -- %torch_mock_2

// Found while writing the fuzzer's seeds (scripts/fuzz.sh), from the code
// that follows a local variable to its initializer: `T x = x;` compiles (with
// a -Wuninitialized warning) and initializes x with itself. provableBool()
// recursed until the stack overflowed (SIGSEGV: torch-debug-api-enabled,
// torch-conv-bias-before-batchnorm), and isPinned() of
// torch-blocking-host-to-device-copy, compiled into a loop, never returned
// (a hang). Initializers are now followed a few variables deep at most.
#include <torch/torch.h>

void anomaly() {
  bool on = on;
  torch::autograd::AnomalyMode::set_enabled(on);
}

void anomalyThroughTwoVariables() {
  bool yes = true;
  bool on = yes;
  torch::autograd::AnomalyMode::set_enabled(on);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: anomaly detection switched on here stays on for every later backward() of the program
  // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::autograd::AnomalyMode::set_enabled(on);{{$}}
  // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
}

void convBias() {
  bool bias = bias;
  torch::nn::Sequential block(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(bias)),
      torch::nn::BatchNorm2d(8));
}

void copies() {
  for (int i = 0; i < 3; ++i) {
    torch::Tensor t = t;
    t.to(torch::kCUDA);
    torch::Tensor v = v;
    v.cuda();
  }
}
