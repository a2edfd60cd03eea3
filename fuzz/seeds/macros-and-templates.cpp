// RUN: %torch_mock_1_13
#include <torch/torch.h>
#include <vector>

#define ZERO(o) o.zero_grad()
#define LOOP for (int I = 0; I < 4; ++I)
#define CAT(a, b) a##b
#define ITEM(t) t.item<float>()
#define STEP(o) do { o.step(); } while (0)

template <typename Opt, typename T> void generic(Opt &opt, T &model, std::vector<torch::Tensor> xs) {
  LOOP {
    ZERO(opt);
    float total = 0;
    for (auto &x : xs) total += ITEM(x.cuda());
    auto l = [&](auto y) { return y.item<double>(); };
    total += l(xs[0]);
    for (auto &p : model->parameters()) p.grad().zero_();
    STEP(opt);
  }
}

struct NetImpl : torch::nn::Module { torch::Tensor forward(torch::Tensor x); };
using Net = torch::nn::ModuleHolder<NetImpl>;

void use(torch::optim::SGD &opt, Net &net) {
  generic(opt, net, {torch::randn({2}, torch::kCUDA)});
  CAT(op, t).zero_grad();
  while (true) { opt.zero_grad(); if (!net) break; }
  do opt.zero_grad(); while (false);
}
