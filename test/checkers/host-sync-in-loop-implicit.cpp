// Implicit syncs and copies: boolean-mask indexing, ops whose output size
// depends on the data, and device tensors indexed with host index tensors.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t.v1 -- -- %torch_mock_1_13

#include <torch/torch.h>

#include <vector>

using torch::Tensor;
using torch::indexing::Slice;

void positiveBooleanMasks(const std::vector<Tensor> &Batches, Tensor Scores) {
  for (const auto &X : Batches) {
    Tensor Mask = X > 0.5;
    Tensor Kept = X.index({Mask});
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: boolean-mask indexing synchronizes the host with the device per iteration of the loop; it runs 'nonzero' to size its output, so the host waits for it; keep the shape fixed ('where' with the mask, or multiply by it) or move it out of the loop [torch-host-sync-in-loop]
    Tensor Picked = Scores[X.gt(0.1)];
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: boolean-mask indexing synchronizes
    Tensor Flags = torch::zeros({4}, torch::kBool);
    Tensor Rows = X.index({Slice(), Flags});
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: boolean-mask indexing synchronizes
    Tensor Both = (X > 0.1) & torch::logical_not(X > 0.9);
    Tensor Mid = Scores[Both];
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: boolean-mask indexing synchronizes
    Tensor Converted = Scores.index({X.to(torch::kBool)});
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: boolean-mask indexing synchronizes
    (void)Kept, (void)Picked, (void)Rows, (void)Mid, (void)Converted;
  }
}

void positiveDataDependentSizes(const std::vector<Tensor> &Batches,
                                Tensor Repeats) {
  for (const auto &X : Batches) {
    Tensor Counts = torch::bincount(X);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'bincount()' synchronizes the host with the device per iteration of the loop; its output size depends on the largest value, so the host waits for it; count into a fixed-size tensor with 'index_add_' or 'scatter_add_', or move it out of the loop [torch-host-sync-in-loop]
    Tensor Counts2 = X.bincount();
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'bincount()' synchronizes
    Tensor Spread = X.repeat_interleave(Repeats);
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'repeat_interleave()' synchronizes the host with the device per iteration of the loop; with a tensor of repeats its output size depends on the data, so the host waits for it; pass 'output_size' when the total is known, or move it out of the loop [torch-host-sync-in-loop]
    Tensor Spread2 = torch::repeat_interleave(X, Repeats);
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'repeat_interleave()' synchronizes
    auto Unique = torch::_unique2(X);
    // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: '_unique2()' synchronizes
    (void)Counts, (void)Counts2, (void)Spread, (void)Spread2, (void)Unique;
  }
}

void positiveHostIndexTensor(Tensor Data, torch::Device Device, int Steps) {
  Tensor OnDevice = Data.to(Device);
  Tensor Perm = torch::randperm(64);
  Tensor Range = torch::arange(32);
  for (int I = 0; I < Steps; ++I) {
    Tensor Batch = OnDevice.index_select(0, Perm);
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: indexing with a host tensor synchronizes the host with the device per iteration of the loop; an index tensor made on the host is copied to the device at every use; make it on the device [torch-host-sync-in-loop]
    Tensor Head = OnDevice.index({Range});
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: indexing with a host tensor synchronizes
    Tensor Shuffled = OnDevice.cuda()[Perm];
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: indexing with a host tensor synchronizes
    (void)Batch, (void)Head, (void)Shuffled;
  }
}

// ---- Silent ----------------------------------------------------------------

void negativeIntegerIndexing(const std::vector<Tensor> &Batches,
                             Tensor Index, Tensor Repeats) {
  for (const auto &X : Batches) {
    // Integers, slices, and index tensors of unknown dtype or place.
    Tensor First = X[0];
    Tensor All = X.index({Slice()});
    Tensor Some = X.index({Index});
    Tensor Gathered = X.index_select(0, Index);
    // An output size given, or an integer count of repeats.
    Tensor Spread = X.repeat_interleave(Repeats, 0, 128);
    Tensor Twice = X.repeat_interleave(2);
    (void)First, (void)All, (void)Some, (void)Gathered, (void)Spread,
        (void)Twice;
  }
}

void negativeOnTheCpu(int Steps) {
  Tensor Host = torch::randn({64, 8});
  Tensor Perm = torch::randperm(64);
  for (int I = 0; I < Steps; ++I) {
    Tensor Mask = Host > 0.5;
    Tensor Kept = Host.index({Mask});
    Tensor Batch = Host.index_select(0, Perm);
    Tensor Counts = torch::bincount(torch::randperm(8));
    (void)Kept, (void)Batch, (void)Counts;
  }
}

void negativeDeviceIndexOrUnknownTensor(Tensor Data, Tensor Unknown,
                                        torch::Device Device, int Steps) {
  Tensor OnDevice = Data.to(Device);
  Tensor Perm = torch::randperm(64, torch::TensorOptions().device(Device));
  Tensor HostPerm = torch::randperm(64);
  for (int I = 0; I < Steps; ++I) {
    // An index made on the device, or a tensor not known to be on it.
    Tensor Batch = OnDevice.index_select(0, Perm);
    Tensor Other = Unknown.index_select(0, HostPerm);
    (void)Batch, (void)Other;
  }
}

// This file runs on the GPU.
static const torch::Device Gpu(torch::kCUDA);
