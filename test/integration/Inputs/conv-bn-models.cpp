// Models with a convolution bias that BatchNorm cancels, built the ways
// torch-conv-bias-before-batchnorm follows. Compiled twice, before and after
// the fix, with MODELS_NS naming the namespace each build lands in.
#include <torch/torch.h>

namespace nn = torch::nn;

namespace MODELS_NS {

nn::Conv2d conv3x3(int64_t In, int64_t Out) {
  return nn::Conv2d(nn::Conv2dOptions(In, Out, 3).padding(1));
}

struct BlockImpl : nn::Module {
  BlockImpl()
      : conv1(conv3x3(3, 8)), bn1(8),
        conv2(register_module("conv2", nn::Conv2d(8, 8, 1))), bn2(8) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("bn2", bn2);
  }
  torch::Tensor forward(torch::Tensor x) {
    auto out = conv1->forward(x);
    out = bn1->forward(out);
    out = torch::relu(out);
    return bn2(conv2(out));
  }
  nn::Conv2d conv1, conv2;
  nn::BatchNorm2d bn1, bn2;
};
TORCH_MODULE(Block);

// The bias comes from a parameter that defaults to true.
nn::Conv2dOptions conv_options(int64_t In, int64_t Out, int64_t K,
                               int64_t Stride = 1, bool WithBias = true) {
  nn::Conv2dOptions Opts(In, Out, K);
  Opts.stride(Stride).padding(1);
  Opts.bias(WithBias);
  return Opts;
}

struct ConvBlockImpl : nn::Module {
  ConvBlockImpl(int64_t In, int64_t Out, bool Bias = true)
      : conv(register_module(
            "conv", nn::Conv2d(nn::Conv2dOptions(In, Out, 3).bias(Bias)))),
        bn(register_module("bn", nn::BatchNorm2d(Out))) {}
  torch::Tensor forward(torch::Tensor x) { return torch::relu(bn(conv(x))); }
  nn::Conv2d conv;
  nn::BatchNorm2d bn;
};
TORCH_MODULE(ConvBlock);

// A module that wraps a convolution, followed by a BatchNorm.
struct ConvImpl : nn::Module {
  ConvImpl(int64_t In, int64_t Out, bool Bias = true) {
    conv = register_module(
        "conv", nn::Conv2d(nn::Conv2dOptions(In, Out, 3).padding(1).bias(Bias)));
  }
  torch::Tensor forward(torch::Tensor x) { return conv->forward(x); }
  nn::Conv2d conv{nullptr};
};
TORCH_MODULE(Conv);

// The BatchNorm is added under a flag.
nn::Sequential flagged(bool UseBN) {
  nn::Sequential S;
  S->push_back(nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(1)));
  if (UseBN)
    S->push_back(nn::BatchNorm2d(8));
  S->push_back(nn::ReLU());
  return S;
}

nn::Sequential makeModel(int Which) {
  switch (Which) {
  case 3:
    return nn::Sequential(nn::Conv2d(conv_options(3, 8, 3)),
                          nn::BatchNorm2d(8));
  case 4:
    return nn::Sequential(ConvBlock(3, 8));
  case 5:
    return flagged(true);
  case 6:
    return nn::Sequential(
        nn::ConvTranspose2d(nn::ConvTranspose2dOptions(3, 8, 2).stride(2)),
        nn::BatchNorm2d(8));
  case 7:
    return nn::Sequential(Conv(3, 8), nn::BatchNorm2d(8));
  case 0:
    return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(3, 8, 3).padding(1)),
                          nn::BatchNorm2d(8), nn::ReLU());
  case 1: {
    nn::Sequential S;
    S->push_back(nn::Conv2d(3, 8, 3));
    S->push_back(nn::BatchNorm2d(8));
    return S;
  }
  default:
    return nn::Sequential(Block());
  }
}

} // namespace MODELS_NS
