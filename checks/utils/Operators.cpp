//===--- Operators.cpp - libtorch-tidy ------------------------------------===//

#include "Operators.h"

namespace clang::tidy::torch::utils {

bool isComparisonOperator(OverloadedOperatorKind Op) {
  return Op == OO_Less || Op == OO_Greater || Op == OO_LessEqual ||
         Op == OO_GreaterEqual || Op == OO_EqualEqual || Op == OO_ExclaimEqual;
}

bool isArithmeticOperator(OverloadedOperatorKind Op) {
  return Op == OO_Plus || Op == OO_Minus || Op == OO_Star || Op == OO_Slash;
}

bool isBitwiseOrLogicalOperator(OverloadedOperatorKind Op) {
  return Op == OO_Amp || Op == OO_Pipe || Op == OO_Caret || Op == OO_Tilde ||
         Op == OO_Exclaim;
}

} // namespace clang::tidy::torch::utils
