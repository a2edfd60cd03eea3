//===--- AtomicWrite.h - libtorch-tidy --------------------------*- C++ -*-===//
//
// Files that are never seen half-written: the text goes to a temporary file
// in the same directory, reaches the disk, and is renamed over the target,
// so that readers, a crash or a kill see the old file or the new one.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_ATOMICWRITE_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_ATOMICWRITE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <sys/stat.h>

namespace torchtidy {

/// Writes \p Text to a temporary file next to \p Output and renames it over
/// \p Output (made or replaced): the exports, the cache's entries.
llvm::Error writeFileAtomically(llvm::StringRef Output, llvm::StringRef Text);

/// Replaces the existing file \p Path (a symbolic link: its target) by
/// \p Text in one rename, keeping its mode and, when allowed, its owner:
/// the user's sources that --fix rewrites.
llvm::Error replaceFileAtomically(llvm::StringRef Path, llvm::StringRef Text);

/// replaceFileAtomically for \p Path, the real path of a file whose status
/// was \p Old when it was checked: nothing is renamed when the file no
/// longer has that status (something else wrote it meanwhile).
llvm::Error replaceFileIfUnchanged(llvm::StringRef Path, llvm::StringRef Text,
                                   const struct stat &Old);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_ATOMICWRITE_H
