// LibTorch 2.4+'s device-generic autocast switch, and a bfloat16 model on a
// device chosen from a string.
// RUN: %check_torch_tidy %s torch-tensor-core-alignment %t -- -- %torch_mock_2

#include <torch/torch.h>

void train(torch::Tensor batch) {
  torch::Device device("cuda:0");
  at::autocast::set_autocast_enabled(torch::kCUDA, true);
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(64, 100, 3));
  // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: convolution out_channels of 100 is not a multiple of 8, which tensor cores need for half-precision matrix multiplies [torch-tensor-core-alignment]
  // CHECK-MESSAGES: :[[@LINE-2]]:55: note: pad it to 104
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: half precision here
  torch::nn::Conv2d aligned(torch::nn::Conv2dOptions(64, 128, 3));
  conv->to(device, torch::kBFloat16);
  aligned(conv(batch.to(device)));
}
