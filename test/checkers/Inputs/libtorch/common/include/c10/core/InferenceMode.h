#pragma once

namespace c10 {
struct InferenceMode {
  InferenceMode(bool enabled = true);
  ~InferenceMode();
  static bool is_enabled();
};
} // namespace c10
