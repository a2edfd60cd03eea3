// Constant flags: a local bool initialized with a literal and never changed
// (or a const/constexpr one) decides its branches. A device chosen under
// such a flag is provably the CPU's: no sync and no host-to-device finding
// on it; a branch dead under one reports nothing. A flag that may change
// (assigned, set from the command line, passed by non-const reference,
// address taken, a non-const global) stays unknown.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop,torch-host-tensor-to-device %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <iostream>
#include <vector>

torch::Tensor computeLoss(const torch::Tensor &X);
void parseFlag(bool &Flag);

static const bool kLogTensors = false;
bool gVerbose = false;

// ---- A device chosen under a constant flag ----------------------------------

float forceCpu(const std::vector<torch::Tensor> &Batches) {
  bool force_cpu = true;
  torch::Device Device(torch::kCPU);
  if (!force_cpu)
    Device = torch::Device(torch::kCUDA);
  torch::Tensor W = torch::ones({2}).to(Device);
  float Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Y = torch::zeros({2}).to(Device);
    Last = (W + Y).sum().item<float>();
  }
  return Last;
}

float forceCpuAvailable(const std::vector<torch::Tensor> &Batches) {
  const bool force_cpu = true;
  torch::Device Device = torch::kCPU;
  if (torch::cuda::is_available() && !force_cpu)
    Device = torch::kCUDA;
  float Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Y = torch::ones({2}).to(Device);
    Last = Y.sum().item<float>();
  }
  return Last;
}

float forceCpuTernary(const std::vector<torch::Tensor> &Batches) {
  bool use_gpu = false;
  torch::Device Device = use_gpu ? torch::kCUDA : torch::kCPU;
  float Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Y = torch::ones({2}).to(Device);
    Last = Y.sum().item<float>();
  }
  return Last;
}

// ---- Branches dead under constant flags ---------------------------------------

void deadBranches(const std::vector<torch::Tensor> &Batches) {
  bool verbose = false;
  constexpr bool kDebug = false;
  for (const auto &X : Batches) {
    torch::Tensor L = computeLoss(X.to(torch::kCUDA));
    if (verbose)
      std::cout << L << std::endl;
    if (kDebug && L.defined())
      std::cout << L.item<float>() << std::endl;
    if (kLogTensors)
      std::cout << L << std::endl;
    if (!verbose) {
    } else {
      std::cout << L << std::endl;
    }
  }
}

// ---- Flags that may change: reported -------------------------------------------

float flagFromArgs(int Argc, const std::vector<torch::Tensor> &Batches) {
  bool force_cpu = Argc > 1;
  torch::Device Device(torch::kCPU);
  if (!force_cpu)
    Device = torch::Device(torch::kCUDA);
  float Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Y = X.to(Device);
    Last = Y.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item()' synchronizes the host with the device per iteration of the loop
  }
  return Last;
}

float flagAssigned(int Argc, const std::vector<torch::Tensor> &Batches) {
  bool force_cpu = true;
  if (Argc > 2)
    force_cpu = false;
  torch::Device Device(torch::kCPU);
  if (!force_cpu)
    Device = torch::Device(torch::kCUDA);
  float Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Y = X.to(Device);
    Last = Y.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item()' synchronizes the host with the device per iteration of the loop
  }
  return Last;
}

float flagByReference(const std::vector<torch::Tensor> &Batches) {
  bool force_cpu = true;
  parseFlag(force_cpu);
  torch::Device Device(torch::kCPU);
  if (!force_cpu)
    Device = torch::Device(torch::kCUDA);
  float Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Y = X.to(Device);
    Last = Y.sum().item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item()' synchronizes the host with the device per iteration of the loop
  }
  return Last;
}

void liveBranches(const std::vector<torch::Tensor> &Batches) {
  bool verbose = false;
  bool *Alias = &verbose;
  (void)Alias;
  for (const auto &X : Batches) {
    torch::Tensor L = computeLoss(X.to(torch::kCUDA));
    if (verbose)
      std::cout << L << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: printing a tensor synchronizes the host with the device per iteration of the loop
    if (gVerbose)
      std::cout << L << std::endl;
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: printing a tensor synchronizes the host with the device per iteration of the loop
  }
}
