#pragma once
// Assertion macros: unlike assert(), they are never compiled out.
namespace c10 {
namespace detail {
[[noreturn]] void torchCheckFail(const char *Message);
} // namespace detail
} // namespace c10
#define TORCH_CHECK(cond, ...)                                                 \
  if (!(cond))                                                                 \
  ::c10::detail::torchCheckFail(#cond)
#define AT_ASSERT(...)                                                         \
  do {                                                                         \
    if (!(__VA_ARGS__))                                                        \
      ::c10::detail::torchCheckFail(#__VA_ARGS__);                             \
  } while (false)
