// LibTorch's own headers are never reported, even when they are included as
// user headers (-I) and every header is let through the header filter.
// RUN: %check_torch_tidy %s torch-zero-grad %t -- --header-filter='.*' -- %torch_mock_1_13_user

#include <torch/torch.h>

void useInternals(torch::optim::SGD &Optimizer, torch::nn::Module &Model,
                  std::vector<torch::Tensor> &Params) {
  torch::optim::resetOptimizer(Optimizer);
  torch::nn::resetModule(Model);
  at::clearGradsInPlace(Params);
}
