// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

using torch::Tensor;

Tensor step(const Tensor &X);

// An image as an image library keeps it.
struct Image {
  unsigned char *data;
  int rows, cols;
};
Image readImage(const std::string &Path);

// The project's own loader: the tensor is built on the host.
Tensor loadImage(const std::string &Path) {
  Image Img = readImage(Path);
  Tensor T = torch::from_blob(Img.data, {Img.rows, Img.cols, 3}, torch::kByte);
  return T.permute({2, 0, 1}).to(torch::kFloat).clone();
}

// The project's own collate function.
Tensor collate(const std::vector<std::string> &Paths) {
  std::vector<Tensor> Items;
  for (const auto &P : Paths)
    Items.push_back(loadImage(P));
  return torch::stack(Items);
}

void positiveOwnLoaders(torch::Device Device,
                        const std::vector<std::string> &Paths,
                        const std::vector<std::vector<float>> &Rows) {
  for (const auto &P : Paths) {
    Tensor X = loadImage(P).to(Device);
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: blocking copy of host data to the device in every iteration of a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    Tensor X = (Device.is_cuda() ? loadImage(P).pin_memory() : loadImage(P)).to(Device, /*non_blocking=*/true);{{$}}
    Tensor Batch = collate(Paths);
    step(X + Batch.to(Device));
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-8]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    step(X + (Device.is_cuda() ? Batch.pin_memory() : Batch).to(Device, /*non_blocking=*/true));{{$}}
  }
  for (const auto &Row : Rows) {
    // Built from a std::vector, and from a buffer that is then cloned.
    step(torch::tensor(Row).to(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    step(torch::tensor(Row).pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
    Tensor Copy = torch::from_blob(const_cast<float *>(Row.data()), {4}).clone();
    step(Copy.cuda());
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    step(Copy.pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
  }
}

// What a LibTorch function makes of host tensors stays on the host: the
// packed data of host captions.
void positivePackedHostData(torch::Device Device,
                            const std::vector<std::string> &Paths) {
  for (const auto &P : Paths) {
    Tensor Captions = loadImage(P);
    Tensor Lengths = torch::full({8}, 20, torch::kLong);
    auto Packed = torch::nn::utils::rnn::pack_padded_sequence(Captions, Lengths,
                                                              true);
    step(Packed.data().to(Device));
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-FIXES: {{^}}    step((Device.is_cuda() ? Packed.data().pin_memory() : Packed.data()).to(Device, /*non_blocking=*/true));{{$}}
    // Of a device tensor: nothing to pin.
    auto OnDevice = torch::nn::utils::rnn::pack_padded_sequence(
        step(Captions), Lengths, true);
    step(OnDevice.data().to(Device));
  }
}

// Called from the loop below: every step.
Tensor prepare(const std::string &Path, torch::Device Device) {
  return loadImage(Path).to(Device);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: blocking copy of host data to the device in every call of 'prepare', called in a loop; pin the source
  // CHECK-MESSAGES: :[[@LINE+13]]:3: note: the loop that repeats it
  // CHECK-FIXES: {{^}}  return (Device.is_cuda() ? loadImage(Path).pin_memory() : loadImage(Path)).to(Device, /*non_blocking=*/true);{{$}}
}

struct Policy : torch::nn::Module {
  Tensor forward(const std::vector<float> &Observation) {
    return step(torch::tensor(Observation).to(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: blocking copy of host data to the device in every call of 'forward', which runs per step
    // CHECK-FIXES: {{^}}    return step(torch::tensor(Observation).pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
  }
};

void trainLoop(const std::vector<std::string> &Paths, torch::Device Device) {
  for (const auto &P : Paths)
    step(prepare(P, Device));
}

// Negatives.
Tensor loadToDevice(const std::string &Path, torch::Device Device) {
  return torch::from_blob(readImage(Path).data, {4}).to(Device, true);
}
Tensor loadSomewhere(const Tensor &Cached) { return Cached.clone(); }

void negativeOwnLoaders(torch::Device Device,
                        const std::vector<std::string> &Paths,
                        const Tensor &Cached) {
  // Loaded once, before training.
  Tensor Mean = loadImage(Paths[0]).to(Device);
  for (const auto &P : Paths) {
    // Already on the device, or of unknown place.
    step(loadToDevice(P, Device).to(Device));
    step(loadSomewhere(Cached).to(Device));
    // Already pinned and non-blocking.
    step(loadImage(P).pin_memory().to(Device, /*non_blocking=*/true));
    // A factory with shape ops: torch-host-tensor-to-device's.
    step(torch::arange(8).view({2, 4}).to(torch::kFloat).to(Device));
    step(Mean);
  }
}

// A collate function: every call here passes it a data loader's batch, so
// its examples' tensors are host tensors, copied one sample at a time.
using ExampleBatch = std::vector<torch::data::Example<>>;

std::pair<Tensor, std::vector<Tensor>> collateOnDevice(ExampleBatch &Batch,
                                                       torch::Device Device) {
  std::vector<Tensor> Images, Targets;
  for (const auto &Example : Batch) {
    Images.push_back(Example.data);
    Targets.push_back(Example.target.to(Device));
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: blocking copy of host data to the device in every iteration of a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    Targets.push_back((Device.is_cuda() ? Example.target.pin_memory() : Example.target).to(Device, /*non_blocking=*/true));{{$}}
  }
  return {torch::stack(Images, 0).to(Device), Targets};
  // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: blocking copy of host data to the device in every call of 'collateOnDevice', called in a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
}

void positiveCollateFunction(
    torch::data::StatelessDataLoader<ExampleBatch> &Loader,
    torch::Device Device) {
  for (auto &Batch : Loader) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the loop that repeats it
    auto Collated = collateOnDevice(Batch, Device);
    step(Collated.first + Batch[0].data.to(Device));
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the loop that repeats it
  }
}

// LibTorch hands a batch transform the examples the dataset made.
struct ToDevice : torch::data::transforms::BatchTransform<
                      ExampleBatch, torch::data::Example<>> {
  torch::data::Example<> apply_batch(ExampleBatch Examples) override {
    std::vector<Tensor> Data;
    for (auto &E : Examples) {
      Data.push_back(E.data.to(torch::kCUDA));
      // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: blocking copy of host data to the device in every iteration of a loop
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the loop that repeats it
      // CHECK-FIXES: {{^}}      Data.push_back(E.data.pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
    }
    return {torch::stack(Data), torch::stack(Data)};
  }
};

// One call passes a loader's batch, another examples of the project's own
// that may be anywhere: silent.
Tensor lastOnDevice(const ExampleBatch &Batch, torch::Device Device) {
  Tensor Last;
  for (const auto &Example : Batch)
    Last = Example.data.to(Device);
  return Last;
}
void negativeMixedCallers(
    torch::data::StatelessDataLoader<ExampleBatch> &Loader,
    const ExampleBatch &Own, torch::Device Device) {
  for (auto &Batch : Loader) {
    step(lastOnDevice(Batch, Device));
    step(lastOnDevice(Own, Device));
  }
}

// Moved with options that carry a device: those of a device tensor, or a
// device set on them; options with a dtype alone only convert.
void positiveOptionsTargets(torch::Device Device,
                            const std::vector<std::string> &Paths) {
  auto FloatType = torch::ones({1}).to(torch::kFloat).to(Device).options();
  auto Cuda = torch::TensorOptions().device(torch::kCUDA);
  auto DtypeOnly = torch::TensorOptions().dtype(torch::kFloat);
  for (const auto &P : Paths) {
    step(loadImage(P).to(FloatType));
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-FIXES: {{^}}    step((FloatType.device().is_cuda() ? loadImage(P).pin_memory() : loadImage(P)).to(FloatType, /*non_blocking=*/true));{{$}}
    step(loadImage(P).to(Cuda));
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-FIXES: {{^}}    step(loadImage(P).pin_memory().to(Cuda, /*non_blocking=*/true));{{$}}
    step(loadImage(P).to(DtypeOnly));
  }
}
