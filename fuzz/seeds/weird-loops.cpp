// RUN: %torch_mock_2
#include <torch/torch.h>
#include <iostream>
#include <chrono>

torch::Tensor helper(torch::Tensor t) { return t.cpu(); }
torch::Tensor rec(torch::Tensor t, int n) { return n ? rec(t, n - 1).cpu() : t.item<float>() > 0 ? t : t; }

void loops(torch::Tensor x, torch::Device dev) {
  float sum = 0, sum_device = 0;
  for (long long i = -9223372036854775807LL - 1; i < 9223372036854775807LL; ++i)
    sum += x.item<float>() * 2.0f;
  for (int i = 0; i < 10; ++i) { sum += x.item<float>() / 3; }
  for (;;) { helper(x); rec(x, 3); if (sum > 1) break; }
  for (auto v : {1, 2, 3}) std::cout << x.to(dev) << v;
  while (x.item<bool>()) { x = x.to(torch::kCUDA); }
  do { sum += x.item<double>(); } while (sum < 10);
  for (int i = 0; i < 4; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    torch::cuda::synchronize();
    auto *p = x.data_ptr<float>();
    sum += p[0];
    if (i % 10 == 0) std::cout << x;
    auto nz = x.nonzero();
    torch::Tensor h = torch::from_blob(&sum, {1});
    h.to(dev);
    h.cuda();
  }
  std::cout << sum << sum_device;
}
