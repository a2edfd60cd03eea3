#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace torch {
template <size_t D, typename T = int64_t> class ExpandingArray {
public:
  /*implicit*/ ExpandingArray(std::initializer_list<T> List);
  /*implicit*/ ExpandingArray(T SingleSize) { Values.fill(SingleSize); }

private:
  std::array<T, D> Values;
};
} // namespace torch
