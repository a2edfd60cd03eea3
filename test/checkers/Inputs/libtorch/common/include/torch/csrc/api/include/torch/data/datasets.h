#pragma once
// The data set, transform and loader-option declarations of
// torch/data/{dataloader_options,datasets/*,transforms/*,samplers/*}.h.
#include <ATen/core/TensorBody.h>
#include <torch/arg.h>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace torch {
namespace data {
template <typename Data, typename Target> struct Example;

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size)
      : batch_size_(batch_size) {}
  TORCH_ARG(size_t, batch_size) = 1;
  TORCH_ARG(size_t, workers) = 0;
  TORCH_ARG(std::optional<size_t>, max_jobs);
  TORCH_ARG(bool, enforce_ordering) = true;
  TORCH_ARG(bool, drop_last) = false;
};

namespace samplers {
class RandomSampler {
public:
  explicit RandomSampler(int64_t size);
};
class SequentialSampler {
public:
  explicit SequentialSampler(size_t size);
};
} // namespace samplers

namespace transforms {
template <typename InputBatch, typename OutputBatch> class BatchTransform {
public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;
  virtual ~BatchTransform() = default;
  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};
template <typename Input, typename Output>
class Transform
    : public BatchTransform<std::vector<Input>, std::vector<Output>> {
public:
  using InputType = Input;
  using OutputType = Output;
  virtual OutputType apply(InputType input) = 0;
  std::vector<Output> apply_batch(std::vector<Input> input_batch) override;
};
template <typename Input, typename Output = Input>
class Lambda : public Transform<Input, Output> {
public:
  using FunctionType = std::function<Output(Input)>;
  explicit Lambda(FunctionType function);
  Output apply(Input input) override;
};
template <typename Target = at::Tensor>
class TensorTransform : public Transform<Example<at::Tensor, Target>,
                                         Example<at::Tensor, Target>> {
public:
  virtual at::Tensor operator()(at::Tensor input) = 0;
  Example<at::Tensor, Target> apply(Example<at::Tensor, Target> input) override;
};
template <typename Target = at::Tensor>
struct Normalize : public TensorTransform<Target> {
  Normalize(double mean, double stddev);
  at::Tensor operator()(at::Tensor input) override;
};
template <typename T = Example<at::Tensor, at::Tensor>>
struct Stack : public BatchTransform<std::vector<T>, T> {
  T apply_batch(std::vector<T> examples) override;
};
} // namespace transforms

namespace datasets {
template <typename SourceDataset, typename AppliedTransform> class MapDataset;

template <typename Self,
          typename Batch = std::vector<Example<at::Tensor, at::Tensor>>,
          typename BatchRequest = std::vector<size_t>>
class BatchDataset {
public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  constexpr static bool is_stateful = false;
  virtual ~BatchDataset() = default;
  virtual Batch get_batch(BatchRequest request) = 0;
  virtual std::optional<size_t> size() const = 0;
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return MapDataset<Self, TransformType>(static_cast<Self &>(*this),
                                           std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return MapDataset<Self, TransformType>(
        std::move(static_cast<Self &>(*this)), std::move(transform));
  }
};

template <typename Self,
          typename SingleExample = Example<at::Tensor, at::Tensor>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
public:
  using ExampleType = SingleExample;
  virtual ExampleType get(size_t index) = 0;
  std::vector<ExampleType> get_batch(std::vector<size_t> indices) override;
};

template <typename SourceDataset, typename AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                          typename AppliedTransform::OutputBatchType> {
public:
  MapDataset(SourceDataset dataset, AppliedTransform transform);
  typename AppliedTransform::OutputBatchType
  get_batch(std::vector<size_t> indices) override;
  std::optional<size_t> size() const noexcept override;
};

class MNIST : public Dataset<MNIST> {
public:
  enum class Mode { kTrain, kTest };
  explicit MNIST(const std::string &root, Mode mode = Mode::kTrain);
  Example<at::Tensor, at::Tensor> get(size_t index) override;
  std::optional<size_t> size() const override;
};
} // namespace datasets

template <typename Dataset, typename Sampler>
std::unique_ptr<StatelessDataLoader<>>
make_data_loader(Dataset dataset, Sampler sampler, DataLoaderOptions options);
template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::unique_ptr<StatelessDataLoader<>>
make_data_loader(Dataset dataset,
                 DataLoaderOptions options = DataLoaderOptions());
} // namespace data
} // namespace torch
