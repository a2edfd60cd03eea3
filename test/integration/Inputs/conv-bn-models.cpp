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

nn::Sequential makeModel(int Which) {
  switch (Which) {
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
