#include <torch/torch.h>

// An anti-pattern committed before the hook: untouched, it does not block.
void train(torch::nn::Linear &model, torch::optim::SGD &opt, int steps) {
  for (int i = 0; i < steps; ++i) {
    auto loss = model->forward(torch::randn({4, 8})).sum();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
}
