//===--- ClosedProgram.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// Whether a translation unit holds a whole program whose devices are all in
// view. A single file of a CPU-only program looks like device-generic code
// (a tensor's options() passed on, a Device parameter), so GPU-only advice
// would be given to a program that can never run on a GPU. When the unit
// defines main() and every function of the project that main() reaches is
// defined in it, nothing else can choose a device: if no code in it names
// CUDA either, the program runs on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_CLOSEDPROGRAM_H
#define LIBTORCH_TIDY_CHECKS_UTILS_CLOSEDPROGRAM_H

#include "clang/AST/ASTContext.h"

namespace clang::tidy::torch::utils {

/// True when \p Ctx defines main(), every function outside LibTorch's and
/// the system's headers that main() can reach (calls, constructors, function
/// addresses, lambdas) is defined in it, and no code of the project in it
/// names an accelerator other than CUDA (a DeviceType constant other than
/// the CPU's, a device string other than "cpu"), makes a device from a
/// run-time value (a string or a variable rather than a constant) or loads
/// serialized tensors or modules (they keep the device they were saved
/// from). Whether the code names CUDA is the caller's to add.
bool devicesClosedInUnit(ASTContext &Ctx);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_CLOSEDPROGRAM_H
