//===--- SourceText.cpp - libtorch-tidy -----------------------------------===//

#include "SourceText.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::torch::utils {

std::string sourceText(SourceRange R, const SourceManager &SM,
                       const LangOptions &LangOpts) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R), SM, LangOpts)
      .str();
}

} // namespace clang::tidy::torch::utils
