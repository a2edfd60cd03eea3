// RUN: %check_torch_tidy %s torch-conv-bias-before-batchnorm %t -- -- %torch_mock_2

#include <torch/torch.h>

#include <memory>

namespace nn = torch::nn;

// --- Adjacent in a Sequential -------------------------------------------

nn::Sequential variadic() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).stride(2)),
                        nn::BatchNorm2d(16), nn::ReLU());
  // CHECK-MESSAGES: :[[@LINE-2]]:25: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; build the convolution with .bias(false) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).stride(2).bias(false)),{{$}}
}

nn::Sequential braced() {
  nn::Sequential S{nn::Conv2d(3, 16, 3), nn::BatchNorm2d(16)};
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  nn::Sequential S{nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).bias(false)), nn::BatchNorm2d(16)};{{$}}
  return S;
}

nn::Sequential named() {
  return nn::Sequential({{"conv", nn::Conv3d(3, 16, 3)},
                         {"bn", nn::BatchNorm3d(16)}});
  // CHECK-MESSAGES: :[[@LINE-2]]:35: warning: bias of this Conv3d is cancelled by the BatchNorm3d 'bn', which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential({{[{][{]}}"conv", nn::Conv3d(torch::nn::Conv3dOptions(3, 16, 3).bias(false))},{{$}}
}

nn::Sequential pushed() {
  nn::Sequential S;
  S->push_back(nn::Conv1d(nn::Conv1dOptions(3, 16, 3).bias(true)));
  S->push_back("bn", nn::BatchNorm1d(16));
  // CHECK-MESSAGES: :[[@LINE-2]]:16: warning: bias of this Conv1d is cancelled by the BatchNorm1d 'bn', which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  S->push_back(nn::Conv1d(nn::Conv1dOptions(3, 16, 3).bias(false)));{{$}}
  S->push_back(std::make_shared<nn::Conv2dImpl>(16, 32, 1));
  S->push_back(nn::BatchNorm2d(32));
  // CHECK-MESSAGES: :[[@LINE-2]]:16: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  S->push_back(std::make_shared<nn::Conv2dImpl>(torch::nn::Conv2dOptions(16, 32, 1).bias(false)));{{$}}
  return S;
}

nn::Sequential transposed() {
  return nn::Sequential(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(8, 4, 2)),
                        nn::BatchNorm2d(4));
  // CHECK-MESSAGES: :[[@LINE-2]]:25: warning: bias of this ConvTranspose2d is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(8, 4, 2).bias(false)),{{$}}
}

nn::Sequential optionsVariable() {
  auto Opts = nn::Conv2dOptions(3, 16, 3).padding(1);
  // CHECK-FIXES: {{^}}  auto Opts = nn::Conv2dOptions(3, 16, 3).padding(1).bias(false);{{$}}
  Opts.stride(2);
  return nn::Sequential(nn::Conv2d(Opts), nn::BatchNorm2d(16));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}

nn::Sequential flagVariable() {
  bool UseBias = true;
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).bias(UseBias)),
                        nn::BatchNorm2d(16));
  // CHECK-MESSAGES: :[[@LINE-2]]:25: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).bias(false)),{{$}}
}

// --- Members called one after the other ----------------------------------

struct NetImpl : nn::Module {
  NetImpl() : conv1(3, 16, 3), bn1(16), bn2(16) {
    // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn1', which
    // CHECK-MESSAGES: :[[@LINE+15]]:{{[0-9]+}}: note: batch norm here
    // CHECK-FIXES: {{^}}  NetImpl() : conv1(torch::nn::Conv2dOptions(3, 16, 3).bias(false)), bn1(16), bn2(16) {{[{]}}{{$}}
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    conv2 = register_module(
        "conv2", nn::Conv2d(nn::Conv2dOptions(16, 16, 3).padding(1)));
    // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn2', which
    // CHECK-MESSAGES: :[[@LINE+10]]:{{[0-9]+}}: note: batch norm here
    // CHECK-FIXES: {{^}}        "conv2", nn::Conv2d(nn::Conv2dOptions(16, 16, 3).padding(1).bias(false)));{{$}}
    conv3 = register_module("conv3", nn::Conv2d(16, 16, 1));
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn2', which
    // CHECK-MESSAGES: :[[@LINE+8]]:{{[0-9]+}}: note: batch norm here
    // CHECK-FIXES: {{^}}    conv3 = register_module("conv3", nn::Conv2d(torch::nn::Conv2dOptions(16, 16, 1).bias(false)));{{$}}
  }
  torch::Tensor forward(torch::Tensor x) {
    x = bn1(conv1(x));
    auto y = conv2->forward(x);
    y = bn2->forward(y);
    x = conv3(y);
    x = bn2(x);
    return torch::relu(x);
  }
  nn::Conv2d conv1, conv2{nullptr}, conv3{nullptr};
  nn::BatchNorm2d bn1, bn2;
};

// --- Through a helper -----------------------------------------------------

nn::Conv2d conv3x3(int64_t In, int64_t Out) {
  return nn::Conv2d(nn::Conv2dOptions(In, Out, 3).padding(1));
  // CHECK-FIXES: {{^}}  return nn::Conv2d(nn::Conv2dOptions(In, Out, 3).padding(1).bias(false));{{$}}
}

struct BlockImpl : nn::Module {
  BlockImpl() : conv1(conv3x3(3, 8)), bn1(8), conv2(conv3x3(8, 8)), bn2(8) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: bias of the Conv2d from 'conv3x3' is cancelled by the BatchNorm2d 'bn1', which
  // CHECK-MESSAGES: :[[@LINE+5]]:{{[0-9]+}}: note: batch norm here
  // CHECK-MESSAGES: :[[@LINE-3]]:53: warning: bias of the Conv2d from 'conv3x3' is cancelled by the BatchNorm2d 'bn2', which
  // CHECK-MESSAGES: :[[@LINE+6]]:{{[0-9]+}}: note: batch norm here
  torch::Tensor forward(torch::Tensor x) {
    auto out = conv1->forward(x);
    out = bn1->forward(out);
    out = torch::relu(out);
    out = conv2->forward(out);
    out = bn2->forward(out);
    return out;
  }
  nn::Conv2d conv1, conv2;
  nn::BatchNorm2d bn1, bn2;
};

// A helper returning options: the call that BatchNorm follows gets the fix,
// the other use keeps its bias.
nn::Conv2dOptions convOptions(int64_t In, int64_t Out) {
  return nn::Conv2dOptions(In, Out, 3).padding(1);
}

nn::Sequential helperOptions() {
  return nn::Sequential(nn::Conv2d(convOptions(3, 8)), nn::BatchNorm2d(8),
                        nn::Conv2d(convOptions(8, 8)));
  // CHECK-MESSAGES: :[[@LINE-2]]:25: warning: bias of the Conv2d from 'convOptions' is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-3]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential(nn::Conv2d(convOptions(3, 8).bias(false)), nn::BatchNorm2d(8),{{$}}
}

// Options built from a braced list name no type to call .bias() on: the
// fix names it.
nn::Conv2dOptions bracedOptions(int64_t In, int64_t Out) { return {In, Out, 3}; }
// CHECK-FIXES: {{^}}nn::Conv2dOptions bracedOptions(int64_t In, int64_t Out) { return torch::nn::Conv2dOptions{In, Out, 3}.bias(false); }{{$}}

nn::Sequential helperBracedOptions() {
  return nn::Sequential(nn::Conv2d(bracedOptions(3, 16)), nn::BatchNorm2d(16));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of the Conv2d from 'bracedOptions' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; build the convolution with .bias(false) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}

nn::Sequential bracedVariable() {
  const nn::Conv2dOptions Opts = {3, 16, 3};
  // CHECK-FIXES: {{^}}  const nn::Conv2dOptions Opts = torch::nn::Conv2dOptions{3, 16, 3}.bias(false);{{$}}
  return nn::Sequential(nn::Conv2d(Opts), nn::BatchNorm2d(16));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; build the convolution with .bias(false) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}

nn::Sequential bracedDeclaration() {
  nn::Conv2dOptions Opts{3, 16, 3};
  return nn::Sequential(nn::Conv2d(Opts), nn::BatchNorm2d(16));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; build the convolution with .bias(false); no fix-it: options variable 'Opts' is built by its declaration; set .bias(false) on it [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}

// A helper returning a module that is also used without BatchNorm.
nn::Conv2d conv1x1(int64_t In, int64_t Out) { return nn::Conv2d(In, Out, 1); }

nn::Sequential helperShared() {
  return nn::Sequential(conv1x1(3, 8), nn::BatchNorm2d(8), conv1x1(8, 8));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of the Conv2d from 'conv1x1' is cancelled by the BatchNorm2d, which subtracts the per-channel mean right after; build the convolution with .bias(false); no fix-it: 'conv1x1' also builds convolutions that no BatchNorm follows; pass the bias as a parameter [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-MESSAGES: :[[@LINE-3]]:{{[0-9]+}}: note: called here with no batch norm after it
}

#define CONV_OPTIONS(In, Out) nn::Conv2dOptions(In, Out, 3)

nn::Sequential macroOptions() {
  return nn::Sequential(nn::Conv2d(CONV_OPTIONS(3, 8)), nn::BatchNorm2d(8));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of this Conv2d is cancelled by the BatchNorm2d, {{.*}}; no fix-it: the options are written in a macro [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
}

template <typename T> nn::Sequential inTemplate(T Channels) {
  return nn::Sequential(nn::Conv2d(3, 8, 3), nn::BatchNorm2d(8));
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: bias of this Conv2d is cancelled by the BatchNorm2d, which
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential(nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).bias(false)), nn::BatchNorm2d(8));{{$}}
}
template nn::Sequential inTemplate<int>(int);
template nn::Sequential inTemplate<long>(long);

// --- Negative: bias already off --------------------------------------------

constexpr bool kBias = false;

nn::Sequential biasOff(bool WithBias) {
  const bool NoBias = false;
  bool Off = false;
  return nn::Sequential(
      nn::Conv2d(nn::Conv2dOptions(3, 16, 3).bias(false)), nn::BatchNorm2d(16),
      nn::Conv2d(nn::Conv2dOptions(16, 16, 3).bias(kBias)), nn::BatchNorm2d(16),
      nn::Conv2d(nn::Conv2dOptions(16, 16, 3).bias(NoBias)),
      nn::BatchNorm2d(16),
      nn::Conv2d(nn::Conv2dOptions(16, 16, 3).bias(Off)), nn::BatchNorm2d(16),
      // Not provable: the caller decides.
      nn::Conv2d(nn::Conv2dOptions(16, 16, 3).bias(WithBias)),
      nn::BatchNorm2d(16));
}

nn::Sequential flagChanged(int Layers) {
  bool UseBias = false;
  if (Layers > 2)
    UseBias = true;
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 16, 3).bias(UseBias)),
                        nn::BatchNorm2d(16));
}

nn::Sequential optionsChanged() {
  auto Opts = nn::Conv2dOptions(3, 16, 3);
  Opts.bias(false);
  return nn::Sequential(nn::Conv2d(Opts), nn::BatchNorm2d(16));
}

nn::Conv2d conv3x3NoBias(int64_t In, int64_t Out, bool Bias = false) {
  return nn::Conv2d(nn::Conv2dOptions(In, Out, 3).bias(Bias));
}

nn::Sequential helperWithoutBias() {
  return nn::Sequential(conv3x3NoBias(3, 8), nn::BatchNorm2d(8));
}

// --- Negative: something between the convolution and the BatchNorm ---------

nn::Sequential activationBetween() {
  nn::Sequential S(nn::Conv2d(3, 16, 3), nn::ReLU(), nn::BatchNorm2d(16),
                   nn::Conv2d(16, 16, 3), nn::Dropout(0.2), nn::BatchNorm2d(16),
                   nn::Conv2d(16, 16, 3), nn::MaxPool2d(2), nn::BatchNorm2d(16),
                   nn::Conv2d(16, 16, 3));
  S->push_back(nn::Conv2d(16, 16, 3));
  S->push_back(nn::ReLU());
  S->push_back(nn::BatchNorm2d(16));
  return S;
}

// A BatchNorm under a flag is reported (conv-bias-before-batchnorm-flag.cpp).
nn::Sequential conditionalBatchNorm(bool BatchNorm) {
  nn::Sequential S;
  S->push_back(nn::Conv2d(3, 16, 3));
  if (BatchNorm)
    S->push_back(nn::BatchNorm2d(16));
  // CHECK-MESSAGES: :[[@LINE-3]]:16: warning: bias of this Conv2d is cancelled by the BatchNorm2d (added when 'BatchNorm' holds), which subtracts the per-channel mean right after; build the convolution with .bias(!BatchNorm) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  S->push_back(nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).bias(!BatchNorm)));{{$}}
  return S;
}

nn::Sequential otherSequential(nn::Sequential Other) {
  nn::Sequential S;
  S->push_back(nn::Conv2d(3, 16, 3));
  Other->push_back(nn::BatchNorm2d(16));
  return S;
}

struct BetweenImpl : nn::Module {
  BetweenImpl() : c1(3, 8, 3), c2(8, 8, 3), c3(8, 8, 3), c4(8, 8, 3), bn(8) {}
  torch::Tensor forward(torch::Tensor x) {
    x = bn(torch::relu(c1(x)));
    x = c2(x);
    x = torch::relu(x);
    x = bn(x);
    // The output of c3 is read again after the BatchNorm.
    auto y = c3(x);
    auto z = bn(y);
    x = z + y;
    // c4 feeds a BatchNorm once, and the loss directly once.
    x = bn(c4(x));
    return x + c4(x);
  }
  nn::Conv2d c1, c2, c3, c4;
  nn::BatchNorm2d bn;
};

// A field read elsewhere than in a call.
struct ReadImpl : nn::Module {
  ReadImpl() : conv(3, 8, 3), bn(8) {}
  torch::Tensor forward(torch::Tensor x) { return bn(conv(x)); }
  torch::Tensor bias() { return conv->bias; }
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
};

// Built somewhere this translation unit does not show.
struct ElsewhereImpl : nn::Module {
  ElsewhereImpl();
  torch::Tensor forward(torch::Tensor x) { return bn(conv(x)); }
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};
};

// Loading an optimizer's state loads no module weights.
void resume(torch::optim::Optimizer &Optimizer) {
  torch::load(Optimizer, "optimizer.pt");
}

// --- Names are reported verbatim ---------------------------------------------

// A name is an argument of the diagnostic, never part of its format string:
// `%1%0` in it is printed as written.
nn::Sequential percentNames() {
  return nn::Sequential({{"conv%0", nn::Conv2d(3, 16, 3)},
                         {"bn%1%0", nn::BatchNorm2d(16)}});
  // CHECK-MESSAGES: :[[@LINE-2]]:37: warning: bias of this Conv2d is cancelled by the BatchNorm2d 'bn%1%0', which subtracts the per-channel mean right after; build the convolution with .bias(false) [torch-conv-bias-before-batchnorm]
  // CHECK-MESSAGES: :[[@LINE-2]]:{{[0-9]+}}: note: batch norm here
  // CHECK-FIXES: {{^}}  return nn::Sequential({{[{][{]}}"conv%0", nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).bias(false))},{{$}}
}

nn::Sequential percentPushed() {
  nn::Sequential S;
  S->push_back("conv%1", nn::Conv2d(3, 16, 3));
  S->push_back("%0%%bn", nn::BatchNorm2d(16));
  // CHECK-MESSAGES: :[[@LINE-2]]:26: warning: bias of this Conv2d is cancelled by the BatchNorm2d '%0%%bn', which
  // CHECK-FIXES: {{^}}  S->push_back("conv%1", nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).bias(false)));{{$}}
  return S;
}
