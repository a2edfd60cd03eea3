#pragma once
#include <ATen/core/TensorBody.h>
#include <memory>
#include <vector>
namespace torch {
namespace data {
template <typename Data = at::Tensor, typename Target = at::Tensor>
struct Example {
  Data data;
  Target target;
};
template <typename Batch> class Iterator {
public:
  Batch &operator*();
  Iterator &operator++();
  bool operator!=(const Iterator &Other) const;
};
template <typename Batch = Example<>> class StatelessDataLoader {
public:
  Iterator<Batch> begin();
  Iterator<Batch> end();
};
inline std::unique_ptr<StatelessDataLoader<>> make_data_loader();
} // namespace data
} // namespace torch

#include <torch/data/datasets.h>
