// RUN: %check_torch_tidy %s torch-zero-grad %t -- \
// RUN:   -config="{CheckOptions: {torch-zero-grad.IncludeModules: false, torch-zero-grad.ManualLoops: false, torch-zero-grad.VersionGuard: false}}" \
// RUN:   -- %torch_mock_1_13

#include <torch/torch.h>

using torch::Tensor;

struct NetImpl : torch::nn::Module {};
using Net = torch::nn::ModuleHolder<NetImpl>;

void step(torch::optim::SGD &optimizer, Net &model, const Tensor &Loss) {
  // VersionGuard off: the plain loop, even on a line of its own.
  optimizer.zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13
  // CHECK-FIXES: {{^}}  for (auto &group : optimizer.param_groups()) for (auto &param : group.params()) param.mutable_grad().reset();{{$}}
  Loss.backward();

  // IncludeModules off.
  model->zero_grad();
  model->zero_grad(false);

  // ManualLoops off.
  for (auto &P : model->parameters())
    P.grad().zero_();
}
