#include <torch/torch.h>

// No compile database: the hook finds LibTorch's headers by itself.
torch::Tensor noise(torch::Device device) {
  return torch::randn({16, 16}).to(device);
}
