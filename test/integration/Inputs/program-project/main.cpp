// Trains the model on the data set for a few steps; prints the loss every
// two steps, at four decimals as training logs do, and the training time.
//   train [STEPS]
#include "data.h"
#include "model.h"
#include "settings.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  int Steps = argc > 1 ? std::atoi(argv[1]) : defaultSteps();
  torch::manual_seed(7);
  torch::Device Device(torch::kCPU);
  torch::set_num_threads(1);
  // Left on from a debugging session.
  torch::autograd::AnomalyMode::set_enabled(true);

  StackNet Model(16, 2, 4);
  Model->to(Device);
  torch::optim::SGD Optimizer(Model->parameters(), torch::optim::SGDOptions(learningRate()));
  auto Loader = torch::data::make_data_loader(
      PointSet(256, 16, 4, Device).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(8));

  auto Start = std::chrono::steady_clock::now();
  int Step = 0;
  while (Step < Steps) {
    for (auto &Batch : *Loader) {
      if (Step == Steps)
        break;
      Optimizer.zero_grad();
      auto Loss = torch::nll_loss(Model->forward(Batch.data), Batch.target);
      Loss.backward();
      Optimizer.step();
      if (Step % 2 == 0)
        std::printf("step %d loss %.4f\n", Step, Loss.item<float>());
      ++Step;
    }
  }
  double Ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - Start)
                  .count();
  std::printf("train time %.3f ms\n", Ms);
  return 0;
}
