// RUN: %check_torch_tidy %s torch-host-sync-in-loop %t -- -- -std=c++17

// Found by scripts/fuzz.sh (torch-tidy-fuzzer: SEGV in dtypeFor): the
// accumulate-on-device fix-it read item<T>()'s template argument as a type.
// A LibTorch look-alike whose item() takes a value (`item<5>()`) or an empty
// pack (`item<>()`) crashed both hosts; now it is reported without a fix-it.
namespace at {
struct Tensor {
  template <long N> float item() const;
  template <typename... T> float item() const;
  Tensor cuda() const;
};
} // namespace at

void valueArgument(at::Tensor t) {
  float total = 0;
  for (int i = 0; i < 3; ++i) {
    total += t.cuda().item<123456789>();
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  (void)total;
}

void emptyPack(at::Tensor t) {
  float total = 0;
  for (int i = 0; i < 3; ++i) {
    total += t.cuda().item<>();
    // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'item()' synchronizes the host with the device per iteration of the loop; accumulate on the device and read the value once after the loop [torch-host-sync-in-loop]
  }
  (void)total;
}
