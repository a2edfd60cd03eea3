#include <torch/torch.h>

// Made on the host, then moved to `device`. On the CPU the fix changes
// nothing measurable: the verifier must say `same`.
torch::Tensor noise(torch::Device device) {
  auto n = torch::randn({128, 128}).to(device);
  return n;
}
