#pragma once
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace torch {
namespace nn {
template <typename Contained> class ModuleHolder;
} // namespace nn
namespace detail {
template <typename T, typename C> struct is_module_holder_of {
  static constexpr bool value =
      std::is_base_of<nn::ModuleHolder<C>, std::decay_t<T>>::value;
};
} // namespace detail

namespace nn {
template <typename Contained> class ModuleHolder {
protected:
  std::shared_ptr<Contained> impl_;

public:
  using ContainedType = Contained;

  ModuleHolder() : impl_(std::make_shared<Contained>()) {}
  /* implicit */ ModuleHolder(std::nullptr_t) : impl_(nullptr) {}
  template <typename Head, typename... Tail,
            typename = typename std::enable_if<
                !(torch::detail::is_module_holder_of<Head,
                                                     ContainedType>::value &&
                  (sizeof...(Tail) == 0))>::type>
  explicit ModuleHolder(Head &&H, Tail &&...T)
      : impl_(new Contained(std::forward<Head>(H), std::forward<Tail>(T)...)) {
  }
  /* implicit */ ModuleHolder(std::shared_ptr<Contained> Module)
      : impl_(std::move(Module)) {}

  explicit operator bool() const noexcept { return impl_ != nullptr; }
  Contained *operator->() { return impl_.get(); }
  const Contained *operator->() const { return impl_.get(); }
  Contained &operator*() { return *impl_; }
  const std::shared_ptr<Contained> &ptr() const { return impl_; }
  Contained *get() { return impl_.get(); }

  // C defers the lookup of forward() to the call, as LibTorch's
  // return_type_of_forward_t does: not every module has one.
  template <typename... Args, typename C = Contained>
  auto operator()(Args &&...As)
      -> decltype(std::declval<C &>().forward(std::forward<Args>(As)...)) {
    return impl_->forward(std::forward<Args>(As)...);
  }
};
} // namespace nn
} // namespace torch

#define TORCH_MODULE_IMPL(Name, ImplType)                                      \
  class Name : public torch::nn::ModuleHolder<ImplType> { /* NOLINT */         \
  public:                                                                      \
    using torch::nn::ModuleHolder<ImplType>::ModuleHolder;                     \
    using Impl = ImplType;                                                     \
  }

#define TORCH_MODULE(Name) TORCH_MODULE_IMPL(Name, Name##Impl)
