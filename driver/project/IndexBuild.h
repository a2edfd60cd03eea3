//===--- IndexBuild.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// The project index of a build directory (checks/utils/ProjectIndex.h): its
// place in the cache directory, and its refresh. Each file of the
// compilation database has its facts stored beside the index with the
// stamps of the files they were read from and its compile command; a
// refresh re-indexes (one light pass each, in parallel children, through
// the result cache and the PCH) only the files whose facts are stale, then
// merges all facts again.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_PROJECT_INDEXBUILD_H
#define LIBTORCH_TIDY_DRIVER_PROJECT_INDEXBUILD_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace torchtidy {

struct IndexOptions {
  std::string Self;     ///< this program, run as the index child
  std::string BuildDir; ///< the -p directory
  std::string CacheDir;
  unsigned Jobs = 0; ///< 0: all cores
  /// Passed to every index child: the cache options.
  std::vector<std::string> CacheArgs;
  /// Passed to every index child, and part of what decides its facts: the
  /// command line's --extra-arg and --extra-arg-before.
  std::vector<std::string> ExtraArgs;
  bool Explain = false; ///< say on stderr what was re-indexed
};

struct IndexRefresh {
  std::string Path;        ///< the index file
  unsigned Files = 0;      ///< files in the index
  unsigned Reindexed = 0;  ///< files whose facts were stale
  std::vector<std::string> Failed; ///< files whose facts could not be made
  double Seconds = 0;
  bool Changed = false; ///< the index file's content changed
};

/// Where the index of \p BuildDir lives in \p CacheDir.
std::string indexPathFor(llvm::StringRef CacheDir, llvm::StringRef BuildDir);

/// Builds the index of the files of \p O.BuildDir's compilation database,
/// or refreshes it: only stale facts are made again. \p Provided: facts
/// already made (by the analysis of a whole-project run), by source file.
llvm::Expected<IndexRefresh>
refreshIndex(const IndexOptions &O,
             const llvm::StringMap<std::string> &Provided = {});

/// Makes sure an index exists before a whole-project run's analysis reads
/// it: the previous one, else one of the facts stored and still fresh, the
/// project's CUDA selection at least \p SelectsCuda (what a scan of the
/// sources found). Returns its path.
llvm::Expected<std::string> ensureIndex(const IndexOptions &O,
                                        bool SelectsCuda);


} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_PROJECT_INDEXBUILD_H
