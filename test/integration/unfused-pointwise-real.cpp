// torch-unfused-pointwise on the real LibTorch headers (Debian's 1.13),
// through both hosts, on the mock test's input (checkers/unfused-pointwise.cpp,
// which uses only what the real headers declare: the operators take
// `const Scalar &`, sum() an IntArrayRef): the same findings and fixes; the
// runner compiles the fixed file against the same headers. The input's own
// #include <torch/torch.h> adds nothing to the precompiled one of
// %torch_real: torch.h is `#pragma once`, and the same file.
// REQUIRES: real-libtorch
// RUN: %check_torch_tidy %S/../checkers/unfused-pointwise.cpp torch-unfused-pointwise %t -- -- %torch_real
// The algebra's identities (lerp, addcmul, addcdiv, the 2-norm, Mish) too.
// RUN: %check_torch_tidy %S/../checkers/unfused-pointwise-algebra.cpp torch-unfused-pointwise %t.algebra -- -- %torch_real
// LibTorch's own headers stay silent even with every header let through.
// RUN: %driver --checks='-*,torch-unfused-pointwise' --header-filter='.*' --system-headers %S/../checkers/unfused-pointwise.cpp -- %torch_real | FileCheck %s --check-prefix=HEADERS
// HEADERS-NOT: {{include/(ATen|c10|torch)/.*}}warning:
