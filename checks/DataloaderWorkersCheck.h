//===--- DataloaderWorkersCheck.h - libtorch-tidy ---------------*- C++ -*-===//

#ifndef LIBTORCH_TIDY_CHECKS_DATALOADERWORKERSCHECK_H
#define LIBTORCH_TIDY_CHECKS_DATALOADERWORKERSCHECK_H

#include "utils/TorchCheck.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>

namespace clang::tidy::torch {

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
