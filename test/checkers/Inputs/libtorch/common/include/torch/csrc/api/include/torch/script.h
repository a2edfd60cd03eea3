#pragma once
#include <torch/torch.h>
#include <string>
#include <vector>

namespace c10 {
struct IValue {
  IValue(at::Tensor T);
  at::Tensor toTensor() const;
};
} // namespace c10

namespace torch {
namespace jit {
struct Module {
  void eval();
  void train(bool on = true);
  c10::IValue forward(std::vector<c10::IValue> inputs);
};
Module load(const std::string &filename);
namespace script {
using Module = ::torch::jit::Module;
} // namespace script
} // namespace jit
} // namespace torch
