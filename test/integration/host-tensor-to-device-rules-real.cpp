// torch-host-tensor-to-device on the real LibTorch headers (1.13 and 2.6): a
// move like another tensor (`.to(other)`) is a move to its device and dtype;
// the fix passes `other.options()`. Like a host tensor, nothing is copied.
// A list built from a member only the constructor sets is the same list in
// every call (faster-rcnn's box coder).
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t -- -- %torch_real
// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t.v2 -- -- %torch2_real

#include <torch/torch.h>

torch::Tensor scaleLike(const torch::Tensor &pred) {
  return pred * torch::ones({1, 4}).to(pred);
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: tensor made on the host by 'torch::ones'
  // CHECK-FIXES: {{^}}  return pred * torch::ones({1, 4}, pred.options());{{$}}
}

torch::Tensor scaleLikeHost(const torch::Tensor &pred) {
  return pred * torch::ones({1, 4}).to(pred.cpu());
}

class BoxCoder {
public:
  explicit BoxCoder(const std::vector<float> &means) : means_(means) {}
  torch::Tensor encode(const torch::Tensor &base, torch::Tensor delta) {
    delta = delta - torch::tensor(means_).to(base).view({1, 4});
    // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: tensor made on the host by 'torch::tensor' and then copied to the device; 'torch::tensor' builds a list of values on the host whatever its options: keep a device copy made once, or compute it on the device [torch-host-tensor-to-device]
    // CHECK-MESSAGES: :[[@LINE-2]]:35: note: only the constructors of its class set 'means_': the same values are copied in every call
    return delta;
  }
  void set(const std::vector<float> &means) { values_ = means; }
  torch::Tensor decode(const torch::Tensor &base) {
    return torch::tensor(values_).to(base);
  }

private:
  std::vector<float> means_;
  std::vector<float> values_;
};
