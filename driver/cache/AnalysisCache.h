//===--- AnalysisCache.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// Re-runs that cost next to nothing: the analysis of one file runs in a child
// process whose output, exit code and fixes are stored under a key made of
// the command line, the compile command and the configuration, together with
// every file the parse read. A later run with the same key replays them when
// none of those files changed, and the LibTorch headers at the top of a file
// come from a precompiled header built once for its compile flags.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CACHE_ANALYSISCACHE_H
#define LIBTORCH_TIDY_DRIVER_CACHE_ANALYSISCACHE_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace torchtidy {

/// A file a result depends on, as it was when the result was stored.
struct Dependency {
  std::string Path;
  uint64_t Size = 0;
  int64_t MTime = 0; // nanoseconds
  uint64_t Hash = 0; // of the content
};

/// Reads \p Path's size, time and content hash; false when it is unreadable.
bool describeDependency(llvm::StringRef Path, Dependency &D);

/// Whether \p D is unchanged: same size and time, or else the same content.
/// \p Changed names it otherwise.
bool isUnchanged(const Dependency &D);

/// The files a header-include list names (clang's -header-include-file, one
/// path per line), described; false when one of them cannot be read.
bool readHeaderList(llvm::StringRef ListFile, std::vector<Dependency> &Deps);

std::string serializeDependencies(const std::vector<Dependency> &Deps);
bool parseDependencies(llvm::StringRef Text, std::vector<Dependency> &Deps);

/// $LIBTORCH_TIDY_CACHE_DIR, else $XDG_CACHE_HOME/libtorch-tidy, else
/// ~/.cache/libtorch-tidy.
std::string defaultCacheDir();

struct CacheOptions {
  std::string Self;              // this program, run again as the child
  std::vector<std::string> Args; // clang-tidy's arguments, argv[0] excluded
  std::string Source;            // the one source file, as given
  std::string FixesFile;         // the --export-fixes file named in Args
  std::string Dir;               // the cache root
  bool Payloads = false;         // --export-findings: payloads in the notes
  bool Cache = true;             // replay and store results
  bool Pch = true;               // precompile the LibTorch includes
  bool Explain = false;          // say on stderr what the cache did
  uint64_t MaxBytes = 0;         // trim the cache to this size; 0: no limit
  /// The command line sets --use-color itself.
  bool UserSetColor = false;
};

/// Analyzes one file in a child process, or replays its stored run, and
/// returns clang-tidy's exit code.
int runCachedAnalysis(const CacheOptions &O);

/// The hidden first argument that makes the driver a plain clang-tidy run.
inline constexpr llvm::StringLiteral ChildFlag = "--libtorch-tidy-child";

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CACHE_ANALYSISCACHE_H
