// RUN: %check_torch_tidy %s torch-dataloader-workers %t -- \
// RUN:   -config="{CheckOptions: {torch-dataloader-workers.DefaultWorkers: 2}}" \
// RUN:   -- %torch_mock_2

// LibTorch 2.x, and another number of workers.
#include <torch/torch.h>

#include <fstream>
#include <string>
#include <vector>

class TextDataset : public torch::data::datasets::Dataset<TextDataset> {
public:
  torch::data::Example<> get(size_t Index) override {
    std::string Line;
    std::getline(In, Line);
    return {torch::full({1}, static_cast<double>(Line.size())),
            torch::zeros({1})};
  }
  std::optional<size_t> size() const override { return 10; }
  std::ifstream In;
};

void train(TextDataset &Data) {
  auto Loader = torch::data::make_data_loader(
      std::move(Data).map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions().batch_size(8).drop_last(true));
  // CHECK-MESSAGES: :[[@LINE-3]]:17: warning: data loader runs with 0 workers: 'TextDataset::get' does file or stream I/O for every sample on the training thread, and each step waits for it; load batches in parallel with '.workers(2)' [torch-dataloader-workers]
  // CHECK-MESSAGES: :16:5: note: file or stream I/O here, for every sample
  // CHECK-FIXES: {{^}}      torch::data::DataLoaderOptions().batch_size(8).drop_last(true).workers(2));{{$}}
}

// --- Negative ---------------------------------------------------------------

void threads(TextDataset &Data) {
  const size_t Workers = 3;
  auto Loader = torch::data::make_data_loader(
      std::move(Data), torch::data::DataLoaderOptions(8).workers(Workers));
}
