#include <torch/torch.h>

// A training loop that reads the loss every step. The harness rebuilds the
// model and the optimizer from their constructions and `x` from its literal
// shape, binds `device` to the machine's, then runs the loop before and
// after the fix.
float train(torch::Device device) {
  torch::nn::Linear model(8, 2);
  torch::optim::SGD opt(model->parameters(), 0.1);
  auto x = torch::randn({4, 8}, device);
  model->to(device);
  float total = 0;
  for (int i = 0; i < 20; ++i) {
    opt.zero_grad();
    auto loss = model->forward(x).pow(2).sum();
    loss.backward();
    opt.step();
    total += loss.item<float>();
  }
  return total;
}
