// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t -- -- %torch_mock_2

#include <torch/torch.h>

using torch::Tensor;

void use(const Tensor &T);

void positiveShapeAndDtypeChains(torch::Device device, int64_t N) {
  use(torch::arange(N).view({1, -1}).to(torch::kFloat).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:56: warning: tensor made on the host by 'torch::arange' and then copied to the device
  // CHECK-FIXES: {{^}}  use(torch::arange(N, torch::dtype(torch::kFloat).device(device)).view({1, -1}));{{$}}
  use(torch::ones({3}).to(torch::kBool).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: tensor made on the host by 'torch::ones'
  // CHECK-FIXES: {{^}}  use(torch::ones({3}, torch::dtype(torch::kBool).device(device)));{{$}}
  use(torch::eye(3).unsqueeze(0).repeat({4, 1, 1}).contiguous().cuda());
  // CHECK-MESSAGES: :[[@LINE-1]]:65: warning: tensor made on the host by 'torch::eye'
  // CHECK-FIXES: {{^}}  use(torch::eye(3, torch::device(torch::kCUDA)).unsqueeze(0).repeat({4, 1, 1}).contiguous());{{$}}
  use(torch::randn({2, 3}).t().reshape({6}).flatten().to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:55: warning: tensor made on the host by 'torch::randn'
  // CHECK-FIXES: {{^}}  use(torch::randn({2, 3}, torch::device(device)).t().reshape({6}).flatten());{{$}}
  // randint stays kLong: its dtype is in the default argument.
  use(torch::randint(5, {4}).permute({0}).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: tensor made on the host by 'torch::randint'
  // CHECK-FIXES: {{^}}  use(torch::randint(5, {4}, torch::TensorOptions(torch::kLong).device(device)).permute({0}));{{$}}
  use(torch::zeros({2}, torch::kDouble).to(torch::kFloat).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:59: warning: tensor made on the host by 'torch::zeros'
  // CHECK-FIXES: {{^}}  use(torch::zeros({2}, torch::dtype(torch::kFloat).device(device)));{{$}}
  use(torch::randint(5, {4}).to(torch::kFloat).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:48: warning: tensor made on the host by 'torch::randint'
  // CHECK-FIXES: {{^}}  use(torch::randint(5, {4}, torch::dtype(torch::kFloat).device(device)));{{$}}
  // Integer values: an integer dtype gives the same values.
  use(torch::arange(N).to(torch::kInt).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: tensor made on the host by 'torch::arange'
  // CHECK-FIXES: {{^}}  use(torch::arange(N, torch::dtype(torch::kInt).device(device)));{{$}}
  use(torch::full({2}, 7).to(torch::kLong).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:44: warning: tensor made on the host by 'torch::full'
  // CHECK-FIXES: {{^}}  use(torch::full({2}, 7, torch::dtype(torch::kLong).device(device)));{{$}}
}

void positiveOtherTargets(const Tensor &Pred) {
  // The device of another tensor.
  use(torch::zeros({2}).expand({3, 2}).to(Pred.device()));
  // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: tensor made on the host by 'torch::zeros'
  // CHECK-FIXES: {{^}}  use(torch::zeros({2}, torch::device(Pred.device())).expand({3, 2}));{{$}}
  // Options with a device, and the dtype of Pred.
  auto Opts = Pred.options();
  use(torch::ones({2}).to(Opts));
  // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: tensor made on the host by 'torch::ones'
  // CHECK-FIXES: {{^}}  use(torch::ones({2}, Opts));{{$}}
  use(torch::tensor({1.0}).to(Pred.options()));
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: tensor made on the host by 'torch::tensor'
  // CHECK-FIXES: {{^}}  use(torch::full({1}, 1.0, Pred.options()));{{$}}
  // Options with a device only: randint keeps its kLong.
  auto DeviceOnly = torch::TensorOptions().device(Pred.device());
  use(torch::randint(5, {4}).to(DeviceOnly));
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: tensor made on the host by 'torch::randint'
  // CHECK-FIXES: {{^}}  use(torch::randint(5, {4}, DeviceOnly.dtype(torch::kLong)));{{$}}
}

void positiveChainThroughVariable(torch::Device device) {
  Tensor Steps = torch::arange(16).to(torch::kFloat);
  use(Steps.view({4, 4}).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: tensor made on the host by 'torch::arange' and then copied to the device
  // CHECK-MESSAGES: :[[@LINE-3]]:18: note: made on the host here
  // CHECK-FIXES: {{^}}  Tensor Steps = torch::arange(16, torch::dtype(torch::kFloat).device(device));{{$}}
  // CHECK-FIXES-NEXT: {{^}}  use(Steps.view({4, 4}));{{$}}
}

void warnWithoutFixWhereValuesWouldChange(torch::Device device,
                                          const Tensor &Pred) {
  // rand in kLong is not the truncated floats, and rand has no kLong.
  use(torch::rand({2}).to(torch::kLong).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: tensor made on the host by 'torch::rand' and then copied to the device; create it on the device by passing the device in its options; no fix-it: 'torch::rand' made directly as Long would not give the values of the conversion [torch-host-tensor-to-device]
  use(torch::arange(1.5).to(torch::kInt).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:42: warning: {{.*}}no fix-it: 'torch::arange' made directly as Int would not give the values of the conversion
  // The dtype of Pred is not known here.
  use(torch::randn({2}).to(Pred.options()));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: {{.*}}no fix-it: the options it is moved with set a dtype not known here, in which 'torch::randn' may not give the same values
  // The factory's own options and the target's would have to be merged.
  use(torch::ones({2}, torch::TensorOptions().requires_grad(true))
          .to(Pred.options()));
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: {{.*}}no fix-it: the factory's options would have to be merged with the options it is moved with
}

void positiveArithmeticInTheChain(torch::Device device) {
  // Arithmetic keeps the device: made on the device, the product is there
  // too. No fix-it beyond the chains above: the message says how.
  use(torch::randn({2}).mul(2.0).to(device));
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: tensor computed on the host from 'torch::randn' and then copied to the device; create it on the device by passing the device in its options, and the ops after it keep the device [torch-host-tensor-to-device]
  // CHECK-MESSAGES: :[[@LINE-2]]:7: note: made on the host here
}

void negativeChainsThatAreNoHostFactory(torch::Device device,
                                        const Tensor &X) {
  // A dtype conversion of something else, and a dtype-only target.
  use(X.view({-1}).to(torch::kFloat).to(device));
  use(torch::arange(4).view({2, 2}).to(torch::kFloat));
  // Options without a device.
  use(torch::ones({2}).to(torch::TensorOptions().dtype(torch::kDouble)));
  // Already on the device.
  use(torch::ones({2}, torch::device(device)).view({1, 2}).to(device));
}
