#pragma once
#include <ATen/core/TensorBody.h>
#include <torch/version.h>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torch {
namespace nn {
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
  template <typename ModuleType>
  std::shared_ptr<ModuleType>
  register_module(std::string Name, std::shared_ptr<ModuleType> Module);
};

template <typename Contained> class ModuleHolder {
public:
  ModuleHolder() : impl_(std::make_shared<Contained>()) {}
  template <typename... Args>
  explicit ModuleHolder(Args &&...As)
      : impl_(std::make_shared<Contained>(As...)) {}
  Contained *operator->() { return impl_.get(); }
  const Contained *operator->() const { return impl_.get(); }
  Contained &operator*() { return *impl_; }
  std::shared_ptr<Contained> ptr() const { return impl_; }

protected:
  std::shared_ptr<Contained> impl_;
};

class LinearImpl : public Module {
public:
  LinearImpl(int64_t In, int64_t Out);
  at::Tensor forward(const at::Tensor &Input);
};
class Linear : public ModuleHolder<LinearImpl> {
public:
  using ModuleHolder<LinearImpl>::ModuleHolder;
};

// Internal code that clears gradients: checks never report here.
inline void resetModule(Module &M) { M.zero_grad(false); }
} // namespace nn
} // namespace torch
