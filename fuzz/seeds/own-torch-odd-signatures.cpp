// A translation unit that declares its own LibTorch look-alike, with
// signatures the real headers never have: non-type template arguments,
// variadic and parameterless members, defaults that are not bools.
namespace c10 { enum class DeviceType { CPU, CUDA }; }
namespace at {
using c10::DeviceType;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kCPU = DeviceType::CPU;
struct TensorBase {};
struct Tensor : TensorBase {
  template <int N> int item() const;
  template <typename... T> Tensor to(T...) const;
  Tensor cuda(int = 0) const;
  Tensor cpu(...) const;
  Tensor &grad();
  Tensor &mutable_grad();
  Tensor &zero_(int = 1);
  void reset();
  void backward(int = 0) const;
  bool equal(...) const;
  void *data_ptr() const;
  Tensor pin_memory() const;
};
Tensor randn(...);
}
namespace torch {
using namespace at;
namespace optim {
struct Optimizer {
  void zero_grad(int = 0);
  void zero_grad(bool, bool);
  template <bool B = false> void step();
};
struct SGD : Optimizer {};
}
namespace nn {
struct Module {
  void zero_grad(bool set_to_none = 0);
  template <typename T> void zero_grad(T);
};
template <typename Contained> struct ModuleHolder {
  Contained *operator->();
};
struct Conv2dImpl : Module {};
struct Conv2d : ModuleHolder<Conv2dImpl> {};
template <int D> struct ConvOptions { ConvOptions &bias(...); };
}
namespace cuda { void synchronize(int = 0); }
}

void odd(torch::optim::SGD &opt, torch::nn::Module &m, at::Tensor t) {
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    opt.zero_grad(false, false);
    m.zero_grad();
    m.zero_grad(0.0);
    float f = 0;
    f += t.item<1>();
    t.to(torch::kCUDA, 1, 2, 3);
    t.cuda();
    t.cpu(1, 2);
    t.grad().zero_();
    t.mutable_grad().zero_(0);
    torch::cuda::synchronize();
    (void)t.equal();
    *(int *)t.data_ptr();
    opt.step<true>();
  }
}
