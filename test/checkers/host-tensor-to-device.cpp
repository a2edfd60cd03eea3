// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <utility>
#include <vector>

using torch::Tensor;

void use(const Tensor &T);

void positiveEachFactory(torch::Device device) {
  use(torch::randn({2, 3}).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: tensor made on the host by 'torch::randn' and then copied to the device; create it on the device by passing the device in its options [torch-host-tensor-to-device]
  // CHECK-FIXES: {{^}}  use(torch::randn({2, 3}, torch::device(device)));{{$}}
  use(torch::zeros({4}).to(torch::kCUDA));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: tensor made on the host by 'torch::zeros'
  // CHECK-FIXES: {{^}}  use(torch::zeros({4}, torch::device(torch::kCUDA)));{{$}}
  use(torch::ones({4}).cuda());
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: tensor made on the host by 'torch::ones'
  // CHECK-FIXES: {{^}}  use(torch::ones({4}, torch::device(torch::kCUDA)));{{$}}
  use(torch::empty({4}).to(device, /*non_blocking=*/true));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: tensor made on the host by 'torch::empty'
  // CHECK-FIXES: {{^}}  use(torch::empty({4}, torch::device(device)));{{$}}
  use(torch::full({2}, 1.5).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: tensor made on the host by 'torch::full'
  // CHECK-FIXES: {{^}}  use(torch::full({2}, 1.5, torch::device(device)));{{$}}
  use(torch::rand({2}).to(torch::Device(torch::kCUDA, 0)));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: tensor made on the host by 'torch::rand'
  // CHECK-FIXES: {{^}}  use(torch::rand({2}, torch::device(torch::Device(torch::kCUDA, 0))));{{$}}
  use(torch::arange(10).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: tensor made on the host by 'torch::arange'
  // CHECK-FIXES: {{^}}  use(torch::arange(10, torch::device(device)));{{$}}
  use(torch::linspace(0, 1, 5).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:32: warning: tensor made on the host by 'torch::linspace'
  // CHECK-FIXES: {{^}}  use(torch::linspace(0, 1, 5, torch::device(device)));{{$}}
  use(torch::eye(3).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: tensor made on the host by 'torch::eye'
  // CHECK-FIXES: {{^}}  use(torch::eye(3, torch::device(device)));{{$}}
  // A list is built on the host whatever the options say: no fix-it.
  use(torch::tensor({1.0, 2.0}).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: tensor made on the host by 'torch::tensor' and then copied to the device; 'torch::tensor' builds a list of values on the host whatever its options: keep a device copy made once, or compute it on the device [torch-host-tensor-to-device]
  // CHECK-FIXES: {{^}}  use(torch::tensor({1.0, 2.0}).to(device));{{$}}
  // One value in braces: torch::full makes it on the device.
  use(torch::tensor({2.5}).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: tensor made on the host by 'torch::tensor' and then copied to the device; create it on the device with 'torch::full' [torch-host-tensor-to-device]
  // CHECK-FIXES: {{^}}  use(torch::full({1}, 2.5, torch::device(device)));{{$}}
  use(torch::randn({2}).to(torch::device(device)));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: tensor made on the host by 'torch::randn'
  // CHECK-FIXES: {{^}}  use(torch::randn({2}, torch::device(device)));{{$}}
}

// torch::tensor(x) of one scalar is made where its options say
// (at::scalar_tensor): the device goes into them.
void positiveHostScalar(torch::Device device, double Adv, int64_t Count,
                        const std::vector<float> &Values) {
  for (int I = 0; I < 4; ++I) {
    use(torch::tensor(Adv, torch::kFloat).to(device).expand({2, 2}));
    // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: tensor made on the host by 'torch::tensor' and then copied to the device; create it on the device by passing the device in its options [torch-host-tensor-to-device]
    // CHECK-FIXES: {{^}}    use(torch::tensor(Adv, torch::TensorOptions(torch::kFloat).device(device)).expand({2, 2}));{{$}}
    use(torch::tensor(Count).cuda());
    // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: tensor made on the host by 'torch::tensor'
    // CHECK-FIXES: {{^}}    use(torch::tensor(Count, torch::device(torch::kCUDA)));{{$}}
    // Host data: the values have to travel.
    use(torch::tensor(Values).to(device));
  }
}

// A long chain: the note shows the factory the fix changes.
void positiveLongChain(torch::Device device, int64_t N) {
  use(torch::arange(N)
          .unsqueeze(0)
          .to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor made on the host by 'torch::arange'
  // CHECK-MESSAGES: :[[@LINE-4]]:7: note: made on the host here
  // CHECK-FIXES: {{^}}  use(torch::arange(N, torch::device(device))
  // CHECK-FIXES-NEXT: {{^}}          .unsqueeze(0));{{$}}
}

void positiveKeepsEveryOption(torch::Device device) {
  // randint's kLong comes from its default argument.
  use(torch::randint(10, {3}).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: tensor made on the host by 'torch::randint'
  // CHECK-FIXES: {{^}}  use(torch::randint(10, {3}, torch::TensorOptions(torch::kLong).device(device)));{{$}}
  use(torch::randn({2}, torch::kDouble).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: tensor made on the host by 'torch::randn'
  // CHECK-FIXES: {{^}}  use(torch::randn({2}, torch::TensorOptions(torch::kDouble).device(device)));{{$}}
  use(torch::randn({2}, torch::dtype(torch::kDouble).requires_grad(true)).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:75: warning: tensor made on the host by 'torch::randn'
  // CHECK-FIXES: {{^}}  use(torch::randn({2}, torch::dtype(torch::kDouble).requires_grad(true).device(device)));{{$}}
  torch::TensorOptions Opts = torch::TensorOptions().requires_grad(true);
  use(torch::zeros({2}, Opts).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: tensor made on the host by 'torch::zeros'
  // CHECK-FIXES: {{^}}  use(torch::zeros({2}, Opts.device(device)));{{$}}
}

void positiveThroughVariable(torch::Device device) {
  Tensor Noise = torch::randn({8});
  Tensor OnDevice = Noise.to(device);
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: tensor made on the host by 'torch::randn' and then copied to the device
  // CHECK-MESSAGES: :[[@LINE-3]]:18: note: made on the host here
  // CHECK-FIXES: {{^}}  Tensor Noise = torch::randn({8}, torch::device(device));{{$}}
  // CHECK-FIXES-NEXT: {{^}}  Tensor OnDevice = Noise;{{$}}
  use(OnDevice);
}

void warnWithoutFixWhenDeviceComesLater() {
  Tensor X = torch::ones({2});
  torch::Device D(torch::kCUDA);
  use(X.to(D));
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: tensor made on the host by 'torch::ones' and then copied to the device; create it on the device by passing the device in its options; no fix-it: the device is declared after the tensor [torch-host-tensor-to-device]
  // CHECK-MESSAGES: :[[@LINE-4]]:14: note: made on the host here
}

// Structured bindings declared after the tensor: the device cannot move up.
std::pair<torch::Device, float> pick(int I);

void warnWithoutFixWhenDeviceIsALaterBinding(int Steps) {
  for (int I = 0; I < Steps; ++I) {
    Tensor Noise = torch::randn({8});
    auto [Dev, Scale] = pick(I);
    use(Noise.to(Dev) * Scale);
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: tensor made on the host by 'torch::randn' and then copied to the device; create it on the device by passing the device in its options; no fix-it: the device is declared after the tensor [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-4]]:20: note: made on the host here
  }
}

void warnWithoutFixWhenDeviceIsALaterLoopBinding(
    const std::vector<std::pair<int, torch::Device>> &Named) {
  Tensor Mask = torch::ones({4});
  for (const auto &[Id, Dev] : Named)
    use(Mask.to(Dev));
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: tensor made on the host by 'torch::ones' and then copied to the device; create it on the device by passing the device in its options; no fix-it: the device is declared after the tensor [torch-host-tensor-to-device]
  // CHECK-MESSAGES: :[[@LINE-4]]:17: note: made on the host here
}

void positiveDeviceIsAnEarlierBinding(std::pair<torch::Device, float> P) {
  auto [Dev, Scale] = P;
  Tensor Noise = torch::randn({8});
  use(Noise.to(Dev) * Scale);
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: tensor made on the host by 'torch::randn' and then copied to the device; create it on the device by passing the device in its options [torch-host-tensor-to-device]
  // CHECK-MESSAGES: :[[@LINE-3]]:18: note: made on the host here
  // CHECK-FIXES: {{^}}  Tensor Noise = torch::randn({8}, torch::device(Dev));{{$}}
  // CHECK-FIXES-NEXT: {{^}}  use(Noise * Scale);{{$}}
}

struct Normalize {
  explicit Normalize(torch::Device D)
      : Mean(torch::tensor({0.5f, 0.5f}).to(D)) {}
  void reset(torch::Device D) { Std = torch::ones({2}).to(D); }
  Tensor Mean, Std;
};

void negativeHostDataAndCaches(torch::Device device, float *Buffer,
                               const std::vector<float> &Values) {
  // Host data has to be copied anyway.
  use(torch::from_blob(Buffer, {4}).to(device));
  use(torch::tensor(Values).to(device));
  // Moved once and kept.
  static Tensor Scale = torch::full({1}, 2.0).to(device);
  use(Scale);
  // The host tensor is used for more than the move.
  Tensor W = torch::randn({2});
  use(W);
  use(W.to(device));
}

void positiveMoveWithDtype(torch::Device device) {
  // .to(device, dtype) moves too; the dtype would have to go into the
  // factory's options.
  use(torch::randn({2}).to(device, torch::kDouble));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: tensor made on the host by 'torch::randn' and then copied to the device; create it on the device by passing the device in its options; no fix-it: the move converts the dtype too [torch-host-tensor-to-device]
}

void negativeNotAHostToDeviceMove(torch::Device device) {
  use(torch::randn({2}).to(torch::kDouble));
  use(torch::randn({2}).to(torch::kCPU));
  use(torch::randn({2}, torch::device(device)).to(device));
  use(torch::randn({2}).cpu());
}

// Moved like another tensor: to its device and dtype.
void positiveMovedLikeAnother(const Tensor &Pred) {
  use(torch::ones({1, 4}).to(Pred));
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: tensor made on the host by 'torch::ones' and then copied to the device; create it on the device by passing the device in its options [torch-host-tensor-to-device]
  // CHECK-FIXES: {{^}}  use(torch::ones({1, 4}, Pred.options()));{{$}}
  use(torch::zeros({2}, torch::kLong).to(Pred));
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: tensor made on the host by 'torch::zeros' and then copied to the device; create it on the device by passing the device in its options; no fix-it: the factory's options would have to be merged with the tensor it is moved like [torch-host-tensor-to-device]
  // Like a tensor on the host: nothing is copied to a device.
  use(torch::ones({2}).to(Pred.cpu()));
}
