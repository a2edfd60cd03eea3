//===--- SourceText.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// The source text of written code, for fix-its and messages.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_SOURCETEXT_H
#define LIBTORCH_TIDY_CHECKS_UTILS_SOURCETEXT_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include <string>

namespace clang {
class LangOptions;
} // namespace clang

namespace clang::tidy::torch::utils {

/// The source text of the tokens in \p R.
std::string sourceText(SourceRange R, const SourceManager &SM,
                       const LangOptions &LangOpts);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_SOURCETEXT_H
