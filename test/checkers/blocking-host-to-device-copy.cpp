// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t -- -- %torch_mock_2

#include <torch/torch.h>

using torch::Tensor;

Tensor step(const Tensor &Data, const Tensor &Target);

void positiveDataLoaderBatches(torch::Device device) {
  auto Loader = torch::data::make_data_loader();
  for (auto &batch : *Loader) {
    auto data = batch.data.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: blocking copy of host data to the device in every iteration of a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    auto data = (device.is_cuda() ? batch.data.pin_memory() : batch.data).to(device, /*non_blocking=*/true);{{$}}
    auto target = batch.target.to(device, /*non_blocking=*/false);
    // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    auto target = (device.is_cuda() ? batch.target.pin_memory() : batch.target).to(device, /*non_blocking=*/true);{{$}}
    auto flat = batch.data.view({-1}).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    auto flat = (device.is_cuda() ? batch.data.view({-1}).pin_memory() : batch.data.view({-1})).to(device, /*non_blocking=*/true);{{$}}
    step(data + flat, target);
  }
}

// A target type of the project's own: its tensor fields come from the
// loader's batch like batch.target itself.
struct Captions {
  Tensor tokens;
  Tensor lengths;
};

void positiveLoaderTargetFields(
    torch::data::StatelessDataLoader<torch::data::Example<Tensor, Captions>>
        &Loader,
    torch::Device device) {
  for (auto &batch : Loader) {
    auto tokens = batch.target.tokens.index({0}).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:50: warning: blocking copy of host data to the device in every iteration of a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    auto tokens = (device.is_cuda() ? batch.target.tokens.index({0}).pin_memory() : batch.target.tokens.index({0})).to(device, /*non_blocking=*/true);{{$}}
    step(tokens, batch.target.lengths);
  }
}

// The same fields of values that are no loader's batch: their device is
// not known here.
void negativeTargetFieldsElsewhere(const std::vector<Captions> &All,
                                   torch::Device device) {
  for (const auto &C : All)
    step(C.tokens.to(device), C.lengths);
}

void positiveCudaAndHostBuffers(const std::vector<float *> &Frames,
                                const std::vector<Tensor> &Results) {
  for (size_t I = 0; I < Frames.size(); ++I) {
    Tensor Frame = torch::from_blob(Frames[I], {64});
    Tensor OnGpu = Frame.cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    Tensor OnGpu = Frame.pin_memory().to(torch::kCUDA, /*non_blocking=*/true);{{$}}
    Tensor Labels = Results[I].cpu();
    step(OnGpu, Labels.to(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    step(OnGpu, Labels.pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
  }
}

void negativeFactoriesBelongToHostTensorToDevice(int Steps) {
  for (int I = 0; I < Steps; ++I) {
    Tensor Noise = torch::randn({64});
    step(Noise.cuda(), torch::zeros({64}).to(torch::kCUDA));
  }
}

void negativeAlreadyAsyncOrPinned(torch::Device device) {
  auto Loader = torch::data::make_data_loader();
  for (auto &batch : *Loader) {
    auto a = batch.data.to(device, /*non_blocking=*/true);
    auto b = batch.data.pin_memory().to(device);
    Tensor Pinned = batch.target.pin_memory();
    auto c = Pinned.to(device);
    step(a + b, c);
  }
}

void negativeNotHostToDevice(torch::Device device, const Tensor &Unknown) {
  auto Loader = torch::data::make_data_loader();
  for (auto &batch : *Loader) {
    // Device to host: never made non-blocking.
    Tensor Out = step(batch.data, batch.target);
    Tensor Host = Out.cpu();
    Tensor Host2 = Out.to(torch::kCPU);
    // A dtype change only.
    Tensor AsDouble = batch.data.to(torch::kDouble);
    // Where Unknown lives is not known.
    Tensor Moved = Unknown.to(device);
    step(Host + Host2 + AsDouble, Moved);
  }
}

// The batch reassigned in straight-line code: a dtype change keeps it on the
// host, so the copy after it is still from host data.
void positiveReassignedBatch(torch::Device device) {
  auto Loader = torch::data::make_data_loader();
  for (auto &batch : *Loader) {
    auto data = batch.data;
    data = data.to(torch::kFloat);
    data = data.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    data = (device.is_cuda() ? data.pin_memory() : data).to(device, /*non_blocking=*/true);{{$}}
    auto target = batch.target;
    target = target.to(torch::kLong);
    auto onDevice = target.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    auto onDevice = (device.is_cuda() ? target.pin_memory() : target).to(device, /*non_blocking=*/true);{{$}}
    step(data, onDevice);
  }
}

// A write the straight line does not show (in a branch, through a
// reference) leaves the value unknown.
void negativeReassignedUnknown(torch::Device device, bool Flag,
                               Tensor &Other) {
  auto Loader = torch::data::make_data_loader();
  for (auto &batch : *Loader) {
    auto data = batch.data;
    if (Flag)
      data = Other;
    data = data.to(device);
    auto target = batch.target;
    Tensor &Alias = target;
    Alias = Other;
    target = target.to(device);
    step(data, target);
  }
}

void negativeOutsideLoops(torch::Device device) {
  Tensor Once = torch::randn({8}).to(device);
  step(Once, Once);
}
