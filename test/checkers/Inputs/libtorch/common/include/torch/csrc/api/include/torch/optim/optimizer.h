#pragma once
#include <ATen/core/TensorBody.h>
#include <torch/version.h>
#include <vector>

namespace torch {
namespace optim {
class OptimizerParamGroup {
public:
  std::vector<at::Tensor> &params();
  const std::vector<at::Tensor> &params() const;
};

class Optimizer {
public:
  virtual ~Optimizer() = default;
#if TORCH_VERSION_MAJOR >= 2
  void zero_grad(bool set_to_none = true);
#else
  void zero_grad();
#endif
  std::vector<OptimizerParamGroup> &param_groups() noexcept;
  const std::vector<OptimizerParamGroup> &param_groups() const noexcept;
  virtual at::Tensor step();
};

struct SGDOptions {
  SGDOptions(double LearningRate);
  SGDOptions &momentum(double M);
};

class SGD : public Optimizer {
public:
  SGD(std::vector<at::Tensor> Params, SGDOptions Options);
  at::Tensor step() override;
};

struct AdamOptions {
  AdamOptions(double LearningRate = 1e-3);
};

class Adam : public Optimizer {
public:
  Adam(std::vector<at::Tensor> Params, AdamOptions Options = {});
  at::Tensor step() override;
};

// Internal code: checks never report here.
inline void resetOptimizer(Optimizer &O) { O.zero_grad(); }
} // namespace optim
} // namespace torch
