//===--- TensorCoreAlignmentCheck.h - libtorch-tidy -------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_TENSORCOREALIGNMENTCHECK_H
#define LIBTORCH_TIDY_CHECKS_TENSORCOREALIGNMENTCHECK_H

#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace clang::tidy::torch {

/// Finds Linear features and Conv channels that are not multiples of 8 in a
/// program that runs its model in half precision (or bfloat16, or under
/// autocast) on a device that can be CUDA: tensor cores then pad or fall
/// back to slower kernels.
///
/// For the user-facing documentation see docs/checks/tensor-core-alignment.md.
class TensorCoreAlignmentCheck : public TorchCheck {
public:
  TensorCoreAlignmentCheck(StringRef Name, ClangTidyContext *Context)
      : TorchCheck(Name, Context),
        IgnoreOutputsBelow(Options.get("IgnoreOutputsBelow", 64U)) {}
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onEndOfTranslationUnit() override;

  /// A layer construction with its size arguments.
  struct Layer {
    const Expr *Construct = nullptr;
    bool Linear = false;
    const Expr *In = nullptr, *Out = nullptr;
  };
  /// A construction of a module class the user wrote: the class and the
  /// arguments its constructor gets.
  struct ModuleUse {
    const CXXRecordDecl *Class = nullptr;
    const CXXConstructorDecl *Ctor = nullptr; ///< when known
    const Expr *Site = nullptr;
    llvm::SmallVector<const Expr *, 4> Args;
  };

private:
  void checkSize(const Layer &L, const Expr *Size, bool IsOut);
  void checkThroughUses(const Layer &L, const Expr *Size, bool IsOut,
                        const CXXConstructorDecl *Ctor);
  void report(const Layer &L, bool IsOut, int64_t Value, SourceLocation At,
              bool ThroughModule);

  const unsigned IgnoreOutputsBelow;
  ASTContext *Ctx = nullptr;
  llvm::SmallVector<Layer, 8> Layers;
  llvm::SmallVector<ModuleUse, 8> Uses;
  /// Where the program runs in half precision, and names CUDA.
  SourceLocation HalfAt, CudaAt;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_TENSORCOREALIGNMENTCHECK_H
