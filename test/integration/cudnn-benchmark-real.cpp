// torch-cudnn-benchmark and torch-tf32-disabled share this input: on the real
// LibTorch headers (Debian's 1.13), through both hosts; the runner compiles
// the fixed file against the same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-cudnn-benchmark %t -- -- %torch_real
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
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: convolutions train on a device that can be CUDA with cuDNN's autotuner off: each convolution runs the algorithm cuDNN's heuristics pick, not the fastest one for its shapes; enable it once with 'at::globalContext().setBenchmarkCuDNN(true)' when the input shapes stay the same from step to step [torch-cudnn-benchmark]
  // CHECK-MESSAGES: :50:3: note: training loop here
  // CHECK-FIXES: {{^}}  torch::Device device(device_type);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  at::globalContext().setBenchmarkCuDNN(true);{{$}}
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
}
