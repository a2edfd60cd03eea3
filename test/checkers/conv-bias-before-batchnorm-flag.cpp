// RUN: %check_torch_tidy %s torch-conv-bias-before-batchnorm %t -- -- %torch_mock_2
// RUN: %check_torch_tidy %s torch-conv-bias-before-batchnorm %t.113 -- -- %torch_mock_1_13

// A BatchNorm added only under a flag: the bias is wasted whenever the flag
// holds, and `.bias(!flag)` is right on both paths.

#include <torch/torch.h>

namespace nn = torch::nn;

// --- A Sequential -----------------------------------------------------------

nn::Sequential pushed(int64_t c, bool use_bn) {
  nn::Sequential S;
  S->push_back(nn::Conv2d(nn::Conv2dOptions(3, c, 3).padding(1)));
  if (use_bn)
    S->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:16: warning: bias of this Conv2d is cancelled by the BatchNorm2d (added when 'use_bn' holds), which subtracts the per-channel mean right after; build the convolution with .bias(!use_bn) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  S->push_back(nn::Conv2d(nn::Conv2dOptions(3, c, 3).padding(1).bias(!use_bn)));{{$}}
  S->push_back(nn::ReLU());
  return S;
}

nn::Sequential braced(int64_t c, bool batch_norm) {
  nn::Sequential seq;
  seq->push_back(nn::Conv2d(c, c, 3));
  if (batch_norm) {
    seq->push_back("bn", nn::BatchNorm2d(c));
    seq->push_back(nn::ReLU());
  }
  // CHECK-MESSAGES: :[[@LINE-5]]:18: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn' (added when 'batch_norm' holds), which subtracts the per-channel mean right after; build the convolution with .bias(!batch_norm) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-4]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  seq->push_back(nn::Conv2d(torch::nn::Conv2dOptions(c, c, 3).bias(!batch_norm)));{{$}}
  return seq;
}

struct Config {
  bool batch_norm = true;
  bool plain = false;
};

nn::Sequential fromConfig(const Config &cfg, int64_t c) {
  nn::Sequential seq;
  const bool no_bn = cfg.plain;
  seq->push_back(nn::Conv1d(nn::Conv1dOptions(c, c, 3).bias(true)));
  if (!no_bn)
    seq->push_back(nn::BatchNorm1d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:18: warning: bias of this Conv1d is cancelled by the BatchNorm1d (added when '!no_bn' holds), which subtracts the per-channel mean right after; build the convolution with .bias(no_bn) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  seq->push_back(nn::Conv1d(nn::Conv1dOptions(c, c, 3).bias(no_bn)));{{$}}
  seq->push_back(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(c, c, 2)));
  if (cfg.batch_norm && c > 1)
    seq->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:18: warning: bias of this ConvTranspose2d is cancelled by the BatchNorm2d (added when 'cfg.batch_norm && c > 1' holds), which subtracts the per-channel mean right after; build the convolution with .bias(!(cfg.batch_norm && c > 1)) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  seq->push_back(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(c, c, 2).bias(!(cfg.batch_norm && c > 1))));{{$}}
  return seq;
}

// --- Reported without a fix-it ----------------------------------------------

bool nextFlag();
bool globalBatchNorm = true;

nn::Sequential noFix(int64_t c, bool use_bn) {
  nn::Sequential S;
  S->push_back(nn::Conv2d(c, c, 3));
  if (nextFlag())
    S->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:16: warning: bias of this Conv2d is cancelled by the BatchNorm2d (added when 'nextFlag()' holds), which subtracts the per-channel mean right after; build the convolution with .bias(!nextFlag()); no fix-it: the condition 'nextFlag()' has side effects [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  S->push_back(nn::Conv2d(c, c, 3));
  if (globalBatchNorm)
    S->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:16: warning: bias of this Conv2d {{.*}}; no fix-it: 'globalBatchNorm' is not a parameter or local variable [torch-conv-bias-before-batchnorm]
  S->push_back(nn::Conv2d(c, c, 3));
  if (use_bn)
    S->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:16: warning: bias of this Conv2d {{.*}}; no fix-it: 'use_bn' changes in 'noFix' [torch-conv-bias-before-batchnorm]
  use_bn = !use_bn;
  return S;
}

// --- Through helpers ------------------------------------------------------

nn::Conv2dOptions options3x3(int64_t c) {
  return nn::Conv2dOptions(c, c, 3).padding(1);
}

static nn::Conv2d conv3x3(int64_t c) {
  return nn::Conv2d(nn::Conv2dOptions(c, c, 3).padding(1));
}

nn::Sequential helpers(int64_t c, bool use_bn) {
  nn::Sequential S;
  S->push_back(nn::Conv2d(options3x3(c)));
  if (use_bn)
    S->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:16: warning: bias of the Conv2d from 'options3x3' is cancelled by the BatchNorm2d (added when 'use_bn' holds), which subtracts the per-channel mean right after; build the convolution with .bias(!use_bn) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  S->push_back(nn::Conv2d(options3x3(c).bias(!use_bn)));{{$}}
  // The helper is not changed for the call the BatchNorm always follows:
  // the flagged call would lose its bias without a BatchNorm.
  S->push_back(conv3x3(c));
  if (use_bn)
    S->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-3]]:16: warning: bias of the Conv2d from 'conv3x3' is cancelled by the BatchNorm2d (added when 'use_bn' holds), {{.*}}; no fix-it: the convolution is built inside 'conv3x3', where the condition cannot be read [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  S->push_back(conv3x3(c));
  S->push_back(nn::BatchNorm2d(c));
  // CHECK-MESSAGES: :[[@LINE-2]]:16: warning: bias of the Conv2d from 'conv3x3' is cancelled by the BatchNorm2d, {{.*}}; no fix-it: 'conv3x3' also builds convolutions that no BatchNorm follows; pass the bias as a parameter [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-MESSAGES: :[[@LINE-9]]:{{[0-9]+}}: note: called here with no batch norm after it
  return S;
}

// --- Module members ---------------------------------------------------------

struct BlockImpl : nn::Module {
  BlockImpl(int64_t c, bool use_bn)
      : use_bn_(use_bn), conv(nn::Conv2dOptions(c, c, 3).padding(1)) {
    // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn' (added when 'use_bn_' holds), which subtracts the per-channel mean right after; build the convolution with .bias(!use_bn) [torch-conv-bias-before-batchnorm]
    // CHECK-MESSAGES: :[[@LINE+9]]:{{[0-9]+}}: note: batch norm here
    // CHECK-FIXES: {{^}}      : use_bn_(use_bn), conv(nn::Conv2dOptions(c, c, 3).padding(1).bias(!use_bn)) {{[{]}}{{$}}
    register_module("conv", conv);
    if (use_bn)
      bn = register_module("bn", nn::BatchNorm2d(c));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = conv(x);
    if (use_bn_)
      x = bn(x);
    return torch::relu(x);
  }
  bool use_bn_;
  nn::Conv2d conv;
  nn::BatchNorm2d bn{nullptr};
};

// The member flag can change after construction: no fix-it.
struct SwitchImpl : nn::Module {
  SwitchImpl(int64_t c, bool use_bn) : use_bn(use_bn), conv(c, c, 3) {
    // CHECK-MESSAGES: :[[@LINE-1]]:56: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn' (added when 'use_bn' holds), {{.*}}; no fix-it: 'use_bn' may change after the constructor [torch-conv-bias-before-batchnorm]
    // CHECK-MESSAGES: :[[@LINE+6]]:{{[0-9]+}}: note: batch norm here
    bn = register_module("bn", nn::BatchNorm2d(c));
  }
  torch::Tensor forward(torch::Tensor x) {
    auto y = conv->forward(x);
    if (use_bn) {
      y = bn->forward(y);
    }
    return y;
  }
  void disableBatchNorm() { use_bn = false; }
  bool use_bn;
  nn::Conv2d conv;
  nn::BatchNorm2d bn{nullptr};
};

// --- Negative ---------------------------------------------------------------

nn::Sequential silent(int64_t c, bool use_bn, bool bn) {
  const bool kBatchNorm = false;
  nn::Sequential S;
  // The bias already follows the flag.
  S->push_back(nn::Conv2d(nn::Conv2dOptions(c, c, 3).bias(!use_bn)));
  if (use_bn)
    S->push_back(nn::BatchNorm2d(c));
  S->push_back(nn::Conv2d(nn::Conv2dOptions(c, c, 3).bias(not bn)));
  if (bn) {
    S->push_back(nn::BatchNorm2d(c));
  }
  // A flag that never holds.
  S->push_back(nn::Conv2d(c, c, 3));
  if (kBatchNorm)
    S->push_back(nn::BatchNorm2d(c));
  // Something else first under the flag, or an else.
  S->push_back(nn::Conv2d(c, c, 3));
  if (use_bn) {
    S->push_back(nn::ReLU());
    S->push_back(nn::BatchNorm2d(c));
  }
  S->push_back(nn::Conv2d(c, c, 3));
  if (use_bn)
    S->push_back(nn::BatchNorm2d(c));
  else
    S->push_back(nn::ReLU());
  return S;
}

// The flag guards something else than the BatchNorm's assignment.
struct GuardImpl : nn::Module {
  explicit GuardImpl(int64_t c) : conv(c, c, 3), bn(c) {}
  torch::Tensor forward(torch::Tensor x, bool train) {
    auto y = conv(x);
    if (train)
      x = bn(y);
    return x + y;
  }
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
};
