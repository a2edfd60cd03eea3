// RUN: %check_torch_tidy %s torch-blocking-host-to-device-copy %t -- -- %torch_mock_2

#include <torch/torch.h>

using torch::Tensor;

Tensor step(const Tensor &Data, const Tensor &Target);

// A method that copies per step: reported where the loop calls it.
struct Uploader {
  Tensor upload(float *Buf) const {
    return torch::from_blob(Buf, {64}).to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: blocking copy of host data to the device in every call of 'upload', called in a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE+6]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    return torch::from_blob(Buf, {64}).pin_memory().to(torch::kCUDA, /*non_blocking=*/true);{{$}}
  }
};

void positiveCopyInMethod(const Uploader &U, const std::vector<float *> &Bufs) {
  for (float *B : Bufs)
    step(U.upload(B), U.upload(B));
}

// A constructor's member initializer runs once per object: the object's
// set-up, silent where the object is made once.
struct Staged {
  explicit Staged(float *Buf) : Data(torch::from_blob(Buf, {64}).cuda()) {}
  Tensor Data;
};

int main() {
  float Buf[64] = {};
  Staged S(Buf);
  step(S.Data, S.Data);
  return 0;
}

// ... and where nothing here makes one.
struct NeverMade {
  explicit NeverMade(float *Buf) : Data(torch::from_blob(Buf, {64}).cuda()) {}
  Tensor Data;
};

// The same initializer of an object made in every iteration of a loop runs
// per step.
struct Frame {
  explicit Frame(float *Buf) : Pixels(torch::from_blob(Buf, {64}).cuda()) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:67: warning: blocking copy of host data to the device in every call of 'Frame', called in a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
  // CHECK-MESSAGES: :[[@LINE+6]]:3: note: the loop that repeats it
  // CHECK-FIXES: {{^}}  explicit Frame(float *Buf) : Pixels(torch::from_blob(Buf, {64}).pin_memory().to(torch::kCUDA, /*non_blocking=*/true)) {}{{$}}
  Tensor Pixels;
};

void positiveObjectMadeInLoop(const std::vector<float *> &Bufs) {
  for (float *B : Bufs) {
    Frame F(B);
    step(F.Pixels, F.Pixels);
  }
}

// The name of the function is printed as written, '%' and all: it is an
// argument of the message, never part of its format.
struct Batcher {
  Tensor operator%(float *Buf) const {
    return torch::from_blob(Buf, {64}).to(torch::kCUDA);
    // CHECK-MESSAGES: :[[@LINE-1]]:40: warning: blocking copy of host data to the device in every call of 'operator%', called in a loop; pin the source and copy with non_blocking=true so the copy overlaps with the computation [torch-blocking-host-to-device-copy]
    // CHECK-MESSAGES: :[[@LINE+6]]:3: note: the loop that repeats it
    // CHECK-FIXES: {{^}}    return torch::from_blob(Buf, {64}).pin_memory().to(torch::kCUDA, /*non_blocking=*/true);{{$}}
  }
};

void positiveOperatorName(const Batcher &B, const std::vector<float *> &Bufs) {
  for (float *P : Bufs)
    step(B % P, B % P);
}
