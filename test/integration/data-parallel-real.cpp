// torch-data-parallel on the real LibTorch headers (Debian's 1.13), through
// both hosts, on the mock test's input (checkers/data-parallel.cpp): the same
// findings. torch/nn/parallel/data_parallel.h needs CUDA headers that a
// CPU-only LibTorch and this machine lack; where they are missing, the input
// declares data_parallel() with the header's own signature instead when
// REAL_LIBTORCH is defined (see there). The input's own
// #include <torch/torch.h> adds nothing to the precompiled one of %torch_real
// (the same #pragma once file).
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %S/../checkers/data-parallel.cpp torch-data-parallel %t -- -- %torch_real -DREAL_LIBTORCH
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-data-parallel' --header-filter='.*' --system-headers %S/../checkers/data-parallel.cpp -- %torch_real -DREAL_LIBTORCH | FileCheck %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:
