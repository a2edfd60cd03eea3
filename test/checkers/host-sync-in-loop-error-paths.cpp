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
      // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'item()' synchronizes the host with the device per iteration of the loop; log it every N steps [torch-host-sync-in-loop]
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
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: printing a tensor synchronizes the host with the device per iteration of the loop; print it after the loop or every N steps [torch-host-sync-in-loop]
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

// ---- Assertions: a value that only decides a failure -----------------------

void assertFinite(const Tensor &T, const char *What) {
  if (!T.defined())
    return;
  bool Ok = T.norm().item<float>() < 1e30f;
  if (!Ok) {
    std::cerr << What << " contains NaN/Inf\n";
    std::exit(1);
  }
}

void assertClose(const Tensor &A, const Tensor &B, double Tol) {
  double MaxAbs = A.sum().item<double>();
  double MaxRef = B.sum().item<double>();
  double Limit = Tol * MaxRef;
  if (!(MaxAbs <= Limit)) {
    std::cerr << "max difference " << MaxAbs << " above " << Limit << "\n";
    std::abort();
  }
}

void negativeTestAssertions(const std::vector<Tensor> &Steps, Tensor W) {
  double First = 0;
  double Last = 0;
  for (std::size_t I = 0; I < Steps.size(); ++I) {
    Tensor Loss = computeLoss(Steps[I]);
    assertClose(Loss, W, 1e-5);
    assertFinite(W, "w");
    if (Loss.item<float>() > 1e6f) {
      std::fprintf(stderr, "diverged\n");
      std::exit(2);
    }
    double Value = Loss.item<double>();
    if (I == 0)
      First = Value;
    Last = Value;
  }
  if (!(Last < First * 0.2)) {
    std::cerr << "loss did not decrease\n";
    std::exit(1);
  }
}

void warnOnly(const Tensor &T) {
  if (T.sum().item<float>() < 0)
    std::cerr << "negative sum\n";
}

void positiveChecksThatGoOn(const std::vector<Tensor> &Batches) {
  for (const auto &X : Batches) {
    Tensor Loss = computeLoss(X);
    // A check that only warns lets the loop go on: its condition runs every
    // iteration.
    if (Loss.item<float>() > 1e6f)
      // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'item()' synchronizes the host with the device per iteration of the loop; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
      std::cerr << "large loss\n";
    warnOnly(Loss);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: call to 'warnOnly' synchronizes the host with the device per iteration of the loop: 'item()'; copy the tensor once with .cpu() before the loop, or keep the computation on the device [torch-host-sync-in-loop]
    // CHECK-MESSAGES: :[[@LINE-14]]:15: note: 'item()' synchronizes here
    train(Loss);
  }
}

// This file runs on the GPU.
static const torch::Device Gpu(torch::kCUDA);
