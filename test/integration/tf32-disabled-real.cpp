// torch-tf32-disabled on the real LibTorch headers (Debian's 1.13), through
// both hosts, on torch-cudnn-benchmark's input (cudnn-benchmark-real.cpp, the
// CHECK lines of suffix TF32); the runner compiles the fixed file against the
// same headers.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy --check-suffix=TF32 %S/cudnn-benchmark-real.cpp torch-tf32-disabled %t -- -- %torch_real
// A second model converted to half precision for inference: the FP32 model
// that trains still gets the advice.
// RUN: %check_torch_tidy --check-suffix=TF32 %S/cudnn-benchmark-real.cpp torch-tf32-disabled %t.other -- -- %torch_real -DOTHER_MODEL_HALF
// The matmul precision set: silent.
// RUN: %check_torch_tidy --drop-checks=. %S/cudnn-benchmark-real.cpp torch-tf32-disabled %t -- -- %torch_real -DTF32
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-tf32-disabled' --header-filter='.*' --system-headers %S/cudnn-benchmark-real.cpp -- %torch_real | FileCheck --allow-empty %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:
