// RUN: %check_torch_tidy %s torch-data-parallel %t -- -- %torch_mock_1_13
// RUN: %check_torch_tidy %s torch-data-parallel %t.v2 -- -- %torch_mock_2
// integration/data-parallel-real* run this input on the real headers.

#include <torch/torch.h>

// The real torch/nn/parallel/data_parallel.h includes CUDA headers (cuda.h,
// cuda_runtime_api.h, through torch/csrc/autograd/functions/comm.h) that a
// CPU-only LibTorch and this machine lack: where they are missing, the
// real-header tests (which define REAL_LIBTORCH) declare data_parallel() with
// the header's own signature (data_parallel.h:252-258 on 1.13, c10::optional
// being std::optional on 2.x), so that the analysis still runs on the real
// Tensor, Device and Module types. The mock header needs no CUDA headers.
#if defined(REAL_LIBTORCH) &&                                                  \
    !(__has_include(<cuda_runtime_api.h>) && __has_include(<cuda.h>))
namespace torch {
namespace nn {
namespace parallel {
template <typename ModuleType>
Tensor data_parallel(ModuleType module, Tensor input,
                     c10::optional<std::vector<Device>> devices = c10::nullopt,
                     c10::optional<Device> output_device = c10::nullopt,
                     int64_t dim = 0);
} // namespace parallel
} // namespace nn
} // namespace torch
#else
#include <torch/nn/parallel/data_parallel.h>
#endif

#include <vector>

using torch::nn::parallel::data_parallel;

struct NetImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Net);

// --- Positive ---------------------------------------------------------------

void trainAllGpus(Net net, torch::optim::SGD &opt,
                  const std::vector<torch::Tensor> &batches) {
  for (const auto &batch : batches) {
    auto out = torch::nn::parallel::data_parallel(net, batch);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: data_parallel() over every GPU copies the module to each device and gathers the outputs on one, in every iteration of a loop; train with one process per GPU instead [torch-data-parallel]
    // CHECK-MESSAGES: :[[@LINE-2]]:16: note: one process per GPU: c10d's ProcessGroupNCCL, parameters broadcast once, gradients all-reduced after backward()
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats it
    out.sum().backward();
    opt.step();
  }
}

torch::Tensor step(Net net, torch::Tensor batch) {
  return data_parallel(net, batch,
                       std::vector<torch::Device>{torch::Device(torch::kCUDA, 0),
                                                  torch::Device(torch::kCUDA, 1)});
  // CHECK-MESSAGES: :[[@LINE-3]]:10: warning: data_parallel() over several devices copies the module to each device and gathers the outputs on one, in every call of 'step', called in a loop; train with one process per GPU instead
  // CHECK-MESSAGES: :[[@LINE-4]]:10: note: one process per GPU
  // CHECK-MESSAGES: :[[@LINE+6]]:3: note: the loop that repeats it
}

void trainThroughStep(Net net, const std::vector<torch::Tensor> &batches,
                      torch::optim::SGD &opt) {
  std::vector<torch::Device> devices;
  for (const auto &batch : batches) {
    step(net, batch).sum().backward();
    opt.step();
  }
}

void trainDeviceList(Net net, const std::vector<torch::Tensor> &batches) {
  std::vector<torch::Device> devices;
  for (size_t i = 0; i < torch::cuda::device_count(); ++i)
    devices.push_back(torch::Device(torch::kCUDA, i));
  for (const auto &batch : batches)
    data_parallel(net, batch, devices).sum().backward();
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: data_parallel() over several devices copies the module
  // CHECK-MESSAGES: :[[@LINE-2]]:5: note: one process per GPU
  // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats it
}

// --- Negative ---------------------------------------------------------------

// One device: no replication.
void trainOneDevice(Net net, const std::vector<torch::Tensor> &batches) {
  std::vector<torch::Device> one{torch::Device(torch::kCUDA, 0)};
  for (const auto &batch : batches) {
    data_parallel(net, batch, one).sum().backward();
    data_parallel(net, batch, std::vector<torch::Device>{torch::kCUDA})
        .sum()
        .backward();
  }
}

// A branch that runs only with one GPU.
void trainIfOneGpu(Net net, const std::vector<torch::Tensor> &batches) {
  for (const auto &batch : batches) {
    if (torch::cuda::device_count() == 1)
      data_parallel(net, batch).sum().backward();
    else
      net->forward(batch).sum().backward();
    if (torch::cuda::device_count() > 1) {
      net->forward(batch).sum().backward();
    } else {
      data_parallel(net, batch).sum().backward();
    }
  }
}

// A branch that cannot run.
void trainDisabled(Net net, const std::vector<torch::Tensor> &batches) {
  const bool useDataParallel = false;
  for (const auto &batch : batches)
    if (useDataParallel)
      data_parallel(net, batch).sum().backward();
}

// Once, outside any loop (inference of one batch).
torch::Tensor predictOnce(Net net, torch::Tensor batch) {
  return data_parallel(net, batch);
}
int main() {
  Net net;
  predictOnce(net, torch::randn({4, 8}));
}

// Devices the code does not show.
std::vector<torch::Device> chosenDevices();
void trainUnknownDevices(Net net, const std::vector<torch::Tensor> &batches) {
  for (const auto &batch : batches)
    data_parallel(net, batch, chosenDevices()).sum().backward();
}
