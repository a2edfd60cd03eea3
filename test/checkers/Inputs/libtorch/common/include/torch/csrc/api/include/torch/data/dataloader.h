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
template <typename Batch = Example<>> class StatelessDataLoader {
public:
  typename std::vector<Batch>::iterator begin();
  typename std::vector<Batch>::iterator end();
};
inline std::unique_ptr<StatelessDataLoader<>> make_data_loader();
} // namespace data
} // namespace torch
