// torch-zero-grad on the real LibTorch headers (Debian's 1.13), through both
// hosts; the runner compiles the fixed file against the same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-zero-grad %t -- -- %torch_real
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-*' --header-filter='.*' --system-headers %s -- %torch_real | FileCheck %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : conv(register_module("conv", torch::nn::Conv2d(3, 8, 3))),
        fc(register_module("fc", torch::nn::Linear(8, 2))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv(x)).mean({2, 3});
    return fc(x);
  }
  torch::nn::Conv2d conv;
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

void train(Net &model, torch::optim::SGD &optimizer, torch::Tensor input,
           torch::Tensor target, int steps) {
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 1.13; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
    // CHECK-FIXES: {{^}}#if TORCH_VERSION_MAJOR >= 2{{$}}
    // CHECK-FIXES-NEXT: {{^}}    optimizer.zero_grad();{{$}}
    // CHECK-FIXES-NEXT: {{^}}#else{{$}}
    // CHECK-FIXES-NEXT: {{^}}    for (auto &group : optimizer.param_groups()){{$}}
    // CHECK-FIXES-NEXT: {{^}}      for (auto &param : group.params()){{$}}
    // CHECK-FIXES-NEXT: {{^}}        param.mutable_grad().reset();{{$}}
    // CHECK-FIXES-NEXT: {{^}}#endif{{$}}
    auto loss = torch::mse_loss(model->forward(input), target);
    loss.backward();
    optimizer.step();
  }
}

void finetune(Net &model, torch::optim::Adam &adam, torch::Tensor input) {
  model->zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: module 'zero_grad()' zero-fills every gradient on LibTorch 1.13; pass set_to_none=true
  // CHECK-FIXES: {{^}}  model->zero_grad(/*set_to_none=*/true);{{$}}
  model->forward(input).sum().backward();
  for (int step = 0; step < 3; ++step) {
    for (auto &p : model->parameters())
      if (p.grad().defined())
        p.grad().zero_();
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: zeroing a gradient in place costs a memset per parameter every step
    // CHECK-FIXES: {{^}}        p.mutable_grad().reset();{{$}}
    model->forward(input).sum().backward();
    adam.step();
  }
  model->zero_grad(true);
  // Reading the gradients right after clearing them: no fix-it.
  model->zero_grad();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: module 'zero_grad()' zero-fills every gradient on LibTorch 1.13; pass set_to_none=true so backward() writes them without a memset; no fix-it: the gradients are read before the next backward() [torch-zero-grad]
  // Its note at the read is checked in test/checkers/zero-grad.cpp.
  for (auto &p : model->parameters())
    std::cout << p.grad().sum() << "\n";
}
