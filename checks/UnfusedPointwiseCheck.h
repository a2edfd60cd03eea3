//===--- UnfusedPointwiseCheck.h - libtorch-tidy ----------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_UNFUSEDPOINTWISECHECK_H
#define LIBTORCH_TIDY_CHECKS_UNFUSEDPOINTWISECHECK_H

#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseMap.h"

namespace clang::tidy::torch {

/// Finds hand-written formulas of tensors that ATen computes in one fused
/// kernel (SiLU, GELU, softplus, softmax, log-softmax, log-sigmoid, rsqrt,
/// log1p, expm1, hypot, Mish, the 2-norm, lerp, addcmul, addcdiv) and
/// replaces them with the fused op.
///
/// For the user-facing documentation see docs/checks/unfused-pointwise.md.
class UnfusedPointwiseCheck : public TorchCheck {
public:
  UnfusedPointwiseCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Formulas.clear(); }

private:
  /// Which expressions are formulas, for the whole translation unit.
  llvm::DenseMap<const Expr *, bool> Formulas;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_UNFUSEDPOINTWISECHECK_H
