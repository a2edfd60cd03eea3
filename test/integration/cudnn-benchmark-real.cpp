// torch-cudnn-benchmark on the real LibTorch headers (Debian's 1.13), through
// both hosts; the runner compiles the fixed file against the same headers.
// torch-tf32-disabled's real-header tests (tf32-disabled-real*) run this input
// too, with the CHECK lines of suffix TF32.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy --check-suffix=CUDNN %s torch-cudnn-benchmark %t -- -- %torch_real
// Deterministic cuDNN asked for: silent.
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_real -DDETERMINISTIC
// Image sizes that change from step to step: silent.
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_real -DVARYING_SIZE
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-cudnn-benchmark' --header-filter='.*' --system-headers %s -- %torch_real | FileCheck --allow-empty %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:

#include <torch/torch.h>

struct NetImpl : torch::nn::Module {
  NetImpl()
      : conv(register_module("conv", torch::nn::Conv2d(1, 8, 3))),
        fc(register_module("fc", torch::nn::Linear(8 * 26 * 26, 10))) {}
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv(x));
    return fc(x.view({x.size(0), -1}));
  }
  torch::nn::Conv2d conv;
  torch::nn::Linear fc;
};
TORCH_MODULE(Net);

int main() {
  torch::DeviceType device_type;
  if (torch::cuda::is_available())
    device_type = torch::kCUDA;
  else
    device_type = torch::kCPU;
  torch::Device device(device_type);
  // CHECK-MESSAGES-CUDNN: :[[@LINE-1]]:17: warning: convolutions train on a device that can be CUDA with cuDNN's autotuner off: each convolution runs the algorithm cuDNN's heuristics pick, not the fastest one for its shapes; enable it once with 'at::globalContext().setBenchmarkCuDNN(true)' when the input shapes stay the same from step to step [torch-cudnn-benchmark]
  // CHECK-MESSAGES-CUDNN: :33:19: note: the device can be CUDA from here
  // CHECK-MESSAGES-CUDNN: :57:3: note: training loop here
  // CHECK-FIXES-CUDNN: {{^}}  torch::Device device(device_type);{{$}}
  // CHECK-FIXES-CUDNN-NEXT: {{^}}  at::globalContext().setBenchmarkCuDNN(true);{{$}}
  // CHECK-MESSAGES-TF32: :36:17: warning: FP32 matmuls train on a device that can be CUDA with TF32 off for cuBLAS: Linear, matmul and attention layers miss the tensor cores of Ampere and later GPUs; allow TF32 once with 'at::globalContext().setFloat32MatmulPrecision("high")', which keeps about 10 bits of mantissa in matmul inputs [torch-tf32-disabled]
  // CHECK-MESSAGES-TF32: :33:19: note: the device can be CUDA from here
  // CHECK-MESSAGES-TF32: :57:3: note: training loop here
  // CHECK-FIXES-TF32: {{^}}  torch::Device device(device_type);{{$}}
  // CHECK-FIXES-TF32-NEXT: {{^}}  at::globalContext().setFloat32MatmulPrecision("high");{{$}}
#ifdef DETERMINISTIC
  at::globalContext().setDeterministicCuDNN(true);
#endif
#ifdef TF32
  torch::globalContext().setFloat32MatmulPrecision("high");
#endif

  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(), 0.01);
  for (int step = 0; step < 10; ++step) {
#ifdef VARYING_SIZE
    int64_t side = 28 + 4 * (step % 3);
    auto data = torch::randn({16, 1, side, side}, device);
#else
    auto data = torch::randn({16, 1, 28, 28}, device);
#endif
    auto target = torch::randint(10, {16}, torch::TensorOptions(device).dtype(torch::kLong));
    optimizer.zero_grad();
    auto loss = torch::nll_loss(torch::log_softmax(model->forward(data), 1), target);
    loss.backward();
    optimizer.step();
  }
#ifdef OTHER_MODEL_HALF
  // A second model in half precision, for inference only.
  Net student;
  student->to(device, torch::kHalf);
  student->eval();
  student->forward(torch::randn({1, 1, 28, 28}, device).to(torch::kHalf));
#endif
}
