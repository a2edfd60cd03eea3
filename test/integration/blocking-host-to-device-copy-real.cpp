// torch-blocking-host-to-device-copy on the real LibTorch headers, through
// both hosts; the fixed file is compiled against the same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t -- -- %torch_real

#include <torch/torch.h>

template <typename Loader>
void train(Loader &loader, torch::nn::Linear &model, torch::Device device) {
  for (auto &batch : loader) {
    auto out = model(batch.data.to(device));
    (void)out;
  }
}

void run(torch::nn::Linear &model, torch::Device device) {
  auto dataset =
      torch::data::datasets::TensorDataset({torch::randn({8, 4})})
          .map(torch::data::transforms::Stack<torch::data::TensorExample>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 4);
  for (auto &batch : *loader) {
    auto data = batch.data.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: blocking copy of host data to the device in every iteration of the loop at line [[@LINE-2]]
    // CHECK-FIXES: {{^}}    auto data = (device.is_cuda() ? batch.data.pin_memory() : batch.data).to(device, /*non_blocking=*/true);{{$}}
    model(data);
  }
  std::vector<float> host(16, 1.0f);
  for (int step = 0; step < 3; ++step) {
    auto batch = torch::from_blob(host.data(), {4, 4}).cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:56: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    auto batch = torch::from_blob(host.data(), {4, 4}).pin_memory().to(torch::kCUDA, /*non_blocking=*/true);{{$}}
    model(batch);
  }
}
