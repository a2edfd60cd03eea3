// RUN: %check_torch_tidy %s torch-tensor-core-alignment %t -- -- %torch_mock_1_13
// RUN: %check_torch_tidy %s torch-tensor-core-alignment %t.v2 -- -- %torch_mock_2
// integration/tensor-core-alignment-real* run this input on the real headers.
#include <torch/torch.h>

#include <memory>

namespace nn = torch::nn;

// --- Positive ---------------------------------------------------------------

struct NetImpl : nn::Module {
  NetImpl()
      : conv(register_module("conv", nn::Conv2d(nn::Conv2dOptions(16, 30, 3)))),
        // CHECK-MESSAGES: :[[@LINE-1]]:71: warning: convolution out_channels of 30 is not a multiple of 8, which tensor cores need for half-precision matrix multiplies [torch-tensor-core-alignment]
        // CHECK-MESSAGES: :[[@LINE-2]]:71: note: pad it to 32
        // CHECK-MESSAGES: :44:19: note: half precision here
        fc1(register_module("fc1", nn::Linear(30 * 7, 100))),
        // CHECK-MESSAGES: :[[@LINE-1]]:47: warning: Linear in_features of 210 is not a multiple of 8, which tensor cores need for half-precision matrix multiplies
        // CHECK-MESSAGES: :[[@LINE-2]]:47: note: pad it to 216
        // CHECK-MESSAGES: :44:19: note: half precision here
        // CHECK-MESSAGES: :[[@LINE-4]]:55: warning: Linear out_features of 100 is not a multiple of 8
        // CHECK-MESSAGES: :[[@LINE-5]]:55: note: pad it to 104
        // CHECK-MESSAGES: :44:19: note: half precision here
        // A classifier with few classes: out_features below 64 is let be.
        head(register_module("head", nn::Linear(nn::LinearOptions(128, 10)))) {}
  torch::Tensor forward(torch::Tensor x) { return head(fc1(conv(x))); }
  nn::Conv2d conv;
  nn::Linear fc1, head;
};
TORCH_MODULE(Net);

// Sizes from the constructor's arguments: reported where the module is built.
struct BlockImpl : nn::Module {
  BlockImpl(int64_t in, int64_t hidden)
      : fc(register_module("fc", nn::Linear(in, hidden * 2))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(x); }
  nn::Linear fc;
};
TORCH_MODULE(Block);

void train(torch::Device device) {
  Net net;
  net->to(device, torch::kHalf);
  Block good(64, 128);
  Block bad(60, 128);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: Linear in_features of 60 is not a multiple of 8, which tensor cores need for half-precision matrix multiplies
  // CHECK-MESSAGES: :[[@LINE-2]]:13: note: pad it to 64
  // CHECK-MESSAGES: :[[@LINE-13]]:45: note: the layer it sizes
  // CHECK-MESSAGES: :44:19: note: half precision here
  auto other = std::make_shared<BlockImpl>(64, 50);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: Linear out_features of 100 is not a multiple of 8
  // CHECK-MESSAGES: :[[@LINE-2]]:16: note: pad it to 104
  // CHECK-MESSAGES: :[[@LINE-18]]:49: note: the layer it sizes
  // CHECK-MESSAGES: :44:19: note: half precision here
  auto x = torch::randn({4, 16, 8, 8}).to(torch::kCUDA);
  net->forward(x);
}
