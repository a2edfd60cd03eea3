// torch-dataloader-workers on the real LibTorch headers (Debian's 1.13),
// through both hosts; the runner compiles the fixed file against the same
// headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %s torch-dataloader-workers %t -- -- %torch_real
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-dataloader-workers' --header-filter='.*' --system-headers %s -- %torch_real | FileCheck %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:

#include <torch/torch.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// Parses one line of text per sample.
class CsvDataset : public torch::data::datasets::Dataset<CsvDataset> {
public:
  explicit CsvDataset(std::vector<std::string> lines)
      : lines_(std::move(lines)) {}
  torch::data::Example<> get(size_t index) override {
    std::istringstream fields(lines_[index]);
    float x = 0, y = 0;
    fields >> x >> y;
    return {torch::full({1}, x), torch::full({1}, y)};
  }
  torch::optional<size_t> size() const override { return lines_.size(); }

private:
  std::vector<std::string> lines_;
};

// Tensors in memory.
class InMemory : public torch::data::datasets::Dataset<InMemory> {
public:
  torch::data::Example<> get(size_t index) override {
    return {images_[index], labels_[index]};
  }
  torch::optional<size_t> size() const override { return images_.size(0); }
  torch::Tensor images_ = torch::zeros({4, 2}), labels_ = torch::zeros({4});
};

// Token vectors in memory, padded with the standard library's calls: the
// loop moves memory, not worth a worker.
class Tokens : public torch::data::datasets::Dataset<Tokens> {
public:
  torch::data::Example<> get(size_t index) override {
    std::vector<int64_t> ids = ids_[index];
    while (ids.size() < 8)
      ids.push_back(0);
    return {torch::from_blob(ids.data(), {8}, torch::kLong).clone(),
            torch::tensor(static_cast<int64_t>(index))};
  }
  torch::optional<size_t> size() const override { return ids_.size(); }
  std::vector<std::vector<int64_t>> ids_{{1, 2}, {3}};
};

int main() {
  auto csv = CsvDataset({"1 2", "3 4"}).map(torch::data::transforms::Stack<>());
  auto loader = torch::data::make_data_loader(std::move(csv), 2);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: data loader runs with 0 workers: 'CsvDataset::get' does string parsing for every sample on the training thread, and each step waits for it; load batches in parallel with '.workers(4)' [torch-dataloader-workers]
  // CHECK-MESSAGES: :23:{{[0-9]+}}: note: string parsing here, for every sample
  // CHECK-FIXES: {{^}}  auto loader = torch::data::make_data_loader(std::move(csv), torch::data::DataLoaderOptions(2).workers(4));{{$}}
  auto csv2 = CsvDataset({"1 2"}).map(torch::data::transforms::Stack<>());
  auto sequential =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
          std::move(csv2), torch::data::DataLoaderOptions().batch_size(1));
  // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: data loader runs with 0 workers: 'CsvDataset::get' does string parsing
  // CHECK-FIXES: {{^}}          std::move(csv2), torch::data::DataLoaderOptions().batch_size(1).workers(4));{{$}}

  // Silent: tensors in memory, MNIST, padded token vectors, workers set.
  auto memory = torch::data::make_data_loader(
      InMemory().map(torch::data::transforms::Stack<>()), 2);
  auto mnist = torch::data::make_data_loader(
      torch::data::datasets::MNIST(".")
          .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
          .map(torch::data::transforms::Stack<>()),
      64);
  auto tokens = torch::data::make_data_loader(
      Tokens().map(torch::data::transforms::Stack<>()), 2);
  auto csv3 = CsvDataset({"1 2"}).map(torch::data::transforms::Stack<>());
  auto parallel = torch::data::make_data_loader(
      std::move(csv3), torch::data::DataLoaderOptions(2).workers(2));
  for (auto &batch : *loader)
    (void)batch;
  return 0;
}
