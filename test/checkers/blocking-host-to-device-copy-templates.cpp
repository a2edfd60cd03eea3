// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t -- -- %torch_mock_2
// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t.v1 -- -- %torch_mock_1_13

// Trainers written as templates over the data loader's type: decided on their
// only instantiation, reported once, at the code as written.

#include <torch/torch.h>

using torch::Tensor;

Tensor step(const Tensor &Data, const Tensor &Target);

template <typename DataLoader>
void trainEpoch(torch::Device device, DataLoader &Loader) {
  for (auto &batch : Loader) {
    auto data = batch.data.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: blocking copy of host data to the device in every iteration of a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    auto data = (device.is_cuda() ? batch.data.pin_memory() : batch.data).to(device, /*non_blocking=*/true);{{$}}
    step(data, data);
  }
}

struct CachedBatch {
  Tensor data;
  Tensor target;
};

template <typename DataLoader>
void negativeTwoInstantiations(torch::Device device, DataLoader &Loader) {
  // Instantiated with a data loader (host batches) and with batches the
  // program keeps on the device: the code as written is not decided.
  for (auto &batch : Loader)
    step(batch.data.to(device), batch.target);
}

template <typename DataLoader>
void negativeNeverInstantiated(torch::Device device, DataLoader &Loader) {
  for (auto &batch : Loader)
    step(batch.data.to(device), batch.target.to(device));
}

void run(torch::Device device, const std::vector<float *> &Frames) {
  auto Loader = torch::data::make_data_loader();
  trainEpoch(device, *Loader);

  negativeTwoInstantiations(device, *Loader);
  std::vector<CachedBatch> Cached;
  negativeTwoInstantiations(device, Cached);
  std::vector<Tensor> OnGpu;
  for (float *F : Frames)
    OnGpu.push_back(torch::from_blob(F, {4}).cuda());
  // CHECK-MESSAGES: :[[@LINE-1]]:46: warning: blocking copy of host data
  // CHECK-FIXES: {{^}}    OnGpu.push_back(torch::from_blob(F, {4}).pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
}
