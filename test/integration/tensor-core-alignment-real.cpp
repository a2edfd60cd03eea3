// torch-tensor-core-alignment on the real LibTorch headers (Debian's 1.13),
// through both hosts, on the mock test's input (checkers/tensor-core-alignment.cpp,
// which uses only what the real headers declare): the same findings; no
// fix-its. The input's own #include <torch/torch.h> adds nothing to the
// precompiled one of %torch_real (the same #pragma once file).
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %S/../checkers/tensor-core-alignment.cpp torch-tensor-core-alignment %t -- -- %torch_real
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-tensor-core-alignment' --header-filter='.*' --system-headers %S/../checkers/tensor-core-alignment.cpp -- %torch_real | FileCheck %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:
