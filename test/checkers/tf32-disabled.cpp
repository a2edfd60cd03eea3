// RUN: %check_torch_tidy %s torch-tf32-disabled %t -- -- %torch_mock_1_13
// Each variant below changes one thing that makes the program silent.
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DALLOW_TF32
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DPRECISION_HIGHEST
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DTF32_OFF
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DTRAIN_HALF
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DCONVOLUTION_ONLY
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DCPU_ONLY
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DSMALL_LINEAR
// A header's device before main()'s: reported at main()'s, in the main file.
// RUN: %check_torch_tidy %s torch-tf32-disabled %t.helper -- -- %torch_mock_1_13 -DDEBUG_HELPER -I%S/Inputs

#include <torch/torch.h>
#ifdef DEBUG_HELPER
#include "cuda-debug-helper.h"
#endif

struct NetImpl : torch::nn::Module {
#ifdef CONVOLUTION_ONLY
  torch::nn::Conv2d Layer{nullptr};
#else
  torch::nn::Linear Layer{nullptr};
#endif
#ifdef SMALL_LINEAR
  // Every size a small constant: no matmul worth a tensor core.
  NetImpl() : Layer(1, 1) {}
#endif
  at::Tensor forward(const at::Tensor &X) { return Layer(X); }
};
TORCH_MODULE(Net);

int main() {
#ifdef CPU_ONLY
  torch::Device Device(torch::kCPU);
#else
  torch::Device Device("cuda:0");
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: FP32 matmuls train on a device that can be CUDA with TF32 off for cuBLAS: Linear, matmul and attention layers miss the tensor cores of Ampere and later GPUs; allow TF32 once with 'at::globalContext().setFloat32MatmulPrecision("high")', which keeps about 10 bits of mantissa in matmul inputs [torch-tf32-disabled]
  // CHECK-MESSAGES: :57:3: note: training loop here
  // CHECK-FIXES: {{^}}  torch::Device Device("cuda:0");{{$}}
  // CHECK-FIXES-NEXT: {{^}}  at::globalContext().setFloat32MatmulPrecision("high");{{$}}
#endif
#ifdef ALLOW_TF32
  at::globalContext().setAllowTF32CuBLAS(true);
#endif
#ifdef PRECISION_HIGHEST
  at::globalContext().setFloat32MatmulPrecision("highest");
#endif
#ifdef TF32_OFF
  torch::globalContext().setAllowTF32CuBLAS(false);
#endif
  Net Model;
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(0.1));
  auto Type = torch::kFloat;
#ifdef TRAIN_HALF
  Type = torch::kHalf;
#endif
  for (int Step = 0; Step < 100; ++Step) {
    auto Loss = Model(torch::randn({8, 16}, Device).to(Type)).sum();
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
  }
}
