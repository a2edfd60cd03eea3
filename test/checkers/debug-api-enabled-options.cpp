// AnomalyFix=remove deletes the switch; TestFilePattern decides which files
// are tests, where nothing is reported.
// RUN: %check_torch_tidy %s torch-debug-api-enabled %t -- \
// RUN:   -config="{CheckOptions: {torch-debug-api-enabled.AnomalyFix: remove}}" -- %torch_mock_2
// RUN: %check_torch_tidy --check-suffix=TESTS %s torch-debug-api-enabled %t.tests -- \
// RUN:   -config="{CheckOptions: {torch-debug-api-enabled.TestFilePattern: 'debug-api-enabled-options'}}" -- %torch_mock_2
// RUN: %driver --checks='-*,torch-debug-api-enabled' --config="{CheckOptions: {torch-debug-api-enabled.AnomalyFix: 'comment'}}" %s -- %torch_mock_2 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: warning: invalid AnomalyFix 'comment' for check 'torch-debug-api-enabled': expected 'wrap' or 'remove' [clang-tidy-config]

#include <torch/torch.h>

void train(torch::nn::Linear &Model, torch::optim::SGD &Opt) {
  torch::autograd::AnomalyMode::set_enabled(true);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: anomaly detection switched on here stays on for the training loop: every backward() then records a stack trace for each autograd node and checks each gradient for NaN, which slows training several times on CPU and GPU; remove it [torch-debug-api-enabled]
  // CHECK-MESSAGES: :[[@LINE+8]]:{{[0-9]+}}: note: training loop here
  torch::autograd::DetectAnomalyGuard Guard;
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'Guard' keeps anomaly detection on around the training loop: {{.*}}; remove it [torch-debug-api-enabled]
  // CHECK-MESSAGES: :[[@LINE+5]]:{{[0-9]+}}: note: training loop here
  // CHECK-FIXES: {{^}}void train(torch::nn::Linear &Model, torch::optim::SGD &Opt) {{[{]}}{{$}}
  // CHECK-FIXES-NOT: AnomalyMode
  // CHECK-FIXES-NOT: DetectAnomalyGuard
  // CHECK-FIXES: {{^}}  for (int E = 0; E < 10; ++E) {{[{]}}{{$}}
  for (int E = 0; E < 10; ++E) {
    auto Loss = Model->forward(torch::randn({4, 8})).sum();
    Loss.backward();
    Opt.step();
  }
}
