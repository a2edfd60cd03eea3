// The data set: points whose class is the coordinate with the largest value.
#pragma once
#include <torch/torch.h>

class PointSet : public torch::data::datasets::Dataset<PointSet> {
public:
  PointSet(int64_t Size, int64_t Width, int64_t Classes, torch::Device Device);
  torch::data::Example<> get(size_t Index) override;
  torch::optional<size_t> size() const override;

private:
  torch::Tensor Points, Labels;
};
