//===--- TorchCheck.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// The base of the torch checks.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_UTILS_TORCHCHECK_H
#define LIBTORCH_TIDY_UTILS_TORCHCHECK_H

#include "clang-tidy/ClangTidyCheck.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::torch {

/// Keeps the compiler going after a fatal error, as clangd does: a header
/// that is missing on this machine (OpenCV, a project header outside the
/// include path) would otherwise end the parse there, and no torch check
/// would see the rest of the file. Only inline setters of the host's
/// DiagnosticsEngine are used, so the plugin still links nothing.
class TorchCheck : public ClangTidyCheck {
public:
  using ClangTidyCheck::ClangTidyCheck;
  void registerPPCallbacks(const SourceManager &, Preprocessor *PP,
                           Preprocessor *) override {
    PP->getDiagnostics().setFatalsAsError(true);
    // Errors that follow from the missing declarations must not hit the
    // error limit, which would stop the parse again.
    PP->getDiagnostics().setErrorLimit(0);
  }
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_UTILS_TORCHCHECK_H
