// Header-only trainers: templates that nothing in the translation unit
// instantiates. Syncs on an object declared as a tensor are reported in the
// template itself, also where the call stays unresolved (`x.template
// item<T>()`); a call on an object of a template parameter's type is not.
// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <vector>

template <typename T, typename ModelT>
T trainEpoch(ModelT &Model, const std::vector<torch::Tensor> &Batches,
             const torch::Device &Device) {
  T Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Loss = Model->forward(X.to(Device));
    Last = Loss.template item<T>();
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item()' synchronizes the host with the device per iteration of the loop; keep the computation on the device, or read the value once after the loop [torch-host-sync-in-loop]
    float F = Loss.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item()' synchronizes the host with the device per iteration of the loop
    torch::Tensor C = Loss.cpu();
    // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: copying a tensor to the CPU synchronizes the host with the device per iteration of the loop
    (void)F;
  }
  return Last;
}

template <typename T> struct Trainer {
  torch::Tensor Loss;
  T Sum = 0;

  void run(int Steps, const torch::Tensor &Weights) {
    for (int I = 0; I < Steps; ++I) {
      Sum = Sum + Weights.template item<T>();
      // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'item()' synchronizes the host with the device per iteration of the loop
      Sum = Sum + Loss.template item<T>();
      // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item()' synchronizes the host with the device per iteration of the loop
    }
  }
};

// Instantiated too: each site is reported once.
template <typename T>
T instantiated(const std::vector<torch::Tensor> &Batches, torch::Device D) {
  T Last = 0;
  for (const auto &X : Batches) {
    torch::Tensor Y = X.to(D);
    Last = Y.template item<T>();
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'item()' synchronizes the host with the device per iteration of the loop
  }
  return Last;
}
template float instantiated<float>(const std::vector<torch::Tensor> &,
                                   torch::Device);

// ---- Negatives ----------------------------------------------------------------

// An object of a template parameter's type: it may be anything.
template <typename TensorT, typename T>
T notATensor(const std::vector<TensorT> &Items) {
  T Last = 0;
  for (const auto &X : Items) {
    Last = X.template item<T>();
    auto C = X.cpu();
    (void)C;
  }
  return Last;
}

template <typename BatchT> float batchMember(const std::vector<BatchT> &Batches) {
  float Last = 0;
  for (const auto &B : Batches)
    Last = B.data.template item<float>();
  return Last;
}

// A tensor made on the CPU in the template: provably on the host.
template <typename T> T onHost(int Steps) {
  torch::Tensor Counts = torch::zeros({4});
  T Last = 0;
  for (int I = 0; I < Steps; ++I)
    Last = Counts.template item<T>();
  return Last;
}

// An epoch loop of a template trainer (dependent model and optimizer): what
// it runs after its inner training loop happens once per epoch.
template <typename ModelT, typename OptimizerT>
void epochs(ModelT &Model, OptimizerT &Optimizer,
            const std::vector<torch::Tensor> &Batches, int Epochs) {
  for (int E = 0; E < Epochs; ++E) {
    torch::Tensor Last;
    for (const auto &X : Batches) {
      Last = Model->forward(X);
      Optimizer.step();
    }
    float L = Last.template item<float>();
    (void)L;
  }
}
