// RUN: %check_torch_tidy %s torch-dataloader-workers %t -- -- %torch_mock_1_13

#include <torch/torch.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// A stand-in for OpenCV's declarations.
namespace cv {
struct Mat {
  unsigned char *data;
  int rows, cols;
};
Mat imread(const std::string &Path);
void resize(const Mat &In, Mat &Out, int W, int H);
} // namespace cv

using Example = torch::data::Example<>;

// Reads one file per sample.
class FileDataset : public torch::data::datasets::Dataset<FileDataset> {
public:
  explicit FileDataset(std::vector<std::string> Paths) : Paths(Paths) {}
  Example get(size_t Index) override {
    std::ifstream In(Paths[Index]);
    float Value = 0;
    In >> Value;
    return {torch::full({1}, Value), torch::zeros({1})};
  }
  std::optional<size_t> size() const override { return Paths.size(); }

private:
  std::vector<std::string> Paths;
};

// Decodes an image per sample, in a helper.
at::Tensor loadImage(const std::string &Path) {
  cv::Mat Image = cv::imread(Path);
  return torch::from_blob(Image.data, {Image.rows, Image.cols, 3}, torch::kByte);
}
class ImageDataset : public torch::data::datasets::Dataset<ImageDataset> {
public:
  Example get(size_t Index) override {
    return {loadImage(Paths[Index]), torch::zeros({1})};
  }
  std::optional<size_t> size() const override { return Paths.size(); }
  std::vector<std::string> Paths;
};

// Tensors already in memory: indexing only.
class TensorDataset : public torch::data::datasets::Dataset<TensorDataset> {
public:
  Example get(size_t Index) override {
    return {Images[static_cast<int64_t>(Index)],
            Labels[static_cast<int64_t>(Index)]};
  }
  std::optional<size_t> size() const override { return 100; }
  at::Tensor Images, Labels;
};

// Parses each sample in a transform mapped over an in-memory data set.
struct ParseTransform
    : public torch::data::transforms::Transform<Example, Example> {
  Example apply(Example In) override {
    float Scale = std::stof(Text);
    return {In.data * Scale, In.target};
  }
  std::string Text;
};

// Augmentation written out in tensor operations.
class AugmentedDataset
    : public torch::data::datasets::Dataset<AugmentedDataset> {
public:
  Example get(size_t Index) override {
    at::Tensor X = Images[static_cast<int64_t>(Index)];
    X = torch::relu(X) * 2.0;
    X = X - 0.5;
    X = X / 0.25;
    X = torch::relu(X + torch::randn({1}));
    return {X, Labels[static_cast<int64_t>(Index)]};
  }
  std::optional<size_t> size() const override { return 100; }
  at::Tensor Images, Labels;
};

// Light augmentations: three tensor operations each.
struct Shift : torch::data::transforms::TensorTransform<> {
  at::Tensor operator()(at::Tensor X) override {
    return torch::relu(X + 1.0) - 0.5;
  }
};
struct Squash : torch::data::transforms::TensorTransform<> {
  at::Tensor operator()(at::Tensor X) override {
    return torch::sigmoid(X) * 2.0 + 1.0;
  }
};

// --- Positive ---------------------------------------------------------------

void batchSizeOnly(std::vector<std::string> Paths) {
  auto Data = FileDataset(Paths).map(torch::data::transforms::Stack<>());
  auto Loader = torch::data::make_data_loader(std::move(Data), 64);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: data loader runs with 0 workers: 'FileDataset::get' does file or stream I/O for every sample on the training thread, and each step waits for it; load batches in parallel with '.workers(4)' [torch-dataloader-workers]
  // CHECK-MESSAGES: :27:{{[0-9]+}}: note: file or stream I/O here, for every sample
  // CHECK-FIXES: {{^}}  auto Loader = torch::data::make_data_loader(std::move(Data), torch::data::DataLoaderOptions(64).workers(4));{{$}}
}

void sequentialSampler(ImageDataset Data) {
  auto Loader =
      torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
          std::move(Data), torch::data::DataLoaderOptions().batch_size(32));
  // CHECK-MESSAGES: :[[@LINE-2]]:7: warning: data loader runs with 0 workers: 'ImageDataset::get' does OpenCV calls for every sample
  // CHECK-MESSAGES: :40:{{[0-9]+}}: note: OpenCV calls here, for every sample
  // CHECK-FIXES: {{^}}          std::move(Data), torch::data::DataLoaderOptions().batch_size(32).workers(4));{{$}}
}

void explicitZero(ImageDataset Data) {
  auto Loader = torch::data::make_data_loader(
      std::move(Data), torch::data::DataLoaderOptions(8).workers(0));
  // CHECK-MESSAGES: :[[@LINE-2]]:17: warning: data loader runs with 0 workers: 'ImageDataset::get' does OpenCV calls
  // CHECK-FIXES: {{^}}      std::move(Data), torch::data::DataLoaderOptions(8).workers(4));{{$}}
}

void defaultOptions(TensorDataset Data) {
  auto Loader = torch::data::make_data_loader(
      std::move(Data).map(ParseTransform()));
  // CHECK-MESSAGES: :[[@LINE-2]]:17: warning: data loader runs with 0 workers: 'ParseTransform::apply' does string parsing
  // CHECK-FIXES: {{^}}      std::move(Data).map(ParseTransform()), torch::data::DataLoaderOptions().workers(4));{{$}}
}

void lambdaTransform(TensorDataset Data) {
  auto Mapped = std::move(Data).map(torch::data::transforms::Lambda<Example>(
      [](Example E) {
        for (int I = 0; I < 3; ++I)
          E.data = E.data * 2.0;
        return E;
      }));
  auto Loader = torch::data::make_data_loader(std::move(Mapped), 16);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: data loader runs with 0 workers: a lambda transform does a loop
  // CHECK-FIXES: {{^}}  auto Loader = torch::data::make_data_loader(std::move(Mapped), torch::data::DataLoaderOptions(16).workers(4));{{$}}
}

void manyTensorOps(AugmentedDataset Data) {
  auto Loader = torch::data::make_data_loader(std::move(Data), 16);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: data loader runs with 0 workers: 'AugmentedDataset::get' does 7 tensor operations
}
// CHECK-FIXES: {{^}}  auto Loader = torch::data::make_data_loader(std::move(Data), torch::data::DataLoaderOptions(16).workers(4));{{$}}

void optionsVariable(FileDataset Data) {
  auto Options = torch::data::DataLoaderOptions().batch_size(4);
  auto Loader = torch::data::make_data_loader(std::move(Data), Options);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: data loader runs with 0 workers: 'FileDataset::get' does file or stream I/O
  // CHECK-MESSAGES: :[[@LINE-3]]:8: note: the options are the variable 'Options': add '.workers(4)' to it
}

// Options built explicitly from a batch size.
void explicitOptions(ImageDataset Data, size_t BatchSize) {
  auto Loader = torch::data::make_data_loader(
      std::move(Data), torch::data::DataLoaderOptions(BatchSize));
  // CHECK-MESSAGES: :[[@LINE-2]]:17: warning: data loader runs with 0 workers: 'ImageDataset::get' does OpenCV calls
  // CHECK-FIXES: {{^}}      std::move(Data), torch::data::DataLoaderOptions(BatchSize).workers(4));{{$}}
}

// Cheap alone, not together: every transform of the chain runs per sample.
void transformChain(TensorDataset Data) {
  auto Loader = torch::data::make_data_loader(
      std::move(Data).map(Shift()).map(Squash()), 8);
  // CHECK-MESSAGES: :[[@LINE-2]]:17: warning: data loader runs with 0 workers: the per-sample code (data set and transforms) does 6 tensor operations for every sample
  // CHECK-MESSAGES: :92:12: note: the first of them, in 'Shift::operator()'{{$}}
  // CHECK-FIXES: {{^}}      std::move(Data).map(Shift()).map(Squash()), torch::data::DataLoaderOptions(8).workers(4));{{$}}
}

// Maps each token through a function of another library per element: a
// loop that does more than move memory.
int64_t lookupToken(int64_t Raw);
class MappedTokenDataset
    : public torch::data::datasets::Dataset<MappedTokenDataset> {
public:
  Example get(size_t Index) override {
    std::vector<int64_t> Src = Tokens[Index];
    for (int64_t &T : Src)
      T = lookupToken(T);
    return {torch::from_blob(Src.data(), {16}).clone(), torch::tensor(1)};
  }
  std::optional<size_t> size() const override { return Tokens.size(); }
  std::vector<std::vector<int64_t>> Tokens;
};

void mappedTokens(MappedTokenDataset Data) {
  auto Loader = torch::data::make_data_loader(std::move(Data), 32);
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: data loader runs with 0 workers: 'MappedTokenDataset::get' does a loop
}
// CHECK-FIXES: {{^}}  auto Loader = torch::data::make_data_loader(std::move(Data), torch::data::DataLoaderOptions(32).workers(4));{{$}}

// --- Negative ---------------------------------------------------------------

// Pads in-memory token vectors with the standard library's calls alone, then
// wraps them: memory moves, microseconds per sample.
class TokenDataset : public torch::data::datasets::Dataset<TokenDataset> {
public:
  Example get(size_t Index) override {
    std::vector<int64_t> Src = Tokens[Index];
    while (Src.size() < 16)
      Src.push_back(0);
    return {torch::from_blob(Src.data(), {16}).clone(), torch::tensor(1)};
  }
  std::optional<size_t> size() const override { return Tokens.size(); }
  std::vector<std::vector<int64_t>> Tokens;
};

void paddedTokens(TokenDataset Data) {
  auto Loader = torch::data::make_data_loader(std::move(Data), 32);
}

void oneLightTransform(TensorDataset Data) {
  auto Loader = torch::data::make_data_loader(std::move(Data).map(Shift()), 8);
}

void mnist() {
  auto Data = torch::data::datasets::MNIST("data")
                  .map(torch::data::transforms::Normalize<>(0.1307, 0.3081))
                  .map(torch::data::transforms::Stack<>());
  auto Loader = torch::data::make_data_loader(std::move(Data), 64);
}

void inMemory(TensorDataset Data) {
  auto Loader = torch::data::make_data_loader(
      std::move(Data).map(torch::data::transforms::Stack<>()), 64);
}

void withWorkers(FileDataset Data, size_t Threads) {
  auto A = torch::data::make_data_loader(
      Data, torch::data::DataLoaderOptions().batch_size(64).workers(2));
  auto B = torch::data::make_data_loader(
      Data, torch::data::DataLoaderOptions(64).workers(Threads));
  auto Options = torch::data::DataLoaderOptions(64);
  Options.workers(Threads);
  auto C = torch::data::make_data_loader(std::move(Data), Options);
}

void optionsFromCaller(FileDataset Data,
                       const torch::data::DataLoaderOptions &Options) {
  auto Loader = torch::data::make_data_loader(std::move(Data), Options);
}
