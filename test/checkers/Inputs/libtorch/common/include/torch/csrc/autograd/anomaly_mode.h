#pragma once

namespace torch {
namespace autograd {
struct AnomalyMode {
  static bool is_enabled() { return _enabled; }
  static bool should_check_nan() { return _check_nan; }
  static void set_enabled(bool enabled, bool check_nan = true) {
    _enabled = enabled;
    _check_nan = check_nan;
  }

private:
  static bool _enabled;
  static bool _check_nan;
};

class DetectAnomalyGuard {
public:
  DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();

private:
  bool prev_check_nan_;
};
} // namespace autograd
} // namespace torch
