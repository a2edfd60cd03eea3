// Headers that do not say their version: the behaviour still comes from the
// declarations; the message names the version from the TorchVersion option.
// RUN: %check_torch_tidy %s torch-zero-grad %t -- -- %torch_mock_none
// RUN: %check_torch_tidy --check-suffix=OPT %s torch-zero-grad %t.opt -- \
// RUN:   -config="{CheckOptions: {torch-zero-grad.TorchVersion: '1.12'}}" -- %torch_mock_none

#include <torch/torch.h>

void step(torch::optim::SGD &optimizer, const torch::Tensor &Loss) {
  optimizer.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: optimizer 'zero_grad()' zero-fills every gradient on this LibTorch; reset the gradients instead
  // CHECK-MESSAGES-OPT: :[[@LINE-2]]:13: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.12; reset the gradients instead
  // Without the version macros a guard could not tell versions apart: the
  // plain loop is written.
  // CHECK-FIXES: {{^}}  for (auto &group : optimizer.param_groups()) for (auto &param : group.params()) param.mutable_grad().reset();{{$}}
  // CHECK-FIXES-OPT: {{^}}  for (auto &group : optimizer.param_groups()) for (auto &param : group.params()) param.mutable_grad().reset();{{$}}
  Loss.backward();
}
