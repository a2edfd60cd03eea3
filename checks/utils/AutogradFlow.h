//===--- AutogradFlow.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// Where a tensor a forward pass made can go: whether its graph can ever reach
// autograd (backward(), torch::autograd::grad, an optimizer, a caller), or
// whether the host only reads it (prints, sizes, item(), data_ptr(), a file
// written with torch::save, detach()) or an op with integer results ends
// its graph (argmax(), multinomial()). Followed through tensor operations
// and local variables, in one function.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_AUTOGRADFLOW_H
#define LIBTORCH_TIDY_CHECKS_UTILS_AUTOGRADFLOW_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::torch::utils {

/// What onlyHostReads learns on the way.
struct HostReadFacts {
  /// A use detaches the value: it may go on as a constant (a DQN's target).
  bool Detached = false;
  /// The largest expression around the value, along it, that still carries
  /// its graph: the initializer of the local that holds it, the value
  /// assigned to one, or what a host read, a detach() or an op with integer
  /// results takes.
  const Expr *Reach = nullptr;
};

/// Whether every use of the tensor \p E computes (followed through tensor
/// operations, LibTorch's functions and local variables) ends on the host
/// without a graph: printed, its sizes or values read, written to a file,
/// detached, or turned into integers (a sampled token, an argmax). False when
/// any use could reach autograd (a backward(), a function of the project's or
/// another library's, a return, a store outside the function's locals) or when
/// the value is never used.
/// \p Facts, when given, gets what the walk learnt where it returns true.
bool onlyHostReads(const Expr *E, ASTContext &Ctx,
                   HostReadFacts *Facts = nullptr);

/// Whether the host reads only the shape of \p E's value (sizes(), size(d),
/// numel(), dim()), as onlyHostReads follows it, and prints none of it: a
/// forward run to learn a size. A printed shape is a demonstration's.
bool onlyShapeReads(const Expr *E, ASTContext &Ctx);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_AUTOGRADFLOW_H
