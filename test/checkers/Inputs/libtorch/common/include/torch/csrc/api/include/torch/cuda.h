#pragma once
#include <cstdint>
namespace torch {
namespace cuda {
bool is_available();
void synchronize(int64_t device_index = -1);
size_t device_count();
} // namespace cuda
} // namespace torch
