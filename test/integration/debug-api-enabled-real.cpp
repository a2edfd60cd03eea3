// torch-debug-api-enabled on the real LibTorch headers (Debian's 1.13),
// through both hosts; the runner compiles the fixed file against the same
// headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-debug-api-enabled %t -- -- %torch_real

#include <set>

void train(torch::nn::Linear &Model, torch::optim::SGD &Opt, int Epochs) {
  for (int E = 0; E < Epochs; ++E) {
    Opt.zero_grad();
    auto Loss = Model->forward(torch::randn({4, 8})).sum();
    Loss.backward();
    Opt.step();
  }
}

void run(torch::nn::Linear &Model, torch::optim::SGD &Opt, bool Debug) {
  torch::autograd::AnomalyMode::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: anomaly detection switched on here stays on for the training loop: every backward()
  // CHECK-MESSAGES: :[[@LINE-11]]:{{[0-9]+}}: note: training loop here
  // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::autograd::AnomalyMode::set_enabled(true);{{$}}
  // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
  torch::autograd::DetectAnomalyGuard Guard;
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'Guard' keeps anomaly detection on around the training loop
  // CHECK-MESSAGES: :[[@LINE-17]]:{{[0-9]+}}: note: training loop here
  // CHECK-FIXES: {{^}}#ifndef NDEBUG{{$}}
  // CHECK-FIXES-NEXT: {{^}}  torch::autograd::DetectAnomalyGuard Guard;{{$}}
  // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
  torch::autograd::profiler::RecordProfile Profile("trace.json");
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: legacy profiler 'Profile' records every operator of the training loop
  // CHECK-MESSAGES: :[[@LINE-23]]:{{[0-9]+}}: note: training loop here
  using namespace torch::profiler::impl;
  torch::autograd::profiler::prepareProfiler(
      ProfilerConfig(ProfilerState::KINETO), {ActivityType::CPU});
  torch::autograd::profiler::enableProfiler(
      ProfilerConfig(ProfilerState::KINETO), {ActivityType::CPU});
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: profiler enabled here stays on through the training loop
  // CHECK-MESSAGES: :[[@LINE-30]]:{{[0-9]+}}: note: training loop here
  at::globalContext().setDeterministicAlgorithms(true, false);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: remark: deterministic algorithms are switched on for the whole program
  if (Debug)
    torch::autograd::AnomalyMode::set_enabled(true);
  train(Model, Opt, 10);
  torch::autograd::profiler::disableProfiler()->save("trace.json");
}
