// torch-host-tensor-to-device on the real LibTorch headers (1.13 and 2.6): a
// move like another tensor (`.to(other)`) is a move to its device and dtype;
// the fix passes `other.options()`. Like a host tensor, nothing is copied.
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
