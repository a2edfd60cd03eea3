// The same misaligned layers in programs where tensor cores do not need
// multiples of 8: FP32 on CUDA (TF32 has no such rule), half precision on the
// CPU only, and autocast switched off. Silent.
// RUN: %check_torch_tidy %s torch-tensor-core-alignment %t -- -- %torch_mock_1_13 -DFP32_ON_CUDA
// RUN: %check_torch_tidy %s torch-tensor-core-alignment %t.cpu -- -- %torch_mock_1_13 -DHALF_ON_CPU
// RUN: %check_torch_tidy %s torch-tensor-core-alignment %t.off -- -- %torch_mock_2 -DAUTOCAST_OFF

#include <torch/torch.h>

namespace nn = torch::nn;

struct NetImpl : nn::Module {
  NetImpl()
      : conv(register_module("conv", nn::Conv2d(3, 30, 3))),
        fc(register_module("fc", nn::Linear(30, 100))) {}
  torch::Tensor forward(torch::Tensor x) { return fc(conv(x)); }
  nn::Conv2d conv;
  nn::Linear fc;
};
TORCH_MODULE(Net);

void run() {
  Net net;
#ifdef FP32_ON_CUDA
  torch::Device device(torch::kCUDA);
  net->to(device);
#endif
#ifdef HALF_ON_CPU
  net->to(torch::kHalf);
#endif
#ifdef AUTOCAST_OFF
  at::autocast::set_autocast_enabled(torch::kCUDA, false);
#endif
  net->forward(torch::randn({1, 3, 8, 8}));
}
