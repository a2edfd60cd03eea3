// torch-zero-grad's version awareness on the real LibTorch 2.6 headers
// (Debian trixie's, see scripts/setup-debian.sh), through both hosts; the
// fixed file is compiled with -fsyntax-only. On 2.x both zero_grad() default
// to set_to_none=true: a bare call is silent, an explicit false is reported
// and its fix drops the argument.
// REQUIRES: real-libtorch-2
// RUN: %check_torch_tidy %s torch-zero-grad %t -- -- %torch2_real
// The check reads the version from these macros (through the PCH as well).
// RUN: %cxx -E -dM %torch2_real %s | FileCheck %s --check-prefix=VERSION
// VERSION-DAG: #define TORCH_VERSION_MAJOR 2
// VERSION-DAG: #define TORCH_VERSION_MINOR 6
// VERSION-DAG: #define TORCH_VERSION "2.6.0"
// The version named in a message is the real headers' 2.6: shown with a copy
// of the real optimizer.h whose default is false, put before the real ones.
// RUN: rm -rf %t.shadow && mkdir -p %t.shadow/torch/optim
// RUN: sed 's/void zero_grad(bool set_to_none = true);/void zero_grad(bool set_to_none = false);/' \
// RUN:   %torch2_root/usr/include/torch/csrc/api/include/torch/optim/optimizer.h > %t.shadow/torch/optim/optimizer.h
// RUN: grep -q 'void zero_grad(bool set_to_none = false);' %t.shadow/torch/optim/optimizer.h
// RUN: %driver --checks='-*,torch-zero-grad' %s -- -isystem %t.shadow %torch2_flags | FileCheck %s --check-prefix=SHADOW

#include <torch/torch.h>

#include <iostream>

void train(torch::nn::Linear &model, torch::optim::SGD &optimizer,
           torch::Tensor input, torch::Tensor target, bool keep_zeros,
           int steps) {
  for (int step = 0; step < steps; ++step) {
    // Bare calls reset the gradients on 2.x: silent.
    optimizer.zero_grad();
    // SHADOW: :[[@LINE-1]]:15: warning: optimizer 'zero_grad()' zero-fills every gradient on LibTorch 2.6; reset the gradients instead
    // SHADOW-NOT: warning: optimizer
    model->zero_grad();
    optimizer.zero_grad(true);
    model->zero_grad(/*set_to_none=*/true);
    // A runtime choice may be deliberate: silent.
    optimizer.zero_grad(keep_zeros);
    auto loss = torch::mse_loss(model->forward(input), target);
    loss.backward();
    optimizer.step();
  }
}

void finetune(torch::nn::Linear &model, torch::optim::Adam &adam,
              torch::Tensor input, int steps) {
  for (int step = 0; step < steps; ++step) {
    adam.zero_grad(false);
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'zero_grad(false)' zero-fills every gradient; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
    // CHECK-FIXES: {{^}}    adam.zero_grad();{{$}}
    model->zero_grad(/*set_to_none=*/false);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'zero_grad(false)' zero-fills every gradient; reset the gradients instead so backward() writes them without a memset [torch-zero-grad]
    // CHECK-FIXES: {{^}}    model->zero_grad();{{$}}
    model->forward(input).sum().backward();
    adam.step();
  }
  // Reading the gradients right after zero-filling them: no fix-it.
  adam.zero_grad(false);
  // CHECK-MESSAGES: :[[@LINE-1]]:8: warning: 'zero_grad(false)' zero-fills every gradient; reset the gradients instead so backward() writes them without a memset; no fix-it: the gradients are read before the next backward() [torch-zero-grad]
  // CHECK-MESSAGES: :[[@LINE+2]]:{{[0-9]+}}: note: the gradients are read here
  for (auto &p : model->parameters())
    std::cout << p.grad().sum() << "\n";
}
