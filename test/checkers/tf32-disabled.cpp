// RUN: %check_torch_tidy %s torch-tf32-disabled %t -- -- %torch_mock_1_13
// Each variant below changes one thing that makes the program silent.
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DALLOW_TF32
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DPRECISION_HIGHEST
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DTF32_OFF
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DTRAIN_HALF
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DCONVOLUTION_ONLY
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DCPU_ONLY
// A CUDA device made only to probe for one, which nothing reads: the model
// still trains on the CPU.
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DCPU_ONLY -DPROBE_CUDA
// A global device that other files may read is a selection even where
// nothing in this file reads it.
// RUN: %check_torch_tidy --check-suffix=GLOBAL %s torch-tf32-disabled %t.global -- -- %torch_mock_1_13 -DCPU_ONLY -DGLOBAL_DEVICE
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DSMALL_LINEAR
// A convolutional network whose only matmul layer is its classifier head:
// cuDNN already runs its FP32 convolutions in TF32 (silent); the same network
// with a matmul in its forward is reported.
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DCONV_NET
// RUN: %check_torch_tidy %s torch-tf32-disabled %t.attn -- -- %torch_mock_1_13 -DCONV_NET -DWITH_MATMUL
// LibTorch 1.7 to 1.11 allow TF32 for cuBLAS by default, and earlier
// versions have no TF32: silent.
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_none -DTORCH_VERSION_MAJOR=1 -DTORCH_VERSION_MINOR=10
// Reduced precision counts for the model that trains: a second model in
// half precision leaves the advice (reported), converting the trained one
// does not (silent).
// RUN: %check_torch_tidy %s torch-tf32-disabled %t.other -- -- %torch_mock_1_13 -DOTHER_MODEL_HALF
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DTRAINED_MODEL_HALF
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_mock_1_13 -DTRAINED_MODEL_HALF_HELPER
// A header's device before main()'s: reported at main()'s, in the main file.
// RUN: %check_torch_tidy %s torch-tf32-disabled %t.helper -- -- %torch_mock_1_13 -DDEBUG_HELPER -I%S/Inputs

#include <torch/torch.h>
#ifdef GLOBAL_DEVICE
torch::Device GlobalDevice(torch::kCUDA);
// CHECK-MESSAGES-GLOBAL: :[[@LINE-1]]:15: warning: FP32 matmuls train on a device that can be CUDA
// CHECK-MESSAGES-GLOBAL: :{{[0-9]+}}:3: note: training loop here
// CHECK-FIXES-GLOBAL: {{^}}  at::globalContext().setFloat32MatmulPrecision("high");{{$}}
#endif
#ifdef DEBUG_HELPER
#include "cuda-debug-helper.h"
#endif

#ifdef CONV_NET
struct NetImpl : torch::nn::Module {
  NetImpl()
      : Stem(torch::nn::Conv2dOptions(3, 64, 7)), Body(64, 64, 3),
        Down(64, 128, 1), Head(128 * 7 * 7, 1000) {}
  at::Tensor forward(const at::Tensor &X) {
    at::Tensor Y = Down(Body(Stem(X)));
#ifdef WITH_MATMUL
    Y = at::matmul(Y, Y);
#endif
    return Head(Y);
  }
  torch::nn::Conv2d Stem, Body, Down;
  torch::nn::Linear Head;
};
#else
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
#endif
TORCH_MODULE(Net);

int main() {
#ifdef CPU_ONLY
  torch::Device Device(torch::kCPU);
#ifdef PROBE_CUDA
  if (torch::cuda::is_available()) {
    torch::Device Probe(torch::kCUDA);
  }
#endif
#else
  torch::Device Device("cuda:0");
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: FP32 matmuls train on a device that can be CUDA with TF32 off for cuBLAS: Linear, matmul and attention layers miss the tensor cores of Ampere and later GPUs; allow TF32 once with 'at::globalContext().setFloat32MatmulPrecision("high")', which keeps about 10 bits of mantissa in matmul inputs [torch-tf32-disabled]
  // CHECK-MESSAGES: :105:3: note: training loop here
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
#ifdef OTHER_MODEL_HALF
  // A second model converted to half precision for inference: the FP32 model
  // that trains still gets the advice.
  Net Student;
  Student->to(Device, torch::kHalf);
  Student->eval();
  Student(torch::randn({8, 16}, Device).to(torch::kHalf));
#endif
#ifdef TRAINED_MODEL_HALF
  Model->to(Device, torch::kHalf);
#endif
#ifdef TRAINED_MODEL_HALF_HELPER
  // Converted through a parameter: it may be the trained model.
  auto ToHalf = [](Net &M) { M->to(torch::kHalf); };
  ToHalf(Model);
#endif
}
