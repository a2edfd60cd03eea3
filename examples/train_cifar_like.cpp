// A small image classifier trained on a synthetic CIFAR-like data set.
//
// It is written the way much real LibTorch code is written, and so it carries
// the Performance Tuning Guide's anti-patterns that libtorch-tidy reports:
// gradients zero-filled instead of reset, host syncs in the training loop,
// tensors made on the host and then moved, convolutions with a bias that
// BatchNorm cancels, anomaly detection left on, evaluation without a no-grad
// guard, blocking copies of each batch, a data set that decodes every sample
// on the training thread (no loader workers), and cuDNN's autotuner and TF32
// matmuls left off on a GPU.
//
//   train_cifar_like [--epochs N] [--batches-per-epoch N] [--batch-size N]

#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Options {
  int Epochs = 2;
  int BatchesPerEpoch = 4;
  int BatchSize = 16;
  int LogInterval = 2;
};

Options parseOptions(int argc, char **argv) {
  Options Opts;
  for (int I = 1; I + 1 < argc; I += 2) {
    int Value = std::atoi(argv[I + 1]);
    if (Value <= 0) {
      std::fprintf(stderr, "error: %s needs a positive number\n", argv[I]);
      std::exit(2);
    }
    if (!std::strcmp(argv[I], "--epochs"))
      Opts.Epochs = Value;
    else if (!std::strcmp(argv[I], "--batches-per-epoch"))
      Opts.BatchesPerEpoch = Value;
    else if (!std::strcmp(argv[I], "--batch-size"))
      Opts.BatchSize = Value;
    else {
      std::fprintf(stderr, "error: unknown option %s\n", argv[I]);
      std::exit(2);
    }
  }
  return Opts;
}

// Images of 3x32x32 whose class is decided by which colour channel is
// brightest, so the model has something learnable. They are stored as text,
// as a CSV export would hold them, and decoded when a sample is read.
class SyntheticImages : public torch::data::Dataset<SyntheticImages> {
public:
  explicit SyntheticImages(size_t Size)
      : Rows(std::make_shared<std::vector<std::string>>()) {
    for (size_t Index = 0; Index < Size; ++Index) {
      torch::manual_seed(static_cast<uint64_t>(Index));
      auto Image = torch::randn({3, 32, 32});
      int64_t Label = static_cast<int64_t>(Index % 3);
      Image[Label] += 0.15;
      std::ostringstream Row;
      Row << Label;
      auto Values = Image.contiguous();
      const float *Data = Values.data_ptr<float>();
      for (int64_t I = 0; I < Values.numel(); ++I)
        Row << ' ' << Data[I];
      Rows->push_back(Row.str());
    }
  }

  torch::data::Example<> get(size_t Index) override {
    std::istringstream Row((*Rows)[Index]);
    int64_t Label = 0;
    Row >> Label;
    std::vector<float> Values(3 * 32 * 32);
    for (float &Value : Values)
      Row >> Value;
    return {torch::from_blob(Values.data(), {3, 32, 32}).clone(),
            torch::tensor(Label)};
  }

  torch::optional<size_t> size() const override { return Rows->size(); }

private:
  std::shared_ptr<std::vector<std::string>> Rows;
};

struct NetImpl : torch::nn::Module {
  NetImpl() {
    conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 16, 3).padding(1)));
    bn1 = register_module("bn1", torch::nn::BatchNorm2d(16));
    conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)));
    bn2 = register_module("bn2", torch::nn::BatchNorm2d(32));
    fc = register_module("fc", torch::nn::Linear(32 * 8 * 8, 10));
  }

  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(bn1(conv1(x)));
    x = torch::max_pool2d(x, 2);
    x = bn2(conv2(x)); x = x * torch::sigmoid(x); // SiLU (swish), by hand
    x = torch::max_pool2d(x, 2);
    x = x.view({x.size(0), -1});
    return torch::log_softmax(fc(x), 1);
  }

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  torch::nn::Linear fc{nullptr};
};
TORCH_MODULE(Net);

template <typename Loader>
double evaluate(Net &model, Loader &loader, torch::Device device) {
  model->eval();
  model->zero_grad();
  int64_t correct = 0, total = 0;
  for (auto &batch : loader) {
    auto data = batch.data.to(device);
    auto targets = batch.target.to(device);
    auto output = model->forward(data);
    correct += output.argmax(1).eq(targets).sum().template item<int64_t>();
    total += targets.size(0);
  }
  return total ? static_cast<double>(correct) / total : 0.0;
}

} // namespace

int main(int argc, char **argv) {
  Options opts = parseOptions(argc, argv);
  torch::manual_seed(1); // the same weights every run: comparable results
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  // Left on after chasing a NaN.
  torch::autograd::AnomalyMode::set_enabled(true);

  Net model;
  model->to(device);
  torch::optim::SGD optimizer(model->parameters(),
                              torch::optim::SGDOptions(0.01).momentum(0.9));

  size_t train_size = static_cast<size_t>(opts.BatchesPerEpoch * opts.BatchSize);
  auto train_loader = torch::data::make_data_loader(
      SyntheticImages(train_size).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(opts.BatchSize));
  auto test_loader = torch::data::make_data_loader(
      SyntheticImages(static_cast<size_t>(opts.BatchSize * 2))
          .map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(opts.BatchSize));

  for (int epoch = 1; epoch <= opts.Epochs; ++epoch) {
    model->train();
    float running_loss = 0;
    int batch_idx = 0;
    for (auto &batch : *train_loader) {
      auto data = batch.data.to(device);
      auto targets = batch.target.to(device);
      auto noise = torch::randn(data.sizes()).to(device);

      optimizer.zero_grad();
      auto output = model->forward(data + 0.01 * noise);
      auto loss = torch::nll_loss(output, targets);
      loss.backward();
      optimizer.step();

      running_loss += loss.item<float>();
      if (batch_idx % opts.LogInterval == 0)
        std::printf("epoch %d batch %d loss %.4f\n", epoch, batch_idx,
                    loss.item<float>());
      ++batch_idx;
    }
    double accuracy = evaluate(model, *test_loader, device);
    std::printf("epoch %d mean loss %.4f test accuracy %.3f\n", epoch,
                running_loss / batch_idx, accuracy);
  }
  return 0;
}
