#pragma once
#include <ATen/core/TensorBody.h>
#include <torch/version.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch {
namespace serialize {
class InputArchive;
} // namespace serialize
namespace nn {
template <typename Contained> class ModuleHolder;

class Module {
public:
  virtual ~Module() = default;
#if TORCH_VERSION_MAJOR >= 2
  virtual void zero_grad(bool set_to_none = true);
#else
  virtual void zero_grad(bool set_to_none = false);
#endif
  std::vector<at::Tensor> parameters(bool recurse = true) const;
  void train(bool on = true);
  void eval();
  // Half precision and devices (torch-tensor-core-alignment).
  virtual void to(at::Device device, at::ScalarType dtype,
                  bool non_blocking = false);
  virtual void to(at::ScalarType dtype, bool non_blocking = false);
  virtual void to(at::Device device, bool non_blocking = false);
  template <typename ModuleType>
  std::shared_ptr<ModuleType>
  register_module(std::string Name, std::shared_ptr<ModuleType> Module);
  template <typename ModuleType>
  std::shared_ptr<ModuleType>
  register_module(std::string Name, ModuleHolder<ModuleType> Holder);
  void load(serialize::InputArchive &Archive);
  at::Tensor &register_buffer(std::string Name, at::Tensor Tensor);
};

} // namespace nn
} // namespace torch

#include <torch/nn/pimpl.h>

namespace torch {
namespace nn {
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features);
  LinearOptions &bias(bool Bias);
};

class LinearImpl : public Module {
public:
  LinearImpl(int64_t In, int64_t Out);
  explicit LinearImpl(const LinearOptions &Options);
  at::Tensor forward(const at::Tensor &Input);
};
TORCH_MODULE(Linear);

// Internal code that clears gradients: checks never report here.
inline void resetModule(Module &M) { M.zero_grad(false); }
} // namespace nn
} // namespace torch
