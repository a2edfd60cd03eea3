// The advice fits how the synced value is used.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using torch::Tensor;

Tensor computeLoss(const Tensor &X);

void positiveIndexAndBound(const Tensor &Labels, const Tensor &Lengths,
                           std::vector<int> &Hist, Tensor Values) {
  for (int I = 0; I < 10; ++I) {
    Hist[Labels[I].item<int64_t>()] += 1;
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    int64_t Len = Lengths[I].item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    for (int64_t J = 0; J < Len; ++J)
      Hist[J] += 1;
    Tensor Row = Values[Labels[I].item<int64_t>()];
    // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: 'item()' synchronizes {{.*}}; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    (void)Row;
    int64_t Col = Lengths[I].item<int64_t>();
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'item()' synchronizes {{.*}}; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    Tensor Cell = Values.index({I, Col});
    (void)Cell;
    int64_t Left = std::max<int64_t>(0, Lengths[I].item<int64_t>() - 2);
    // CHECK-MESSAGES: :[[@LINE-1]]:52: warning: 'item()' synchronizes {{.*}}; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    if (Left > 4)
      Hist[0] += 1;
  }
}

void positiveLogging(const std::vector<Tensor> &Batches,
                     std::vector<std::string> &Lines) {
  int Step = 0;
  for (const auto &X : Batches) {
    Tensor Loss = computeLoss(X);
    std::printf("step %d loss %f\n", Step++, Loss.item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'item()' synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
    float Value = Loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'item()' synchronizes {{.*}}; log it every N steps [torch-host-sync-in-loop]
    std::cout << "loss " << Value << "\n";
    Lines.push_back("loss " + std::to_string(Loss.item<double>()));
    // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'item()' synchronizes {{.*}}; log it every N steps [torch-host-sync-in-loop]
  }
}

void positivePrintingATensor(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches)
    std::cout << computeLoss(X) << "\n";
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: printing a tensor synchronizes the host with the device per iteration of the loop; print it after the loop or every N steps [torch-host-sync-in-loop]
}

float positiveAccumulation(const std::vector<Tensor> &Batches) {
  float Total = 0;
  for (const auto &X : Batches) {
    float Value = computeLoss(X).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'item()' synchronizes {{.*}}; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
    Total = Total + Value;
  }
  return Total;
}

float readLoss(const Tensor &Loss) { return Loss.item<float>(); }

void positiveReturnedThenUsedAsAnIndex(const std::vector<Tensor> &Batches,
                                       std::vector<int> &Hist) {
  for (const auto &X : Batches)
    Hist[static_cast<size_t>(readLoss(X))] += 1;
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: call to 'readLoss' synchronizes the host with the device per iteration of the loop: 'item()'; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
  // CHECK-MESSAGES: :[[@LINE-3]]:3: note: loop here
  // CHECK-MESSAGES: :[[@LINE-8]]:50: note: 'item()' synchronizes here
}

void positiveOtherUses(const std::vector<Tensor> &Batches,
                       std::vector<float> &History) {
  for (const auto &X : Batches) {
    History.push_back(computeLoss(X).item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'item()' synchronizes {{.*}}; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
  }
}

// A logger whose operator<< hands the record back is a stream.
struct LogRecord {
  template <typename T> LogRecord &operator<<(const T &Value) {
    (void)Value;
    return *this;
  }
};

// One element read from a copy's data is the value, used as item()'s is.
void positiveOneElementOfACopy(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    std::cout << "loss " << computeLoss(X).cpu().data_ptr<float>()[0];
    // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
  }
  for (const auto &X : Batches) {
    LogRecord() << "loss " << computeLoss(X).item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: 'item()' synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
  }
  for (const auto &X : Batches) {
    if (*computeLoss(X).cpu().data_ptr<float>() < 0.01F)
      break;
  }
}

// This file runs on the GPU.
static const torch::Device Gpu(torch::kCUDA);
