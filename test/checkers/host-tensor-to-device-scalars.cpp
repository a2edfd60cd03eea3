// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <vector>

using torch::Tensor;

Tensor use(const Tensor &T);

void positiveScalarsPerStep(torch::Device D, const std::vector<float> &Rewards,
                            const std::vector<double> &Scales, int Steps) {
  auto Opts = torch::TensorOptions().device(D);
  for (size_t I = 0; I < Rewards.size(); ++I) {
    float R = Rewards[I];
    use(torch::tensor({R}, torch::TensorOptions().device(D)));
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'torch::tensor' with a device builds the tensor on the host and copies it to the device in every iteration of a loop; create it on the device with 'torch::full' [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-4]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    use(torch::full({1}, R, torch::TensorOptions().device(D)));{{$}}
    use(torch::tensor({Scales[I]}, Opts.dtype(torch::kFloat)));
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'torch::tensor' with a device builds the tensor on the host and copies it to the device in every iteration
    // CHECK-FIXES: {{^}}    use(torch::full({1}, Scales[I], Opts.dtype(torch::kFloat)));{{$}}
    use(torch::tensor({Steps}, Opts));
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'torch::tensor' with a device builds
    // CHECK-FIXES: {{^}}    use(torch::full({1}, Steps, Opts));{{$}}
  }
}

void warnWithoutFix(torch::Device D, const std::vector<float> &Rewards) {
  std::vector<Tensor> Collected;
  for (float R : Rewards) {
    // Many tensors of one value each: gather the values, copy once.
    Collected.push_back(torch::tensor({R}, torch::device(D)));
    // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'torch::tensor' with a device builds the tensor on the host and copies it to the device in every iteration of a loop [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-2]]:25: note: the loop collects one tensor per iteration: gather the values in a host vector and make one tensor on the device after the loop
    // CHECK-MESSAGES: :[[@LINE-5]]:3: note: the loop that repeats it
    // A list of values: no single fill value.
    use(torch::tensor({R, 2 * R}, torch::device(D)));
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'torch::tensor' with a device builds the tensor on the host and copies it to the device in every iteration of a loop [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-9]]:3: note: the loop that repeats it
    // An int16 value: torch::full would give kLong, torch::tensor kShort.
    int16_t Small = 3;
    use(torch::tensor({Small}, torch::device(D)));
    // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: 'torch::tensor' with a device builds the tensor on the host and copies it to the device in every iteration of a loop [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-14]]:3: note: the loop that repeats it
  }
}

void negativeScalars(torch::Device D, const std::vector<float> &Rewards,
                     const torch::TensorOptions &Unknown) {
  // Outside a loop: once.
  use(torch::tensor({Rewards[0]}, torch::device(D)));
  for (float R : Rewards) {
    // No device, or the CPU.
    use(torch::tensor({R}));
    use(torch::tensor({R}, torch::kFloat));
    use(torch::tensor({R}, torch::device(torch::kCPU)));
    // Options whose device is not known.
    use(torch::tensor({R}, Unknown));
    // The step's host data has to go to the device.
    std::vector<float> Obs(4, R);
    use(torch::tensor(Obs, torch::device(D)));
  }
}

// The name of the function is printed as written, '%' and all: it is an
// argument of the message, never part of its format.
struct Scaler {
  Tensor operator%(float R) const {
    return torch::tensor({R}, torch::device(torch::kCUDA));
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'torch::tensor' with a device builds the tensor on the host and copies it to the device in every call of 'operator%', called in a loop; create it on the device with 'torch::full' [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE+6]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    return torch::full({1}, R, torch::device(torch::kCUDA));{{$}}
  }
};

void positiveOperatorName(const Scaler &S, const std::vector<float> &Rs) {
  for (float R : Rs)
    use(S % R);
}
