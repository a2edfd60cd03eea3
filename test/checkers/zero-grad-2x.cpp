// RUN: %check_torch_tidy %s torch-zero-grad %t -- -- %torch_mock_2

// LibTorch 2.x: both zero_grad() default to set_to_none = true.
#include <torch/torch.h>

using torch::Tensor;

struct NetImpl : torch::nn::Module {
  Tensor forward(const Tensor &X);
};
using Net = torch::nn::ModuleHolder<NetImpl>;

void negativeBareCallsReset(torch::optim::SGD &optimizer, Net &model,
                            const Tensor &X) {
  for (int Step = 0; Step < 10; ++Step) {
    optimizer.zero_grad();
    model->zero_grad();
    Tensor Loss = model->forward(X);
    Loss.backward();
    optimizer.step();
  }
}

void negativeExplicitTrue(torch::optim::SGD &optimizer, Net &model) {
  optimizer.zero_grad(true);
  model->zero_grad(/*set_to_none=*/true);
}

constexpr bool KeepZeros = false;

void positiveExplicitFalse(torch::optim::SGD &optimizer, Net &model,
                           torch::optim::Optimizer *Opt) {
  optimizer.zero_grad(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'zero_grad(false)' zero-fills every gradient; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
  // CHECK-FIXES: {{^}}  optimizer.zero_grad();{{$}}
  model->zero_grad(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'zero_grad(false)' zero-fills
  // CHECK-FIXES: {{^}}  model->zero_grad();{{$}}
  Opt->zero_grad(/*set_to_none=*/false);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'zero_grad(false)' zero-fills
  // CHECK-FIXES: {{^}}  Opt->zero_grad();{{$}}
  optimizer.zero_grad(KeepZeros);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'zero_grad(false)' zero-fills
  // CHECK-FIXES: {{^}}  optimizer.zero_grad();{{$}}
}

void positiveManualLoopOnAnyVersion(Net &model) {
  for (auto &P : model->parameters())
    P.grad().zero_();
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: zeroing a gradient in place
  // CHECK-FIXES: {{^}}    P.mutable_grad().reset();{{$}}
}

void warnWithoutFixWhenGradsAreRead(torch::optim::SGD &optimizer, Net &model) {
  optimizer.zero_grad(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'zero_grad(false)' zero-fills every gradient; reset the gradients instead so backward() writes them without a memset; no fix-it: the gradients are read before the next backward() [torch-zero-grad]
  // CHECK-MESSAGES: :[[@LINE+2]]:{{[0-9]+}}: note: the gradients are read here
  for (auto &P : model->parameters())
    P.mutable_grad().add_(P);
}
