// The branch of a bounds or validity check that only reports the failure is
// no per-iteration work.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

using torch::Tensor;

Tensor computeLoss(const Tensor &X);
void train(const Tensor &Loss);

void negativeElseOnlyReports(const std::vector<Tensor> &Batches, int64_t N) {
  for (const auto &X : Batches) {
    Tensor Loss = computeLoss(X);
    if (X.dim() == 2) {
      train(Loss);
    } else {
      std::cout << "bad batch, loss " << Loss.item<float>() << "\n";
    }
    if (X.numel() > N)
      std::cerr << "too large: " << Loss << "\n";
    if (X.numel() < 0) {
      std::fprintf(stderr, "negative size %f\n", Loss.item<float>());
      std::abort();
    }
    if (X.dim() < 1) {
      std::printf("empty batch %f\n", Loss.item<float>());
      std::exit(1);
    }
  }
}

void negativeThenOnlyReports(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    Tensor Loss = computeLoss(X);
    if (X.dim() != 2)
      std::cout << "skipping batch " << Loss << "\n";
    else
      train(Loss);
  }
}

void positiveBranchWithNormalWork(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    Tensor Loss = computeLoss(X);
    if (X.dim() == 2) {
      train(Loss);
      std::cout << Loss.item<float>() << "\n";
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'item()' synchronizes the host with the device per iteration of the loop at line [[@LINE-5]]; log it every N steps [torch-host-sync-in-loop]
    } else {
      std::cout << "bad batch\n";
    }
  }
}

void positivePrintingUnderAFlag(const std::vector<Tensor> &Batches,
                                bool Verbose) {
  for (const auto &X : Batches) {
    Tensor Loss = computeLoss(X);
    // A flag is no validity check: printing under it is per-iteration work.
    if (Verbose)
      std::cout << Loss << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: printing a tensor synchronizes the host with the device per iteration of the loop at line [[@LINE-5]]; print it after the loop or every N steps [torch-host-sync-in-loop]
    train(Loss);
  }
}

void positiveBothBranchesPrint(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    Tensor Loss = computeLoss(X);
    if (X.dim() == 2)
      std::cout << "2d " << Loss << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: printing a tensor synchronizes
    else
      std::cout << "nd " << Loss << "\n";
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: printing a tensor synchronizes
  }
}

// This file runs on the GPU.
static const torch::Device Gpu(torch::kCUDA);
