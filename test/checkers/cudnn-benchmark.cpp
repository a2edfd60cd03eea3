// RUN: %check_torch_tidy %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13
// Each variant below changes one thing that makes the program silent.
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DBENCHMARK_OFF
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DDETERMINISTIC
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DDETERMINISTIC_ALGORITHMS
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DCPU_ONLY
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DPROBE_ONLY
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DNO_CONVOLUTION
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DNO_TRAINING
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DVARYING_SIZE
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DVARYING_STEP
// RUN: %check_torch_tidy --drop-checks=. %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DPADDED_SEQUENCES
// Sizes that stay the same from step to step keep the finding.
// RUN: %check_torch_tidy %s torch-cudnn-benchmark %t -- -- %torch_mock_1_13 -DBATCH_SIZED

#include <torch/torch.h>

#include <vector>

struct NetImpl : torch::nn::Module {
#ifdef NO_CONVOLUTION
  torch::nn::Linear Fc{nullptr};
  at::Tensor forward(const at::Tensor &X) { return Fc(X); }
#else
  torch::nn::Conv2d Conv{nullptr};
  at::Tensor forward(const at::Tensor &X) { return Conv(X); }
#endif
};
TORCH_MODULE(Net);

void train(Net &Model, torch::optim::SGD &Opt, torch::Device Device) {
  for (int Step = 0; Step < 100; ++Step) {
#if defined(VARYING_SIZE)
    // Multi-scale training: the image size changes every step.
    int64_t Side = 32 + 8 * (Step % 4);
    auto Loss = Model(torch::randn({8, 3, Side, Side}, Device)).sum();
#elif defined(VARYING_STEP)
    auto Loss = Model(torch::randn({8, 3, 32 + Step, 32}, Device)).sum();
#elif defined(PADDED_SEQUENCES)
    std::vector<at::Tensor> Sequences = {torch::randn({Step + 1, 3})};
    auto Padded = torch::nn::utils::rnn::pad_sequence(Sequences, true);
    auto Loss = Model(Padded.to(Device)).sum();
#elif defined(BATCH_SIZED)
    at::Tensor X = torch::randn({8, 3, 32, 32}, Device);
    const int64_t Side = 32;
    int64_t N = X.numel() / (3 * Side * Side);
    auto Loss = (Model(X) + torch::zeros({N, 3, Side, Side}, Device)).sum();
#else
    auto Loss = Model(torch::randn({8, 3, 32, 32}, Device)).sum();
#endif
#ifndef NO_TRAINING
    Opt.zero_grad();
    Loss.backward();
    Opt.step();
#endif
  }
}

int main() {
  torch::DeviceType DeviceType = torch::kCPU;
#if defined(PROBE_ONLY)
  // CUDA noted in a variable nothing reads, then the CPU after all.
  torch::DeviceType Probe = torch::kCPU;
  if (torch::cuda::is_available())
    Probe = torch::kCUDA;
  Probe = torch::kCPU;
#elif !defined(CPU_ONLY)
  if (torch::cuda::is_available())
    DeviceType = torch::kCUDA;
#endif
  torch::Device Device(DeviceType);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: convolutions train on a device that can be CUDA with cuDNN's autotuner off: each convolution runs the algorithm cuDNN's heuristics pick, not the fastest one for its shapes; enable it once with 'at::globalContext().setBenchmarkCuDNN(true)' when the input shapes stay the same from step to step [torch-cudnn-benchmark]
  // The value that names CUDA is on another line: a note shows it.
  // CHECK-MESSAGES: :69:18: note: the device can be CUDA from here
  // CHECK-MESSAGES: :32:3: note: training loop here
  // CHECK-FIXES: {{^}}  torch::Device Device(DeviceType);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  at::globalContext().setBenchmarkCuDNN(true);{{$}}
#ifdef BENCHMARK_OFF
  at::globalContext().setBenchmarkCuDNN(false);
#endif
#ifdef DETERMINISTIC
  at::globalContext().setDeterministicCuDNN(true);
#endif
#ifdef DETERMINISTIC_ALGORITHMS
  torch::globalContext().setDeterministicAlgorithms(true, false);
#endif
  Net Model;
  torch::optim::SGD Opt(Model->parameters(), torch::optim::SGDOptions(0.1));
  train(Model, Opt, Device);
}
