#include <torch/torch.h>

void fit(torch::nn::Linear &model, torch::optim::SGD &opt, int steps) {
  for (int i = 0; i < steps; ++i) {
    auto loss = model->forward(torch::randn({4, 8})).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}
