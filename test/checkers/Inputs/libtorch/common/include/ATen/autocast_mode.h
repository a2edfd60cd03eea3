#pragma once
// Autocast (ATen/autocast_mode.h): 1.13's CUDA switch, and 2.4's
// device-generic one.
#include <c10/core/TensorOptions.h>
#include <torch/version.h>

namespace at {
namespace autocast {
bool is_enabled();
void set_enabled(bool Enabled);
void set_autocast_gpu_dtype(ScalarType Dtype);
#if TORCH_VERSION_MAJOR >= 2
bool is_autocast_enabled(DeviceType Type);
void set_autocast_enabled(DeviceType Type, bool Enabled);
#endif
} // namespace autocast
} // namespace at
