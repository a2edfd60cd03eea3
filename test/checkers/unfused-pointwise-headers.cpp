// LibTorch's own headers are never reported, even when they are included as
// user headers (-I) and every header is let through the header filter.
// RUN: %check_torch_tidy %s torch-unfused-pointwise %t -- --header-filter='.*' -- %torch_mock_1_13_user

#include <torch/torch.h>

// at::siluByHand writes SiLU out in the mock ATen/Functions.h.
torch::Tensor internal(const torch::Tensor &x) { return at::siluByHand(x); }
