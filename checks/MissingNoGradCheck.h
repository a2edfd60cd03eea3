//===--- MissingNoGradCheck.h - libtorch-tidy -------------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_MISSINGNOGRADCHECK_H
#define LIBTORCH_TIDY_CHECKS_MISSINGNOGRADCHECK_H

#include "utils/RunFrequency.h"
#include "utils/TorchCheck.h"
#include "utils/TrainingCode.h"
#include "llvm/ADT/DenseSet.h"
#include <memory>

namespace clang::tidy::torch {

/// Finds forward passes of modules in evaluation code (after eval(), in a
/// loop over a test or validation loader, in a predict/evaluate-like
/// function) that run with autograd on, and inserts a NoGradGuard (or, with
/// the option Guard, an InferenceMode guard) at the start of the evaluation
/// function, loop body or block.
///
/// For the user-facing documentation see docs/checks/missing-no-grad.md.
class MissingNoGradCheck : public TorchCheck {
public:
  MissingNoGradCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override;

private:
  struct Context;
  /// Why the forward pass at \p Call is evaluation code, or false.
  bool isEvaluation(const Expr *Call, const FunctionDecl *FD, Context &C);
  /// Nothing around \p Call needs gradients: \p Region, or else, where
  /// only the host reads the call's output, a block inside it that holds
  /// the call (then C.Block).
  bool idleAround(const Expr *Call, const Stmt *Region, Context &C);
  /// A guard that turns autograd off is active at \p S: in a block around
  /// it, or around every call of its function in this translation unit.
  bool guarded(const Stmt *S, unsigned Depth);
  bool callersOnlyReadOnHost(const FunctionDecl *FD);
  /// The forward() that \p Call runs turns autograd off itself.
  bool calleeGuards(const Expr *Call);
  void report(const Expr *Call, const Context &C);
  /// The inserted guard, or std::nullopt and \p NoFix says why.
  std::optional<FixItHint> guardFix(const Expr *Call, const Context &C,
                                    const char *&NoFix);
  /// The guard in a lambda around C.Scoped, or nothing and \p NoFix says
  /// why (null when another pass's fix already wraps it).
  llvm::SmallVector<FixItHint, 2> scopedFix(const Context &C,
                                            const char *&NoFix);

  const std::string Guard;
  std::unique_ptr<utils::TrainingCode> Training;
  std::unique_ptr<utils::RunFrequency> Calls;
  llvm::DenseSet<SourceLocation> Reported;
  llvm::DenseSet<SourceLocation> Inserted;
  /// The expressions a guard in a lambda already wraps.
  llvm::DenseSet<SourceLocation> Wrapped;
  ASTContext *Ctx = nullptr;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_MISSINGNOGRADCHECK_H
