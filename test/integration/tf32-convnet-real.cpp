// torch-tf32-disabled on the real LibTorch headers (1.13 and 2.6): a
// convolutional network whose only matmul layer is its classifier head trains
// its convolutions in TF32 already (cuDNN's default), so allowing TF32 for
// cuBLAS gains nothing (silent); the same network with an attention layer is
// reported.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t -- -- %torch_real
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t.v2 -- -- %torch2_real
// RUN: %check_torch_tidy %s torch-tf32-disabled %t.attn -- -- %torch_real -DATTENTION
// A CUDA device made only to probe for one, which nothing reads: the
// attention network trains on the CPU (silent).
// RUN: %check_torch_tidy --drop-checks=. %s torch-tf32-disabled %t.probe -- -- %torch2_real -DATTENTION -DPROBE_ONLY

#include <torch/torch.h>

torch::nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride) {
  return torch::nn::Conv2d(
      torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1));
}

struct ResNetImpl : torch::nn::Module {
  ResNetImpl()
      : stem(torch::nn::Conv2dOptions(3, 64, 7).stride(2).padding(3)),
        block1(conv3x3(64, 64, 1)), block2(conv3x3(64, 128, 2)),
        shortcut(torch::nn::Conv2dOptions(64, 128, 1).stride(2)),
#ifdef ATTENTION
        attention(torch::nn::MultiheadAttentionOptions(128, 8)),
#endif
        fc(128, 1000) {
    register_module("stem", stem);
    register_module("block1", block1);
    register_module("block2", block2);
    register_module("shortcut", shortcut);
    register_module("fc", fc);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(stem(x));
    x = torch::relu(block1(x)) + x;
    x = torch::relu(block2(x)) + shortcut(x);
#ifdef ATTENTION
    auto tokens = x.flatten(2).permute({2, 0, 1});
    x = std::get<0>(attention(tokens, tokens, tokens)).mean(0);
#else
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
#endif
    return fc(x);
  }
  torch::nn::Conv2d stem, block1, block2, shortcut;
#ifdef ATTENTION
  torch::nn::MultiheadAttention attention;
#endif
  torch::nn::Linear fc;
};
TORCH_MODULE(ResNet);

int main() {
#ifdef PROBE_ONLY
  if (torch::cuda::is_available()) {
    torch::Device probe(torch::kCUDA);
  }
#endif
  torch::Device device(
#ifdef PROBE_ONLY
                       torch::kCPU);
#else
                       torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
#endif
  // CHECK-MESSAGES: :[[@LINE-7]]:17: warning: FP32 matmuls train on a device that can be CUDA with TF32 off for cuBLAS
  // CHECK-MESSAGES: :[[@LINE+7]]:3: note: training loop here
  // CHECK-FIXES: {{^}}                                                   : torch::kCPU);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  at::globalContext().setFloat32MatmulPrecision("high");{{$}}
  ResNet model;
  model->to(device);
  torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1));
  auto target = torch::randint(1000, {8}, device);
  for (int step = 0; step < 100; ++step) {
    auto loss = torch::cross_entropy_loss(
        model(torch::randn({8, 3, 64, 64}, device)), target);
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}
