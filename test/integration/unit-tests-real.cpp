// Unit tests that a test framework registers (doctest's and Catch2's
// TEST_CASE, GoogleTest's TEST and fixtures), and the helpers of internal
// linkage only they call, run on small inputs to check results: the checks
// leave them alone, with the real frameworks' headers and the real LibTorch
// headers. The same bodies as plain functions (no framework) are reported,
// and so is the training function beside the tests in every variant.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy --check-suffix=ALL,PLAIN %s torch-host-sync-in-loop,torch-missing-no-grad %t -- -- %torch_real
// RUN: %check_torch_tidy --check-suffix=ALL %s torch-host-sync-in-loop,torch-missing-no-grad %t.doctest -- -- %torch_real -DUSE_DOCTEST
// RUN: %check_torch_tidy --check-suffix=ALL %s torch-host-sync-in-loop,torch-missing-no-grad %t.gtest -- -- %torch_real -DUSE_GTEST
// RUN: %check_torch_tidy --check-suffix=ALL %s torch-host-sync-in-loop,torch-missing-no-grad %t.catch -- -- %torch_real -DUSE_CATCH
// RUN: %check_torch_tidy --check-suffix=ALL %s torch-host-sync-in-loop,torch-missing-no-grad %t.v2 -- -- %torch2_real -DUSE_DOCTEST

#include <torch/torch.h>

#if defined(USE_DOCTEST)
#include <doctest/doctest.h>
#define UNIT_TEST(Name) TEST_CASE(#Name)
#elif defined(USE_GTEST)
#include <gtest/gtest.h>
#define UNIT_TEST(Name) TEST(Model, Name)
#elif defined(USE_CATCH)
#include <catch2/catch.hpp>
#define UNIT_TEST(Name) TEST_CASE(#Name)
#else
#define UNIT_TEST(Name) void Name()
#endif

#include <iostream>
#include <vector>

struct NetImpl : torch::nn::Module {
  NetImpl() : fc(register_module("fc", torch::nn::Linear(8, 1))) {}
  torch::Tensor forward(torch::Tensor x) { return fc->forward(x); }
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// The program's training: reported whatever else the file holds.
void train(Net &net, torch::optim::SGD &opt, const torch::Device &device) {
  // CHECK-FIXES-ALL: {{^}}  for (int step = 0; step < 100; ++step) {{{$}}
  for (int step = 0; step < 100; ++step) {
    auto x = torch::randn({64, 8}, device);
    auto loss = net->forward(x).pow(2).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    std::cout << loss.item<float>() << "\n";
    // CHECK-MESSAGES-ALL: :[[@LINE-1]]:23: warning: 'item()' synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
  }
}

// A trainer class template deriving from a base that depends on its
// parameter is no test fixture: its loop is reported whatever framework
// the file includes (nothing instantiates it here).
template <class Model> struct TrainerBase {
  Model model;
  std::vector<torch::Tensor> batches;
};
template <class Model> struct Trainer : TrainerBase<Model> {
  std::vector<float> epoch();
};
template <class Model> std::vector<float> Trainer<Model>::epoch() {
  std::vector<float> losses;
  for (auto &batch : this->batches) {
    torch::Tensor loss = this->model->forward(batch).mean();
    losses.push_back(loss.item<float>());
    // CHECK-MESSAGES-ALL: :[[@LINE-1]]:27: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
  }
  return losses;
}

// A helper of internal linkage that only the tests below call.
static float fitFewSteps(Net &net, torch::optim::SGD &opt,
                         const torch::Device &device) {
  float test_last = 0;
  for (int i = 0; i < 5; ++i) {
    auto x = torch::randn({4, 8}, device);
    auto test_loss = net->forward(x).pow(2).mean();
    opt.zero_grad();
    test_loss.backward();
    opt.step();
    test_last = test_loss.item<float>();
    // CHECK-MESSAGES-PLAIN: :[[@LINE-1]]:27: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
  }
  return test_last;
}

UNIT_TEST(loss_goes_down) {
  torch::Device device(torch::kCUDA);
  Net net;
  net->to(device);
  torch::optim::SGD opt(net->parameters(), 0.1);
  float first = fitFewSteps(net, opt, device);
  for (int i = 0; i < 3; ++i) {
    auto test_x = torch::randn({4, 8}, device);
    auto test_out = net->forward(test_x).pow(2).mean();
    test_out.backward();
    opt.step();
    if (test_out.item<float>() > first)
      // CHECK-MESSAGES-PLAIN: :[[@LINE-1]]:18: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
      std::cout << "worse\n";
  }
}

UNIT_TEST(output_has_one_column) {
  // CHECK-FIXES-PLAIN: {{^}}  torch::NoGradGuard no_grad;{{$}}
  Net net;
  net->eval();
  auto test_y = net->forward(torch::randn({2, 8}));
  // CHECK-MESSAGES-PLAIN: :[[@LINE-1]]:22: warning: forward pass after eval() runs with autograd on{{.*}}[torch-missing-no-grad]
  std::cout << test_y.size(1) << "\n";
}
