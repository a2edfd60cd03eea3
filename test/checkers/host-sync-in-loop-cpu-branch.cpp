// A function whose every call in the file is on the CPU branch of a device
// test (`if (device_ == kCPU) fitOnCpu(); else fitOnDevice();`) runs on the
// CPU, where a sync waits for nothing: its loops are not reported. A
// function also called elsewhere, or under a test that does not say CPU
// (`== kCUDA`, `!= kCPU`'s then branch), still is.
//
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <vector>

torch::Tensor step(const torch::Tensor &X);

class Trainer {
public:
  explicit Trainer(torch::DeviceType D) : Device(D) {}

  void fit(const std::vector<torch::Tensor> &Batches) {
    if (Device == torch::kCPU) {
      fitOnCpu(Batches);
    } else {
      fitOnDevice(Batches);
    }
  }

private:
  float fitOnCpu(const std::vector<torch::Tensor> &Batches) {
    float Sum = 0;
    for (const auto &X : Batches)
      Sum = step(X).item<float>();
    return Sum;
  }
  float fitOnDevice(const std::vector<torch::Tensor> &Batches) {
    float Sum = 0;
    for (const auto &X : Batches)
      Sum = step(X).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
    return Sum;
  }

  torch::DeviceType Device;
};

// A class template no code here instantiates, its dispatch written with
// `!=` and the CPU work in the else branch.
template <typename Model> class Runner {
public:
  void run(const std::vector<torch::Tensor> &Batches) {
    if (Where != torch::kCPU)
      runOnDevice(Batches);
    else
      runOnCpu(Batches);
  }

private:
  void runOnCpu(const std::vector<torch::Tensor> &Batches);
  void runOnDevice(const std::vector<torch::Tensor> &Batches);
  torch::Device Where{torch::kCPU};
  float Last = 0;
};

template <typename Model>
void Runner<Model>::runOnCpu(const std::vector<torch::Tensor> &Batches) {
  for (const auto &X : Batches)
    Last = step(X).template item<float>();
}

template <typename Model>
void Runner<Model>::runOnDevice(const std::vector<torch::Tensor> &Batches) {
  for (const auto &X : Batches)
    Last = step(X).template item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
}

// `is_cpu()` says CPU; a CUDA test does not (the else could be any device).
float evaluateOnCpu(const std::vector<torch::Tensor> &Batches) {
  float Sum = 0;
  for (const auto &X : Batches)
    Sum = step(X).item<float>();
  return Sum;
}

float evaluateElsewhere(const std::vector<torch::Tensor> &Batches) {
  float Sum = 0;
  for (const auto &X : Batches)
    Sum = step(X).item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
  return Sum;
}

// Also called with no test at all: it may run on the device.
float evaluateAnywhere(const std::vector<torch::Tensor> &Batches) {
  float Sum = 0;
  for (const auto &X : Batches)
    Sum = step(X).item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
  return Sum;
}

float evaluate(const std::vector<torch::Tensor> &Batches, torch::Device D) {
  float Result = 0;
  if (D.is_cpu())
    Result += evaluateOnCpu(Batches) + evaluateAnywhere(Batches);
  if (D.type() == torch::kCUDA)
    Result += evaluateElsewhere(Batches);
  else
    Result += evaluateElsewhere(Batches);
  return Result + evaluateAnywhere(Batches);
}
