//===--- Operators.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Kinds of overloaded operators the checks tell apart.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_OPERATORS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_OPERATORS_H

#include "clang/Basic/OperatorKinds.h"

namespace clang::tidy::torch::utils {

/// `<`, `>`, `<=`, `>=`, `==`, `!=`.
bool isComparisonOperator(OverloadedOperatorKind Op);
/// `+`, `-`, `*`, `/`.
bool isArithmeticOperator(OverloadedOperatorKind Op);
/// `&`, `|`, `^`, `~`, `!`.
bool isBitwiseOrLogicalOperator(OverloadedOperatorKind Op);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_OPERATORS_H
