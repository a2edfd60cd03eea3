//===--- AtomicWrite.h - libtorch-tidy-verify -------------------*- C++ -*-===//
//
// Writing a report file, or replacing a source file a fix-it edits, so
// that it is never seen half-written.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_ATOMICWRITE_H
#define LIBTORCH_TIDY_VERIFY_ATOMICWRITE_H

#include "ErrorOr.h"

#include <optional>
#include <string>

namespace torchtidy {

/// Writes \p Text to \p Path through a new file next to it, renamed over
/// \p Path, so \p Path is never half-written. On failure removes the
/// temporary file and returns one line: "cannot write 'PATH': <strerror>".
std::optional<Failure> writeFileAtomically(const std::string &Path,
                                           const std::string &Text);

/// Replaces the existing file \p Path (a symbolic link: its target) by
/// \p Text in one rename, keeping its mode: a source file a fix-it edits,
/// as the driver's replaceFileAtomically does. The same one-line errors.
std::optional<Failure> replaceFileAtomically(const std::string &Path,
                                             const std::string &Text);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_ATOMICWRITE_H
