#pragma once

namespace at {
class Context {
public:
  bool deterministicAlgorithms() const;
  bool deterministicAlgorithmsWarnOnly() const;
  void setDeterministicAlgorithms(bool, bool);
  bool benchmarkCuDNN() const;
  void setBenchmarkCuDNN(bool);
};
Context &globalContext();
} // namespace at
