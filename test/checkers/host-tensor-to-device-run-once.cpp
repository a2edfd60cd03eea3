// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <vector>

using torch::Tensor;

Tensor use(const Tensor &T);

// Called only from the loop below: runs every step.
Tensor makeNoise(torch::Device device) {
  return torch::randn({8}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: tensor made on the host by 'torch::randn'
  // CHECK-FIXES: {{^}}  return torch::randn({8}, torch::device(device));{{$}}
}

// Two calls up from the loop.
Tensor addNoise(const Tensor &X, torch::Device device) {
  return X + makeNoise(device);
}

// A shape probe called once before training: silent.
int64_t probeOutputSize(torch::Device device) {
  Tensor Probe = use(torch::zeros({1, 3, 32, 32}).to(device));
  return Probe.numel();
}

// A smoke test called once, through another run-once function: silent.
void smokeTest(torch::Device device) { use(torch::ones({2}).to(device)); }
void setUp(torch::Device device) { smokeTest(device); }

// Nothing in this file calls it: other files may call it per step.
Tensor undecided(torch::Device device) {
  return torch::ones({4}).to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: tensor made on the host by 'torch::ones'
  // CHECK-FIXES: {{^}}  return torch::ones({4}, torch::device(device));{{$}}
}

// Uninitialised memory copied: reported even where it runs once.
void setUpBuffers(torch::Device device) {
  use(torch::empty({16}).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: tensor made on the host by 'torch::empty'
  // CHECK-FIXES: {{^}}  use(torch::empty({16}, torch::device(device)));{{$}}
}

struct Net : torch::nn::Module {
  // Module constructors run once: silent.
  explicit Net(torch::Device device) {
    Bias = use(torch::zeros({4}).to(device));
    Scratch = torch::empty({4}).cuda();
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: tensor made on the host by 'torch::empty'
    // CHECK-FIXES: {{^}}    Scratch = torch::empty({4}, torch::device(torch::kCUDA));{{$}}
  }
  Tensor forward(const Tensor &X) {
    return X + torch::ones({4}).to(X.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: tensor made on the host by 'torch::ones'
    // CHECK-FIXES: {{^}}    return X + torch::ones({4}, torch::device(X.device()));{{$}}
  }
  Tensor Bias, Scratch;
};

// A loss: operator() runs per step.
struct WeightedLoss {
  Tensor operator()(const Tensor &X) const {
    return X + torch::full({1}, 0.5).to(X.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: tensor made on the host by 'torch::full'
    // CHECK-FIXES: {{^}}    return X + torch::full({1}, 0.5, torch::device(X.device()));{{$}}
  }
};

// One object per track, built in the loop: its constructor runs per item.
struct Track {
  explicit Track(torch::Device device)
      : State(torch::zeros({4}).to(device)) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: tensor made on the host by 'torch::zeros'
  // CHECK-FIXES: {{^}}      : State(torch::zeros({4}, torch::device(device))) {}{{$}}
  Tensor State;
};

// Built in place in a vector, one per item of the loop.
struct Detection {
  explicit Detection(torch::Device device) : Box(torch::ones({4}).cuda()) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:67: warning: tensor made on the host by 'torch::ones'
  // CHECK-FIXES: {{^}}  explicit Detection(torch::Device device) : Box(torch::ones({4}, torch::device(torch::kCUDA))) {}{{$}}
  Tensor Box;
};

int main() {
  torch::Device device(torch::kCUDA);
  Net Model(device);
  setUp(device);
  int64_t Size = probeOutputSize(device);
  WeightedLoss Loss;
  for (int Step = 0; Step < 10; ++Step) {
    Tensor X = addNoise(torch::zeros({Size}, torch::device(device)), device);
    Track T(device);
    std::vector<Detection> Found;
    Found.emplace_back(device);
    use(Loss(Model.forward(X)) + T.State);
  }
  // main runs once.
  use(torch::rand({2}).to(device));
  return 0;
}
