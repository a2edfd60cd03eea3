// Weights loaded from a checkpoint that carries the bias: removing the bias
// would break loading, so the finding stays without a fix-it.
// RUN: %check_torch_tidy --check-suffix=LOAD %s torch-conv-bias-before-batchnorm %t.load -- -- %torch_mock_2 -DLOAD_MODULE
// RUN: %check_torch_tidy --check-suffix=JIT %s torch-conv-bias-before-batchnorm %t.jit -- -- %torch_mock_2 -DLOAD_JIT
// RUN: %check_torch_tidy --check-suffix=CUSTOM %s torch-conv-bias-before-batchnorm %t.custom -- \
// RUN:   -config="{CheckOptions: {torch-conv-bias-before-batchnorm.CheckpointLoaders: 'load_state_dict;restore_weights'}}" \
// RUN:   -- %torch_mock_2
// Without a load, the fix-it is back.
// RUN: %check_torch_tidy --check-suffix=NONE %s torch-conv-bias-before-batchnorm %t.none -- -- %torch_mock_2

#include <torch/script.h>
#include <torch/torch.h>

namespace nn = torch::nn;

struct NetImpl : nn::Module {
  NetImpl() : conv(3, 8, 3), bn(8) {}
  torch::Tensor forward(torch::Tensor x) { return bn(conv(x)); }
  nn::Conv2d conv;
  // CHECK-MESSAGES-LOAD: :[[@LINE-3]]:15: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn', which subtracts the per-channel mean right after; build the convolution with .bias(false); no fix-it: weights are loaded from a checkpoint (torch::load) and one saved with the bias would no longer load [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES-LOAD: :[[@LINE-3]]:{{[0-9]+}}: note: batch norm here
  // CHECK-MESSAGES-LOAD: :[[@LINE+20]]:{{[0-9]+}}: note: the checkpoint is loaded here
  // CHECK-MESSAGES-JIT: :[[@LINE-6]]:15: warning: {{.*}}; no fix-it: weights are loaded from a checkpoint (torch::jit::load) and one saved with the bias would no longer load [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES-JIT: :[[@LINE+21]]:{{[0-9]+}}: note: the checkpoint is loaded here
  // CHECK-MESSAGES-CUSTOM: :[[@LINE-8]]:15: warning: {{.*}}; no fix-it: weights are loaded from a checkpoint (restore_weights) and one saved with the bias would no longer load [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES-CUSTOM: :[[@LINE+14]]:{{[0-9]+}}: note: the checkpoint is loaded here
  // CHECK-MESSAGES-NONE: :[[@LINE-10]]:15: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn', which subtracts the per-channel mean right after; build the convolution with .bias(false) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES-NONE: :[[@LINE-10]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES-NONE: {{^}}  NetImpl() : conv(torch::nn::Conv2dOptions(3, 8, 3).bias(false)), bn(8) {}{{$}}
  nn::BatchNorm2d bn;
};
TORCH_MODULE(Net);

void restore_weights(Net &Model, const std::string &Path);

void run(Net &Model, torch::optim::Optimizer &Optimizer) {
  // An optimizer's state is no module weights.
  torch::load(Optimizer, "optimizer.pt");
  // restore_weights is only a loader when configured.
  restore_weights(Model, "other.pt");
#ifdef LOAD_MODULE
  torch::load(Model, "model.pt");
#endif
#ifdef LOAD_JIT
  auto Backbone = torch::jit::load("backbone.pt");
#endif
}
