//===--- AtomicWrite.h - libtorch-tidy-verify -------------------*- C++ -*-===//
//
// Writing a report file so that it is never seen half-written.
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

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_ATOMICWRITE_H
