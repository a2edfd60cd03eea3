// torch-blocking-host-to-device-copy on the real LibTorch headers, through
// both hosts; the fixed file is compiled against the same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t -- -- %torch_real

#include <torch/torch.h>

#include <queue>
#include <utility>
#include <vector>

template <typename Loader>
void train(Loader &loader, torch::nn::Linear &model, torch::Device device) {
  for (auto &batch : loader) {
    auto out = model(batch.data.to(device));
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    auto out = model((device.is_cuda() ? batch.data.pin_memory() : batch.data).to(device, /*non_blocking=*/true));{{$}}
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
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
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
  // The template trainer above, instantiated once: decided on it.
  train(*loader, model, device);
}

// A data set of the project's own whose batches carry a target type of its
// own: the target's tensor fields are host data like batch.target itself.
struct Captions {
  torch::Tensor tokens;
  torch::Tensor lengths;
};
using CaptionBatch = torch::data::Example<torch::Tensor, Captions>;

class CaptionData
    : public torch::data::datasets::BatchDataset<CaptionData, CaptionBatch> {
public:
  CaptionBatch get_batch(c10::ArrayRef<size_t> indices) override {
    auto n = static_cast<int64_t>(indices.size());
    return {torch::zeros({n, 4}),
            {torch::zeros({n, 6}, torch::kLong),
             torch::full({n}, 6, torch::kLong)}};
  }
  c10::optional<size_t> size() const override { return 8; }
};

void trainCaptions(torch::nn::Linear &model, torch::Device device) {
  auto loader = torch::data::make_data_loader(
      CaptionData(), torch::data::DataLoaderOptions(4));
  for (auto &batch : *loader) {
    auto tokens = batch.target.tokens.index({torch::indexing::Slice(), 0}).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:76: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    auto tokens = (device.is_cuda() ? batch.target.tokens.index({torch::indexing::Slice(), 0}).pin_memory() : batch.target.tokens.index({torch::indexing::Slice(), 0})).to(device, /*non_blocking=*/true);{{$}}
    model(tokens.to(torch::kFloat));
    // What LibTorch makes of host data stays on the host: the packed tokens.
    auto packed = torch::nn::utils::rnn::pack_padded_sequence(
        batch.target.tokens, batch.target.lengths, true);
    model(packed.data().to(device).to(torch::kFloat).view({-1, 4}));
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-11]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    model((device.is_cuda() ? packed.data().pin_memory() : packed.data()).to(device, /*non_blocking=*/true).to(torch::kFloat).view({-1, 4}));{{$}}
  }
}

// The project's own loaders: a buffer wrapped and cloned, a collate function
// that stacks them.
torch::Tensor loadSample(std::vector<float> &buffer) {
  return torch::from_blob(buffer.data(), {2, 2}).permute({1, 0}).clone();
}

torch::Tensor collate(std::vector<float> &buffer) {
  std::vector<torch::Tensor> items;
  for (int i = 0; i < 2; ++i)
    items.push_back(loadSample(buffer));
  return torch::stack(items);
}

// Called from the loop in train(): runs every step.
torch::Tensor prepare(std::vector<float> &buffer, torch::Device device) {
  return collate(buffer).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: blocking copy of host data to the device in every call of 'prepare', called in a loop
  // CHECK-MESSAGES: :[[@LINE+8]]:3: note: the loop that repeats it
  // CHECK-FIXES: {{^}}  return (device.is_cuda() ? collate(buffer).pin_memory() : collate(buffer)).to(device, /*non_blocking=*/true);{{$}}
}

void train(torch::nn::Linear &model, torch::Device device) {
  std::vector<float> buffer(4, 1.0f);
  // Loaded once before training: silent.
  auto mean = loadSample(buffer).to(device);
  for (int step = 0; step < 3; ++step) {
    auto sample = loadSample(buffer).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    auto sample = (device.is_cuda() ? loadSample(buffer).pin_memory() : loadSample(buffer)).to(device, /*non_blocking=*/true);{{$}}
    auto vec = torch::tensor(buffer).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: blocking copy of host data
    // CHECK-FIXES: {{^}}    auto vec = (device.is_cuda() ? torch::tensor(buffer).pin_memory() : torch::tensor(buffer)).to(device, /*non_blocking=*/true);{{$}}
    model(prepare(buffer, device).view({-1, 4}) + sample.view({1, 4}) +
          vec.view({1, 4}) + mean.view({1, 4}));
    // A factory with a shape op: torch-host-tensor-to-device's.
    model(torch::arange(4).view({1, 4}).to(torch::kFloat).to(device));
  }
}

// An inference server: producers queue host tensors, the inference
// thread's loop batches and copies them.
class Server {
public:
  void serve() {
    while (running)
      infer();
  }
  void commit(std::vector<int> &board, int id) {
    auto state = toTensor(board);
    tasks.emplace(std::make_pair(state, id));
  }
  static torch::Tensor toTensor(std::vector<int> &board) {
    torch::Tensor cells = torch::from_blob(board.data(), {1, 9}, torch::kInt);
    torch::Tensor mine = cells.gt(0).toType(torch::kFloat);
    torch::Tensor theirs = cells.lt(0).toType(torch::kFloat);
    if (board[0] == 1)
      std::swap(mine, theirs);
    return torch::cat({mine, theirs}, 1);
  }
  void infer() {
    std::vector<torch::Tensor> states;
    while (!tasks.empty()) {
      auto task = std::move(tasks.front());
      states.emplace_back(std::move(task.first));
      tasks.pop();
    }
    if (!states.empty())
      model(torch::cat(states, 0).to(at::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: blocking copy of host data to the device in every call of 'infer', called in a loop
    // CHECK-FIXES: {{^}}      model(torch::cat(states, 0).pin_memory().to(at::kCUDA, /*non_blocking=*/true));{{$}}
  }
  bool running = true;
  torch::nn::Linear model{18, 2};
  std::queue<std::pair<torch::Tensor, int>> tasks;
};

// The batch reassigned in straight-line code (a dtype change keeps it on the
// host), as a template trainer instantiated below: reported in the
// instantiation; a write in a branch leaves it unknown.
template <typename Loader>
void trainReassigned(Loader &loader, torch::nn::Linear &model,
                     torch::Device device, bool flag, torch::Tensor other) {
  for (auto &batch : *loader) {
    auto data = batch.data;
    data = data.to(torch::kFloat);
    data = data.to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-FIXES: {{^}}    data = (device.is_cuda() ? data.pin_memory() : data).to(device, /*non_blocking=*/true);{{$}}
    auto target = batch.data;
    if (flag)
      target = other;
    target = target.to(device);
    model(data + target);
  }
}

void runReassigned(torch::nn::Linear &model, torch::Device device) {
  auto dataset =
      torch::data::datasets::TensorDataset({torch::randn({8, 4})})
          .map(torch::data::transforms::Stack<torch::data::TensorExample>());
  auto loader = torch::data::make_data_loader(std::move(dataset), 4);
  trainReassigned(loader, model, device, false, torch::zeros({4, 4}));
}

// A dataset without a Stack transform: each batch is a vector of examples,
// which a collate function of the project's own copies sample by sample.
struct Pairs : torch::data::datasets::Dataset<Pairs> {
  torch::data::Example<> get(size_t) override {
    return {torch::ones({4}), torch::zeros({4})};
  }
  c10::optional<size_t> size() const override { return 8; }
};
using Examples = std::vector<torch::data::Example<>>;

std::pair<torch::Tensor, std::vector<torch::Tensor>>
collate(Examples &batch, torch::Device device) {
  std::vector<torch::Tensor> data, targets;
  for (const auto &example : batch) {
    data.push_back(example.data);
    targets.push_back(example.target.to(device));
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    targets.push_back((device.is_cuda() ? example.target.pin_memory() : example.target).to(device, /*non_blocking=*/true));{{$}}
  }
  return {torch::stack(data).to(device), targets};
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: blocking copy of host data to the device in every call of 'collate', called in a loop
  // CHECK-FIXES: {{^}}  return {(device.is_cuda() ? torch::stack(data).pin_memory() : torch::stack(data)).to(device, /*non_blocking=*/true), targets};{{$}}
}

void runCollate(torch::nn::Linear &model, torch::Device device) {
  auto loader = torch::data::make_data_loader(Pairs(), 4);
  for (auto &batch : *loader) {
    // CHECK-MESSAGES: :[[@LINE-1]]:3: note: the loop that repeats it
    model(collate(batch, device).first);
  }
}

// LibTorch hands a batch transform the examples the dataset made.
struct ToCuda
    : torch::data::transforms::BatchTransform<Examples, torch::data::Example<>> {
  torch::data::Example<> apply_batch(Examples examples) override {
    std::vector<torch::Tensor> data;
    for (auto &example : examples) {
      data.push_back(example.data.to(torch::kCUDA));
      // CHECK-MESSAGES: :[[@LINE-1]]:35: warning: blocking copy of host data to the device in every iteration of a loop
      // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the loop that repeats it
      // CHECK-FIXES: {{^}}      data.push_back(example.data.pin_memory().to(torch::kCUDA, /*non_blocking=*/true));{{$}}
    }
    return {torch::stack(data), torch::stack(data)};
  }
};

// A loader batch's examples moved one by one with the options of a device
// tensor (LibtorchDetection's `FloatType`).
void runOptions(torch::nn::Linear &model, torch::Device device) {
  auto float_type = torch::ones(1).to(torch::kFloat).to(device).options();
  auto loader = torch::data::make_data_loader(Pairs(), 4);
  for (auto &batch : *loader) {
    std::vector<torch::Tensor> images;
    for (size_t i = 0; i < batch.size(); ++i)
      images.push_back(batch[i].data.to(float_type));
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: blocking copy of host data to the device in every iteration of a loop
    // CHECK-MESSAGES: :[[@LINE-3]]:5: note: the loop that repeats it
    // CHECK-FIXES: {{^}}      images.push_back((float_type.device().is_cuda() ? batch[i].data.pin_memory() : batch[i].data).to(float_type, /*non_blocking=*/true));{{$}}
    model(torch::stack(images));
  }
}
