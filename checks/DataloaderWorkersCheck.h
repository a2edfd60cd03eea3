//===--- DataloaderWorkersCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_DATALOADERWORKERSCHECK_H
#define LIBTORCH_TIDY_CHECKS_DATALOADERWORKERSCHECK_H

#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>

namespace clang::tidy::torch {

namespace dataloader {
/// The first expensive operation found in a data set's per-sample code.
struct ExpensiveOp {
  /// "file or stream I/O", "an OpenCV call", ...
  std::string What;
  SourceLocation Where;
  /// The function it is in ("get", "apply", a lambda).
  std::string In;
  /// When the project index found it in another file: "file:line" and the
  /// function it is in there; Where is then the declaration this file sees.
  std::string Elsewhere, ElsewhereIn;
  /// Tensor operations of several functions (a data set and its transforms)
  /// summed: Where is the first of them.
  bool Summed = false;
};

/// What the body of \p Def itself does per call, the functions it calls
/// left out (the project index adds them through its call graph): its first
/// expensive operation (Ops 0), or else its first tensor operation and how
/// many there are. Nothing when it does neither.
struct OwnWork {
  ExpensiveOp First;
  unsigned TensorOps = 0;
};
std::optional<OwnWork> ownWork(const FunctionDecl *Def, ASTContext &Ctx);
} // namespace dataloader

/// Finds torch::data::make_data_loader calls that leave `workers` at 0
/// while the data set's get() (or get_batch(), or a transform mapped over
/// it) does real work per sample: file or stream I/O, decoding, OpenCV,
/// string parsing, loops, more than a few tensor operations. Adds
/// `.workers(N)` to the options.
///
/// For the user-facing documentation see docs/checks/dataloader-workers.md.
class DataloaderWorkersCheck : public TorchCheck {
public:
  DataloaderWorkersCheck(StringRef Name, ClangTidyContext *Context);
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Reported.clear(); }

private:
  const unsigned DefaultWorkers;
  llvm::DenseSet<SourceLocation> Reported;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_DATALOADERWORKERSCHECK_H
