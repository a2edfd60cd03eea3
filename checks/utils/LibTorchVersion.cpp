//===--- LibTorchVersion.cpp - libtorch-tidy ------------------------------===//

#include "LibTorchVersion.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"

namespace clang::tidy::torch::utils {

std::string TorchVersion::str() const {
  return std::to_string(Major) + "." + std::to_string(Minor);
}

std::optional<TorchVersion> parseTorchVersion(llvm::StringRef Text) {
  Text = Text.trim();
  llvm::StringRef MajorText, Rest;
  std::tie(MajorText, Rest) = Text.split('.');
  TorchVersion V;
  if (MajorText.getAsInteger(10, V.Major))
    return std::nullopt;
  if (Rest.empty())
    return V;
  llvm::StringRef MinorText = Rest.split('.').first;
  if (MinorText.getAsInteger(10, V.Minor))
    return std::nullopt;
  return V;
}

// The value of an object-like macro whose body is one integer literal.
static std::optional<unsigned> readIntegerMacro(const Preprocessor &PP,
                                                llvm::StringRef Name) {
  const IdentifierInfo *II = PP.getIdentifierInfo(Name);
  if (!II)
    return std::nullopt;
  const MacroInfo *MI = PP.getMacroInfo(II);
  if (!MI || MI->isFunctionLike() || MI->getNumTokens() != 1)
    return std::nullopt;
  const Token &Tok = MI->getReplacementToken(0);
  if (!Tok.is(tok::numeric_constant))
    return std::nullopt;
  unsigned Value;
  if (PP.getSpelling(Tok).empty() ||
      llvm::StringRef(PP.getSpelling(Tok)).getAsInteger(10, Value))
    return std::nullopt;
  return Value;
}

std::optional<TorchVersion> readTorchVersion(const Preprocessor &PP) {
  std::optional<unsigned> Major = readIntegerMacro(PP, "TORCH_VERSION_MAJOR");
  if (!Major)
    return std::nullopt;
  TorchVersion V;
  V.Major = *Major;
  V.Minor = readIntegerMacro(PP, "TORCH_VERSION_MINOR").value_or(0);
  return V;
}

} // namespace clang::tidy::torch::utils
