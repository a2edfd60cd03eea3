// RUN: %check_torch_tidy %s torch-conv-bias-before-batchnorm %t -- -- %torch_mock_2
// RUN: %check_torch_tidy %s torch-conv-bias-before-batchnorm %t.113 -- -- %torch_mock_1_13

// The bias of a convolution decided by a parameter of a function of this
// file, a helper or a module's constructor: each call is decided by its own
// argument, or by the parameter's default where it takes it.

#include <torch/torch.h>

#include <memory>

namespace nn = torch::nn;

// --- An options helper whose bias parameter defaults to true ---------------

nn::Conv2dOptions conv_options(int64_t in, int64_t out, int64_t k,
                               int64_t stride = 1, bool with_bias = true) {
  nn::Conv2dOptions opts(in, out, k);
  opts.stride(stride);
  opts.bias(with_bias);
  return opts;
}

nn::Sequential stem(bool learned) {
  return nn::Sequential(
      nn::Conv2d(conv_options(3, 64, 3)), nn::BatchNorm2d(64),
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: bias of the Conv2d from 'conv_options' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; pass false for its parameter 'with_bias' [torch-conv-bias-before-batchnorm]
      // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
      // CHECK-MESSAGES: :[[@LINE-12]]:69: note: 'with_bias' defaults to true
      // CHECK-MESSAGES: :[[@LINE-10]]:13: note: the convolution's bias is set from 'with_bias' here
      // CHECK-FIXES: {{^}}      nn::Conv2d(conv_options(3, 64, 3, 1, false)), nn::BatchNorm2d(64),{{$}}
      nn::Conv2d(conv_options(64, 64, 3, 2, true)), nn::BatchNorm2d(64),
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: bias of the Conv2d from 'conv_options' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; pass false for its parameter 'with_bias' [torch-conv-bias-before-batchnorm]
      // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
      // CHECK-FIXES: {{^}}      nn::Conv2d(conv_options(64, 64, 3, 2, false)), nn::BatchNorm2d(64),{{$}}
      nn::Conv2d(conv_options(64, 64, 3, 1, false)), nn::BatchNorm2d(64),
      // Undecided: the caller's flag.
      nn::Conv2d(conv_options(64, 64, 3, 1, learned)), nn::BatchNorm2d(64));
}

// Returned in one expression, with the stride given: only the bias is added.
nn::Conv2dOptions down_options(int64_t in, int64_t out, int64_t stride = 2,
                               bool bias = true) {
  return nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(bias);
}

nn::Sequential down() {
  nn::Sequential S;
  S->push_back(nn::Conv2d(down_options(64, 128, 2)));
  S->push_back(nn::BatchNorm2d(128));
  // CHECK-MESSAGES: :[[@LINE-2]]:16: warning: bias of the Conv2d from 'down_options' is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  S->push_back(nn::Conv2d(down_options(64, 128, 2, false)));{{$}}
  return S;
}

// --- A module helper -------------------------------------------------------

nn::Conv2d conv3x3(int64_t in, int64_t out, bool bias = true) {
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).padding(1).bias(bias));
}

nn::Sequential body() {
  return nn::Sequential(conv3x3(64, 64), nn::BatchNorm2d(64), nn::ReLU(),
                        conv3x3(64, 64, false), nn::BatchNorm2d(64),
                        conv3x3(64, 10));
  // CHECK-MESSAGES: :[[@LINE-3]]:25: warning: bias of the Conv2d from 'conv3x3' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; pass false for its parameter 'bias' [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-4]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential(conv3x3(64, 64, false), nn::BatchNorm2d(64), nn::ReLU(),{{$}}
}

// --- Defaults that cannot be written out -----------------------------------

constexpr int64_t kPadding = 1;

nn::Conv2dOptions padded_options(int64_t in, int64_t out,
                                 int64_t padding = kPadding, bool bias = true) {
  return nn::Conv2dOptions(in, out, 3).padding(padding).bias(bias);
}

nn::Sequential padded() {
  return nn::Sequential(nn::Conv2d(padded_options(3, 8)), nn::BatchNorm2d(8));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of the Conv2d from 'padded_options' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; pass false for its parameter 'bias'; no fix-it: the parameters before 'bias' have defaults that are not literals [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}

// --- A module whose constructor takes the bias -----------------------------

struct ConvBlockImpl : nn::Module {
  ConvBlockImpl(int64_t in, int64_t out, bool bias = true)
      : conv(nn::Conv2dOptions(in, out, 3).padding(1).bias(bias)), bn(out) {
    register_module("conv", conv);
    register_module("bn", bn);
  }
  torch::Tensor forward(torch::Tensor x) { return torch::relu(bn(conv(x))); }
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
};
TORCH_MODULE(ConvBlock);

nn::Sequential blocks(bool learned) {
  nn::Sequential S;
  S->push_back(ConvBlock(3, 64));
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: bias of the Conv2d 'conv' built by this ConvBlockImpl is cancelled by the BatchNorm2d 'bn', which subtracts the per-channel mean right after; pass false for its parameter 'bias' [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-10]]:{{[0-9]+}}: note: batch norm here
  // CHECK-MESSAGES: :[[@LINE-16]]:54: note: 'bias' defaults to true
  // CHECK-MESSAGES: :[[@LINE-16]]:60: note: the convolution's bias is set from 'bias' here
  // CHECK-FIXES: {{^}}  S->push_back(ConvBlock(3, 64, false));{{$}}
  S->push_back(ConvBlock(64, 64, true));
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: bias of the Conv2d 'conv' built by this ConvBlockImpl is cancelled by the BatchNorm2d 'bn'
  // CHECK-FIXES: {{^}}  S->push_back(ConvBlock(64, 64, false));{{$}}
  S->push_back(std::make_shared<ConvBlockImpl>(64, 64));
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: bias of the Conv2d 'conv' built by this ConvBlockImpl is cancelled by the BatchNorm2d 'bn'
  // CHECK-FIXES: {{^}}  S->push_back(std::make_shared<ConvBlockImpl>(64, 64, false));{{$}}
  S->push_back(ConvBlock(64, 64, false));
  S->push_back(ConvBlock(64, 64, learned));
  S->push_back(ConvBlock(nullptr));
  return S;
}

// A module that only wraps a convolution, followed by a BatchNorm.
struct ConvImpl : nn::Module {
  ConvImpl(int64_t in, int64_t out, int64_t k, bool bias = true) {
    conv = register_module(
        "conv", nn::Conv2d(nn::Conv2dOptions(in, out, k).padding(k / 2).bias(bias)));
  }
  torch::Tensor forward(torch::Tensor x) { return conv->forward(x); }
  nn::Conv2d conv{nullptr};
};
TORCH_MODULE(Conv);

// Its output is not the convolution's alone.
struct ConvActImpl : nn::Module {
  ConvActImpl(int64_t c, bool bias = true)
      : conv(nn::Conv2dOptions(c, c, 3).bias(bias)) {}
  torch::Tensor forward(torch::Tensor x) { return torch::relu(conv(x)); }
  nn::Conv2d conv;
};
TORCH_MODULE(ConvAct);

// forward() stores the convolution's output and returns it: the same.
struct StoredImpl : nn::Module {
  explicit StoredImpl(int64_t c, bool bias = true) {
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(c, c, 3).bias(bias)));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = conv->forward(x);
    return x;
  }
  nn::Conv2d conv{nullptr};
};
TORCH_MODULE(Stored);

// The stored output goes through an activation first: not the same.
struct StoredActImpl : nn::Module {
  explicit StoredActImpl(int64_t c, bool bias = true) {
    conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(c, c, 3).bias(bias)));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = conv->forward(x);
    x = torch::relu(x);
    return x;
  }
  nn::Conv2d conv{nullptr};
};
TORCH_MODULE(StoredAct);

nn::Sequential stored() {
  return nn::Sequential(Stored(8), nn::BatchNorm2d(8), StoredAct(8),
                        nn::BatchNorm2d(8));
  // CHECK-MESSAGES: :[[@LINE-2]]:25: warning: bias of the Conv2d 'conv' built by this StoredImpl is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; pass false for its parameter 'bias' [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-3]]:{{[0-9]+}}: note: batch norm here
  // CHECK-MESSAGES: :[[@LINE-30]]:46: note: 'bias' defaults to true
  // CHECK-MESSAGES: :[[@LINE-30]]:{{[0-9]+}}: note: the convolution's bias is set from 'bias' here
  // CHECK-FIXES: {{^}}  return nn::Sequential(Stored(8, false), nn::BatchNorm2d(8), StoredAct(8),{{$}}
}

nn::Sequential wrapped(bool learned) {
  nn::Sequential S(Conv(3, 16, 3), nn::BatchNorm2d(16), nn::ReLU(),
                   Conv(16, 16, 1, learned), nn::BatchNorm2d(16),
                   Conv(16, 16, 1, false), nn::BatchNorm2d(16),
                   ConvAct(16), nn::BatchNorm2d(16), Conv(16, 16, 1));
  // CHECK-MESSAGES: :[[@LINE-4]]:20: warning: bias of the Conv2d 'conv' built by this ConvImpl is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; pass false for its parameter 'bias' [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-5]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  nn::Sequential S(Conv(3, 16, 3, false), nn::BatchNorm2d(16), nn::ReLU(),{{$}}
  S->push_back(Conv(16, 32, 3));
  S->push_back(nn::BatchNorm2d(32));
  // CHECK-MESSAGES: :[[@LINE-2]]:16: warning: bias of the Conv2d 'conv' built by this ConvImpl is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  S->push_back(Conv(16, 32, 3, false));{{$}}
  return S;
}

// --- Transposed convolutions in a decoder ----------------------------------

nn::ConvTranspose2dOptions up_options(int64_t in, int64_t out,
                                      bool bias = true) {
  return nn::ConvTranspose2dOptions(in, out, 2).stride(2).bias(bias);
}

struct DecoderImpl : nn::Module {
  DecoderImpl()
      : up1(up_options(64, 32)), bn1(32),
        up2(nn::ConvTranspose2dOptions(32, 16, 2).stride(2)), bn2(16),
        up3(nn::ConvTranspose3dOptions(16, 8, 2)), bn3(8),
        up4(up_options(8, 8, false)), bn4(8) {}
  // CHECK-MESSAGES: :[[@LINE-4]]:9: warning: bias of the ConvTranspose2d from 'up_options' is cancelled by the BatchNorm2d 'bn1', which subtracts the per-channel mean right after; pass false for its parameter 'bias' [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE+10]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}      : up1(up_options(64, 32, false)), bn1(32),{{$}}
  // CHECK-MESSAGES: :[[@LINE-6]]:9: warning: bias of this ConvTranspose2d is cancelled by the BatchNorm2d 'bn2', which subtracts the per-channel mean right after; build the convolution with .bias(false) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE+8]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}        up2(nn::ConvTranspose2dOptions(32, 16, 2).stride(2).bias(false)), bn2(16),{{$}}
  // CHECK-MESSAGES: :[[@LINE-8]]:9: warning: bias of this ConvTranspose3d is cancelled by the BatchNorm3d 'bn3', which
  // CHECK-MESSAGES: :[[@LINE+7]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}        up3(nn::ConvTranspose3dOptions(16, 8, 2).bias(false)), bn3(8),{{$}}
  torch::Tensor forward(torch::Tensor x, torch::Tensor v) {
    x = up1(x);
    x = bn1(x);
    x = bn2(up2(x));
    auto y = up3->forward(v);
    y = bn3->forward(y);
    x = bn4(up4(x));
    return x + y.mean();
  }
  nn::ConvTranspose2d up1, up2;
  nn::ConvTranspose3d up3;
  nn::ConvTranspose2d up4;
  nn::BatchNorm2d bn1, bn2;
  nn::BatchNorm3d bn3;
  nn::BatchNorm2d bn4;
};

nn::Sequential upsample() {
  return nn::Sequential(nn::ConvTranspose1d(8, 4, 2), nn::BatchNorm1d(4));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of this ConvTranspose1d is cancelled by the BatchNorm1d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential(nn::ConvTranspose1d(torch::nn::ConvTranspose1dOptions(8, 4, 2).bias(false)), nn::BatchNorm1d(4));{{$}}
}

// --- Negative --------------------------------------------------------------

// The parameter is changed before it reaches the options.
nn::Conv2d changed(int64_t in, int64_t out, bool bias = true) {
  bias = bias && in > 3;
  return nn::Conv2d(nn::Conv2dOptions(in, out, 3).bias(bias));
}

// The bias setter runs only on one path.
nn::Conv2dOptions maybe_options(int64_t in, int64_t out, bool bias = true) {
  nn::Conv2dOptions opts(in, out, 3);
  if (in > 3)
    opts.bias(bias);
  return opts;
}

// The default is false.
nn::Conv2dOptions plain_options(int64_t in, int64_t out, bool bias = false) {
  return nn::Conv2dOptions(in, out, 3).bias(bias);
}

nn::Sequential negatives() {
  return nn::Sequential(changed(3, 8), nn::BatchNorm2d(8),
                        nn::Conv2d(maybe_options(8, 8)), nn::BatchNorm2d(8),
                        nn::Conv2d(plain_options(8, 8)), nn::BatchNorm2d(8));
}

// A module whose constructors are not told apart by the number of
// arguments the holder forwards: which one a call reaches is left undecided.
struct TwoWaysImpl : nn::Module {
  TwoWaysImpl(int64_t c, bool bias = true)
      : conv(nn::Conv2dOptions(c, c, 3).bias(bias)), bn(c) {}
  explicit TwoWaysImpl(const std::string &name, int64_t c = 8)
      : conv(nn::Conv2dOptions(c, c, 3).bias(false)), bn(c) {}
  torch::Tensor forward(torch::Tensor x) { return bn(conv(x)); }
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
};
TORCH_MODULE(TwoWays);

// A module whose constructor takes the default but whose convolution is
// also used without the BatchNorm.
struct SkipImpl : nn::Module {
  explicit SkipImpl(int64_t c, bool bias = true)
      : conv(nn::Conv2dOptions(c, c, 3).bias(bias)), bn(c) {}
  torch::Tensor forward(torch::Tensor x) { return bn(conv(x)) + conv(x); }
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
};
TORCH_MODULE(Skip);

nn::Sequential moreNegatives() {
  return nn::Sequential(TwoWays(int64_t{8}), Skip(8));
}
