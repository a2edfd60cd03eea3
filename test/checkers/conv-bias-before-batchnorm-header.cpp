// A helper declared in a header may have callers in other files, where no
// BatchNorm follows: it is reported at the call but not changed.
// RUN: %check_torch_tidy %s torch-conv-bias-before-batchnorm %t -- -- %torch_mock_2 -I%S/Inputs/conv-helpers

#include "conv-helpers.h"

namespace nn = torch::nn;

nn::Conv2d conv3x3Shared(int64_t In, int64_t Out) {
  return nn::Conv2d(nn::Conv2dOptions(In, Out, 3).padding(1));
}

nn::Sequential block() {
  return nn::Sequential(conv3x3Shared(3, 8), nn::BatchNorm2d(8));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of the Conv2d from 'conv3x3Shared' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; build the convolution with .bias(false); no fix-it: 'conv3x3Shared' is declared in a header, so other files may call it without a BatchNorm; pass the bias as a parameter [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}

// Internal linkage: every caller is in this file.
static nn::Conv2d conv1x1(int64_t In, int64_t Out) {
  return nn::Conv2d(nn::Conv2dOptions(In, Out, 1));
  // CHECK-FIXES: {{^}}  return nn::Conv2d(nn::Conv2dOptions(In, Out, 1).bias(false));{{$}}
}

nn::Sequential pointwise() {
  return nn::Sequential(conv1x1(3, 8), nn::BatchNorm2d(8));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of the Conv2d from 'conv1x1' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; build the convolution with .bias(false) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}
