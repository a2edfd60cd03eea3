#pragma once
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace torch {
namespace nn {
class AnyModule {
public:
  template <typename ModuleType>
  explicit AnyModule(std::shared_ptr<ModuleType> Module);
  template <typename ModuleType>
  explicit AnyModule(const ModuleHolder<ModuleType> &Holder);
  template <typename ReturnType = at::Tensor, typename... ArgumentTypes>
  ReturnType forward(ArgumentTypes &&...Arguments);
  std::shared_ptr<Module> ptr() const;
};

class NamedAnyModule {
public:
  template <typename ModuleType>
  NamedAnyModule(std::string name, std::shared_ptr<ModuleType> module_ptr);
  template <typename M>
  NamedAnyModule(std::string name, const ModuleHolder<M> &module_holder);
  NamedAnyModule(std::string name, AnyModule any_module);
};

class SequentialImpl : public Module {
public:
  SequentialImpl() = default;
  template <typename... Modules> explicit SequentialImpl(Modules &&...modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }
  explicit SequentialImpl(std::initializer_list<NamedAnyModule> named_modules);

  template <typename ModuleType>
  void push_back(std::shared_ptr<ModuleType> module_ptr);
  template <typename ModuleType>
  void push_back(std::string name, std::shared_ptr<ModuleType> module_ptr);
  template <typename M> void push_back(const ModuleHolder<M> &module_holder);
  template <typename M>
  void push_back(std::string name, const ModuleHolder<M> &module_holder);
  void push_back(AnyModule any_module);

  template <typename ReturnType = at::Tensor, typename... InputTypes>
  ReturnType forward(InputTypes &&...inputs);
  size_t size() const noexcept;
};

class Sequential : public ModuleHolder<SequentialImpl> {
public:
  using ModuleHolder<SequentialImpl>::ModuleHolder;
  Sequential() : ModuleHolder() {}
  Sequential(std::initializer_list<NamedAnyModule> named_modules)
      : ModuleHolder(std::make_shared<SequentialImpl>(named_modules)) {}
};
} // namespace nn
} // namespace torch
