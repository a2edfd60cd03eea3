//===--- IndexUse.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// How a run meets the project index (project/IndexBuild.h): --update-index
// builds or refreshes it; a single-file run with -p reads its build
// directory's index when one exists, after re-indexing the files that
// changed; the index child runs the facts collector alone; the checks get
// the index through the global option TorchProjectIndex.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CLI_INDEXUSE_H
#define LIBTORCH_TIDY_DRIVER_CLI_INDEXUSE_H

#include "cli/CommandLine.h"
#include "project/IndexBuild.h"
#include <string>
#include <vector>

namespace torchtidy {

/// The index options of a run: its cache, its -p directory, the extra
/// compiler arguments of its command line (they change the facts).
IndexOptions indexOptions(const CommandLine &CL, llvm::StringRef Self,
                          llvm::StringRef CacheDir, uint64_t CacheMaxBytes);

/// clang-tidy's arguments for the index child: the command line's without
/// its checks and outputs, with the facts collector alone.
std::vector<std::string> factsChildArgs(const CommandLine &CL);

/// The --config argument that gives the checks the index at \p IndexPath
/// (TorchProjectIndex); the checks read the project's CUDA fact from it.
std::string indexConfigArg(llvm::StringRef IndexPath);

/// The index a single-file run reads: --project-index's, else the build
/// directory's once refreshed, else "" (no index yet, or a command line
/// with its own --config: said on stderr).
std::string indexForFiles(const CommandLine &CL, const IndexOptions &O);

/// --update-index: exit code 0, or 2 when the index cannot be built or a
/// file's facts could not be made.
int runUpdateIndex(const IndexOptions &O);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CLI_INDEXUSE_H
