//===--- LibTorchVersion.h - libtorch-tidy ----------------------*- C++ -*-===//
//
// Which LibTorch version a translation unit is built against.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHVERSION_H
#define LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHVERSION_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace clang {
class Preprocessor;
} // namespace clang

namespace clang::tidy::torch::utils {

struct TorchVersion {
  unsigned Major = 0;
  unsigned Minor = 0;

  bool atLeast(unsigned Maj, unsigned Min) const {
    return Major > Maj || (Major == Maj && Minor >= Min);
  }
  std::string str() const;
};

/// Parses "1.13", "2" or "2.1.0"; std::nullopt for anything else.
std::optional<TorchVersion> parseTorchVersion(llvm::StringRef Text);

/// Reads TORCH_VERSION_MAJOR/MINOR as defined at this point of the
/// preprocessor (the end of the translation unit when checks run).
std::optional<TorchVersion> readTorchVersion(const Preprocessor &PP);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHVERSION_H
