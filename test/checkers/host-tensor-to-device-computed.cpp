// RUN: %check_torch_tidy %s torch-host-tensor-to-device,torch-blocking-host-to-device-copy %t -- -- %torch_mock_2

#include <torch/torch.h>

using torch::Tensor;

void use(const Tensor &T);

// Factories followed by ops that keep the device, then a move: the whole
// value is host-made, and made on the device it needs no copy.
struct CausalAttention : torch::nn::Module {
  Tensor forward(const Tensor &X) {
    Tensor Mask = torch::triu(torch::ones({4, 4}, torch::kInt), 1);
    Mask = Mask.unsqueeze(0).expand({2, -1, -1});
    return X + Mask.to(torch::kBool).to(X.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: tensor computed on the host from 'torch::ones' and then copied to the device; create it on the device by passing the device in its options, and the ops after it keep the device [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-4]]:31: note: made on the host here
  }
};

struct AddCoords : torch::nn::Module {
  Tensor forward(const Tensor &Input) {
    auto Range = torch::arange(8, torch::dtype(torch::kInt));
    auto Ones = torch::ones({1, 8}, torch::dtype(torch::kInt));
    auto Channel = torch::matmul(Range.unsqueeze(1), Ones).to(torch::kFloat);
    Channel = Channel / 7.0;
    Channel = Channel * 2 - 1;
    Channel -= 0.5;
    Channel = Channel.repeat({4, 1, 1}).to(Input.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: tensor computed on the host from 'torch::arange' and 'torch::ones' and then copied to the device; create them on the device by passing the device in their options, and the ops after them keep the device [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-8]]:18: note: made on the host here
    // CHECK-MESSAGES: :[[@LINE-8]]:17: note: made on the host here
    return torch::cat({Input, Channel}, 1);
  }
};

// Called from a loop in this file: runs per step.
Tensor stepMask(torch::Device D) {
  auto Grid = torch::cat({torch::zeros({2}), torch::ones({2})});
  return (Grid * 3).to(D);
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: tensor computed on the host from 'torch::zeros' and 'torch::ones' and then copied to the device; create them on the device by passing the device in their options, and the ops after them keep the device [torch-host-tensor-to-device]
  // CHECK-MESSAGES: :[[@LINE-3]]:27: note: made on the host here
  // CHECK-MESSAGES: :[[@LINE-4]]:46: note: made on the host here
}

void trainLoop(torch::Device D) {
  for (int I = 0; I < 10; ++I)
    use(stepMask(D));
}

// A helper that builds a constant on the host, kept as a member of a loss
// and copied per step through a parameter: a host constant kept as a member.
Tensor gaussWindow(int Size) {
  Tensor Coords = torch::arange(Size, torch::kFloat);
  Coords -= Size / 2;
  return Coords.unsqueeze(0);
}

Tensor filterWith(const Tensor &X, const Tensor &Win) {
  return X + Win.to(X.device(), torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: member 'Win' is made on the host and copied to the device in every call of 'filterWith', called in a loop; keep a copy on the device made once (register it with register_buffer so that module->to(device) moves it) [torch-host-tensor-to-device]
  // CHECK-MESSAGES: :[[@LINE+6]]:17: note: 'Win' is made on the host here
  // CHECK-MESSAGES: :[[@LINE+9]]:5: note: the loop that repeats it
}

struct SmoothLoss : torch::nn::Module {
  explicit SmoothLoss(int Size) {
    this->Win = gaussWindow(Size).repeat({3, 1, 1});
  }
  Tensor forward(const Tensor &X) {
    Tensor Out = X;
    for (int Level = 0; Level < 3; ++Level)
      Out = filterWith(Out, Win);
    return Out;
  }
  Tensor Win;
};

// A member made from host data by a method, copied per parameter per step.
struct QuantOptimizer {
  QuantOptimizer() { Map = makeMap(); }
  Tensor makeMap() {
    std::vector<float> Values(256, 0.5f);
    return torch::tensor(Values, torch::dtype(torch::kFloat));
  }
  void step(const std::vector<Tensor> &Params) {
    for (const Tensor &P : Params)
      use(Map.to(P.device(), torch::kFloat));
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: member 'Map' is made on the host and copied to the device in every iteration of a loop; keep a copy on the device made once (convert it once in the constructor) [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-9]]:28: note: 'Map' is made on the host here
    // CHECK-MESSAGES: :[[@LINE-4]]:5: note: the loop that repeats it
  }
  Tensor Map;
};

// Negatives: a device tensor mixed in, host data, a move in the chain,
// in-place copies from elsewhere, run-once code.
struct Negatives : torch::nn::Module {
  Tensor forward(const Tensor &X, const Tensor &Y) {
    // X may be on the device: the sum is not host-made.
    use((torch::ones({2}) + X).to(Y.device()));
    // Data from a host vector: it has to be copied.
    std::vector<float> Data(4, 1.0f);
    auto FromData = torch::from_blob(Data.data(), {4}) * 2;
    use(FromData.to(X.device()));
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: blocking copy of host data to the device in every call of 'forward', which runs per step; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-FIXES: {{^}}    use((torch::Device(X.device()).is_cuda() ? FromData.pin_memory() : FromData).to(X.device(), /*non_blocking=*/true));{{$}}
    // Moved to the device before the arithmetic (reported as the factory
    // it is): the last move copies nothing more.
    auto OnDevice = torch::ones({2}).to(X.device());
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: tensor made on the host by 'torch::ones' and then copied to the device; create it on the device by passing the device in its options [torch-host-tensor-to-device]
    // CHECK-FIXES: {{^}}    auto OnDevice = torch::ones({2}, torch::device(X.device()));{{$}}
    OnDevice = OnDevice * 2;
    use(OnDevice.to(Y.device()));
    // Filled from another tensor in place.
    auto Filled = torch::zeros({2});
    Filled.copy_(X);
    use(Filled.to(Y.device()));
    // Passed by non-const reference: anything may happen to it.
    auto Escaped = torch::zeros({2});
    change(Escaped);
    use((Escaped * 2).to(Y.device()));
    return X;
  }
  void change(Tensor &T);
};

// Run once: a smoke test called from main only.
void smokeTest(torch::Device D) {
  auto Mask = torch::triu(torch::ones({3, 3}), 1);
  use((Mask * 2).to(D));
}

int main() {
  smokeTest(torch::Device(torch::kCUDA));
  return 0;
}
