//===--- TempFiles.h - a run's private temporary directory -----*- C++ -*-===//
//
// Every temporary file of a libtorch-tidy run lives in one directory,
// $TMPDIR/libtorch-tidy.<pid>-<random>, made on first use. It is removed at
// exit; on SIGINT, SIGTERM or SIGHUP its files are (the empty directory
// stays); whatever a killed run left is removed by the next run once that
// pid is gone.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_TEMPFILES_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_TEMPFILES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <system_error>

namespace torchtidy {

/// Creates PREFIX-<random>.SUFFIX (or no dot when SUFFIX is empty) in the
/// run's directory. With FD, the file is left open there; otherwise closed.
std::error_code createRunTempFile(llvm::StringRef Prefix,
                                  llvm::StringRef Suffix,
                                  llvm::SmallVectorImpl<char> &Path,
                                  int *FD = nullptr);

/// Creates a directory PREFIX-<random> in the run's directory.
std::error_code createRunTempDirectory(llvm::StringRef Prefix,
                                       llvm::SmallVectorImpl<char> &Path);

/// Removes the run directories of libtorch-tidy processes that are gone;
/// returns how many. Called once, when the run's own directory is made.
unsigned removeStaleRunDirectories();

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_TEMPFILES_H
