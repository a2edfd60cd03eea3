#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

namespace c10 {
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
enum class ScalarType : int8_t {
  Float,
  Double,
  Int,
  Long,
  Bool,
  Byte,
  Half,
  BFloat16
};
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

} // namespace c10

namespace caffe2 {
// The dtype of a tensor as Tensor::dtype() returns it.
class TypeMeta {
public:
  c10::ScalarType toScalarType() const;
};
} // namespace caffe2

namespace c10 {
struct Device {
  /* implicit */ Device(DeviceType Type, int8_t Index = -1)
      : Type(Type), Index(Index) {}
  /* implicit */ Device(const std::string &DeviceString);
  bool is_cuda() const { return Type == DeviceType::CUDA; }
  bool is_cpu() const { return Type == DeviceType::CPU; }
  DeviceType type() const { return Type; }
  bool operator==(const Device &Other) const { return Type == Other.Type; }
  bool operator!=(const Device &Other) const { return Type != Other.Type; }
  DeviceType Type;
  int8_t Index;
};

struct TensorOptions {
  TensorOptions() {}
  /* implicit */ TensorOptions(Device) {}
  template <typename... Args,
            typename = std::enable_if_t<
                std::is_constructible<Device, Args &&...>::value>>
  /* implicit */ TensorOptions(Args &&...As) : TensorOptions(Device(As...)) {}
  /* implicit */ TensorOptions(ScalarType) {}
  /* implicit */ TensorOptions(caffe2::TypeMeta) {}
  template <typename... Args> TensorOptions device(Args &&...As) const {
    return *this;
  }
  Device device() const;
  TensorOptions dtype(ScalarType) const { return *this; }
  TensorOptions requires_grad(bool = true) const { return *this; }
};

inline TensorOptions device(Device D) { return TensorOptions().device(D); }
inline TensorOptions dtype(ScalarType T) { return TensorOptions().dtype(T); }

class Scalar {
public:
  float toFloat() const;
  double toDouble() const;
  int toInt() const;
  int64_t toLong() const;
};
} // namespace c10
