#pragma once
#include <torch/torch.h>
#include <string>

namespace torch {
namespace jit {
struct Module {
  void eval();
};
Module load(const std::string &filename);
} // namespace jit
} // namespace torch
