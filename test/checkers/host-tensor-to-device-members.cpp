// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t -- -- %torch_mock_2

#include <torch/torch.h>

using torch::Tensor;

struct ClassWeightedLoss : torch::nn::Module {
  ClassWeightedLoss() : Weights(torch::tensor({1.0, 2.0, 0.5})) {}
  Tensor forward(const Tensor &X) {
    return X + Weights.to(X.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: member 'Weights' is made on the host and copied to the device in every call of 'forward', which runs per step; keep a copy on the device made once (register it with register_buffer so that module->to(device) moves it) [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-4]]:33: note: 'Weights' is made on the host here
  }
  Tensor Weights;
};

struct Normalizer {
  explicit Normalizer(int64_t N) {
    Mean = torch::full({N}, 0.5);
  }
  Tensor apply(const Tensor &X, torch::Device D) const {
    return X + Mean.to(D);
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: member 'Mean' is made on the host and copied to the device in every call of 'apply', called in a loop; keep a copy on the device made once (convert it once in the constructor)
    // CHECK-MESSAGES: :[[@LINE-5]]:12: note: 'Mean' is made on the host here
    // CHECK-MESSAGES: :[[@LINE+8]]:3: note: the loop that repeats it
  }
  Tensor Mean;
};

void train(torch::Device D, const Tensor &Batch) {
  Normalizer Norm(4);
  ClassWeightedLoss Loss;
  for (int Step = 0; Step < 100; ++Step)
    Loss.forward(Norm.apply(Batch, D));
}

// A blur kernel computed on the host (square keeps the device), moved in
// every call of the functor.
struct GaussBlur {
  GaussBlur() { Kernel = (torch::arange(5.0) - 2.0).square().mul(-0.5); }
  Tensor operator()(const Tensor &X) {
    return X + Kernel.expand({4, 5}).to(X.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: member 'Kernel' is made on the host and copied to the device in every call of 'operator()', which runs per step; keep a copy on the device made once (convert it once in the constructor)
    // CHECK-MESSAGES: :[[@LINE-4]]:26: note: 'Kernel' is made on the host here
  }
  Tensor Kernel;
};

// Negatives: registered buffers, members already moved once, members that
// other methods change, and moves outside per-step code.
struct DeviceBlur {
  explicit DeviceBlur(torch::Device D) {
    Kernel = (torch::arange(5.0, D) - 2.0).square();
  }
  Tensor operator()(const Tensor &X) {
    return X + Kernel.expand({4, 5}).to(X.device());
  }
  Tensor Kernel;
};

struct Registered : torch::nn::Module {
  Registered() { Scale = register_buffer("scale", torch::ones({1})); }
  Tensor forward(const Tensor &X) { return X + Scale.to(X.device()); }
  Tensor Scale;
};

struct MovedOnce : torch::nn::Module {
  explicit MovedOnce(torch::Device D) : Offset(torch::zeros({2}).to(D)) {}
  Tensor forward(const Tensor &X) { return X + Offset.to(X.device()); }
  Tensor Offset;
};

struct Replaced : torch::nn::Module {
  Replaced() : Table(torch::zeros({8})) {}
  void load(const Tensor &T) { Table = T; }
  Tensor forward(const Tensor &X) { return X + Table.to(X.device()); }
  Tensor Table;
};

struct SetUpOnly {
  SetUpOnly() : Grid(torch::ones({4})) {}
  Tensor onDevice(torch::Device D) const { return Grid.to(D); }
  Tensor Grid;
};

// Host values of a private member that only the constructor sets: the same
// list is built and copied in every call.
class BoxCoder {
public:
  explicit BoxCoder(std::vector<float> Means) : Means(std::move(Means)) {}
  Tensor encode(const Tensor &Base, const Tensor &Delta) {
    return Delta - torch::tensor(Means).to(Base).view({1, 4});
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: tensor made on the host by 'torch::tensor' and then copied to the device; 'torch::tensor' builds a list of values on the host whatever its options: keep a device copy made once, or compute it on the device [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-2]]:34: note: only the constructors of its class set 'Means': the same values are copied in every call
  }

private:
  std::vector<float> Means;
};

// Changed by another method, public, or changed where no body is in view:
// the values may differ from call to call.
class Scales {
public:
  void add(float S) { Values.push_back(S); }
  Tensor apply(const Tensor &X) { return X * torch::tensor(Values).to(X); }
  void reload();
  Tensor applyMore(const Tensor &X) { return X * torch::tensor(More).to(X); }
  std::vector<float> Open;
  Tensor applyOpen(const Tensor &X) { return X * torch::tensor(Open).to(X); }

private:
  std::vector<float> Values;
  std::vector<float> More;
};

// A mutable member: a const method whose body is not in view may change it.
class CachedScales {
public:
  explicit CachedScales(std::vector<float> V) : Cached(std::move(V)) {}
  void refresh() const;
  Tensor apply(const Tensor &X) { return X * torch::tensor(Cached).to(X); }

private:
  mutable std::vector<float> Cached;
};
