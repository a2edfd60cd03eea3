// torch-host-sync-in-loop on the real LibTorch headers (Debian's 1.13), through
// both hosts; the fixed file is compiled against the same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_real
// Only the device-generic function and the template trainer: a translation
// unit that never names CUDA.
// RUN: %check_torch_tidy --check-suffix=GENERIC %s torch-host-sync-in-loop %t.generic -- -- %torch_real -DGENERIC_ONLY

#include <torch/torch.h>

#include <cmath>
#include <iostream>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(4, 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// Device-generic: the device comes from the caller (main.cpp chose it).
float trainOn(Net &model, torch::optim::SGD &optimizer,
              const torch::Device &device, int steps) {
  float last = 0;
  for (int step = 0; step < steps; ++step) {
    auto input = torch::randn({8, 4}, torch::TensorOptions().device(device));
    optimizer.zero_grad();
    auto loss = model->forward(input).sum();
    loss.backward();
    optimizer.step();
    last = loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'item()' synchronizes the host with the device per iteration of the loop at line [[@LINE-7]]
    // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:17: warning: 'item()' synchronizes the host with the device per iteration of the loop at line [[@LINE-8]]
  }
  return last;
}

// A header-only trainer that nothing here instantiates.
template <typename T, typename ModelT, typename OptimizerT>
T trainTemplate(ModelT &model, OptimizerT &optimizer,
                const torch::Tensor &input, int steps) {
  T last = 0;
  for (int step = 0; step < steps; ++step) {
    optimizer.zero_grad();
    torch::Tensor loss = model->forward(input).sum();
    loss.backward();
    optimizer.step();
    last = loss.template item<T>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop at line [[@LINE-6]]
    // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop at line [[@LINE-7]]
    auto host = input.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: copying a tensor to the CPU synchronizes
    // CHECK-MESSAGES-GENERIC: :[[@LINE-2]]:23: warning: copying a tensor to the CPU synchronizes
    (void)host;
  }
  return last;
}

#ifndef GENERIC_ONLY

float train(Net &model, torch::optim::SGD &optimizer, torch::Device device,
            int steps) {
  float running_loss = 0;
  for (int step = 0; step < steps; ++step) {
    auto input = torch::randn({8, 4}).to(device);
    auto target = torch::randn({8, 2}).to(device);
    optimizer.zero_grad();
    auto loss = torch::mse_loss(model->forward(input), target);
    AT_ASSERT(!std::isnan(loss.item<float>()));
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: 'item()' synchronizes the host with the device per iteration of the loop at line [[@LINE-6]]; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'clip_grad_norm_()' synchronizes
    optimizer.step();
    running_loss += loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop at line [[@LINE-12]]
    if (step % 10 == 0)
      std::cout << "step " << step << " loss " << loss << "\n";
  }
  // CHECK-FIXES: {{^}}  torch::Tensor running_loss_device;{{$}}
  // CHECK-FIXES: {{^}}    running_loss_device = running_loss_device.defined() ? running_loss_device + loss.detach().to(torch::kFloat) : loss.detach().to(torch::kFloat);{{$}}
  // CHECK-FIXES: {{^}}  if (running_loss_device.defined()){{$}}
  // CHECK-FIXES-NEXT: {{^}}    running_loss += running_loss_device.item<float>();{{$}}
  return running_loss / steps;
}

void evaluate(Net &model, torch::Device device) {
  torch::NoGradGuard no_grad;
  auto inputs = torch::randn({16, 4});
  for (int i = 0; i < 16; ++i) {
    auto out = model->forward(inputs[i].unsqueeze(0).to(device));
    auto host = out.to(torch::kCPU);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: copying a tensor to the CPU synchronizes
    std::cout << host << "\n";
    // Reading the host copy is free.
    float first = host[0][0].item<float>();
    if (torch::cuda::is_available())
      torch::cuda::synchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'torch::cuda::synchronize()' synchronizes
    (void)first;
  }
}
#endif
