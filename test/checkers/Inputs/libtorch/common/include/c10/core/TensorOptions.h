#pragma once
#include <cstdint>

namespace c10 {
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
enum class ScalarType : int8_t { Float, Long };
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kLong = ScalarType::Long;

struct Device {
  Device(DeviceType Type, int8_t Index = -1) : Type(Type), Index(Index) {}
  DeviceType Type;
  int8_t Index;
};

struct TensorOptions {
  TensorOptions() {}
  TensorOptions(Device) {}
  TensorOptions(DeviceType) {}
  TensorOptions(ScalarType) {}
  TensorOptions device(Device) const { return *this; }
  TensorOptions requires_grad(bool = true) const { return *this; }
};
} // namespace c10
