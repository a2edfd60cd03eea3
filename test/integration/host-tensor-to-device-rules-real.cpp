// torch-host-tensor-to-device on the real LibTorch headers (1.13 and 2.6):
// a copy made once per epoch or per update, around an inner loop that
// trains, is shared by the steps of that loop (silent); a copy in the steps,
// or in a loop whose inner loop does not train, is reported. A move like
// another tensor (`.to(other)`) is a move to its device.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t -- -- %torch_real
// RUN: %check_torch_tidy %s torch-host-tensor-to-device %t.v2 -- -- %torch2_real

#include <torch/torch.h>

#include <vector>

void trainEpochs(torch::nn::Linear &model, torch::optim::SGD &opt,
                 const std::vector<torch::Tensor> &batches,
                 torch::Device device) {
  for (int epoch = 0; epoch < 10; ++epoch) {
    torch::Tensor dice = torch::zeros({4}).to(device);
    for (const torch::Tensor &b : batches) {
      torch::Tensor loss =
          model->forward(b).sum() * torch::ones({1}).to(device);
      // CHECK-MESSAGES: :[[@LINE-1]]:54: warning: tensor made on the host by 'torch::ones'
      // CHECK-FIXES: {{^}}          model->forward(b).sum() * torch::ones({1}, torch::device(device));{{$}}
      opt.zero_grad();
      loss.backward();
      opt.step();
      dice = dice + loss.detach();
    }
    std::cout << dice << "\n";
  }
}

torch::Tensor advantages(torch::Device device) {
  return torch::zeros({1, 8}).to(device);
}

void trainUpdates(torch::nn::Linear &model, torch::optim::SGD &opt,
                  torch::Device device) {
  for (int update = 0; update < 100; ++update) {
    torch::Tensor a = advantages(device);
    for (int epoch = 0; epoch < 4; ++epoch) {
      torch::Tensor loss = model->forward(a).sum();
      opt.zero_grad();
      loss.backward();
      opt.step();
    }
  }
}

float stepsWithInnerLoop(torch::Device device) {
  float total = 0;
  for (int step = 0; step < 10; ++step) {
    torch::Tensor noise = torch::randn({8}).to(device);
    // CHECK-MESSAGES: :[[@LINE-1]]:45: warning: tensor made on the host by 'torch::randn'
    // CHECK-FIXES: {{^}}    torch::Tensor noise = torch::randn({8}, torch::device(device));{{$}}
    for (int i = 0; i < 3; ++i)
      total += noise[i].item<float>();
  }
  return total;
}

torch::Tensor scaleLike(const torch::Tensor &pred) {
  return pred * torch::ones({1, 4}).to(pred);
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: tensor made on the host by 'torch::ones'
  // CHECK-FIXES: {{^}}  return pred * torch::ones({1, 4}, pred.options());{{$}}
}
