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

#include "cache/CompileArgs.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
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

/// \p Path's size, time and content hash; an error when it is not a
/// readable regular file.
llvm::Expected<Dependency> describeDependency(llvm::StringRef Path);

/// Whether \p D is unchanged: same size and time, or else the same content.
/// A file that changed or is gone is a normal answer (false), not an error.
bool isUnchanged(const Dependency &D);

/// The paths a header-include list names (clang's -header-include-file, one
/// path per line, indented with dots), in order.
std::vector<llvm::StringRef> headerListPaths(llvm::StringRef Text);

/// Appends to \p Deps the files a header-include list names (clang's
/// -header-include-file, one path per line) that it does not hold yet,
/// described; an error when the list or one of them cannot be read.
llvm::Error readHeaderList(llvm::StringRef ListFile,
                           std::vector<Dependency> &Deps);

/// One line per dependency: "dep SIZE MTIME HASH PATH".
std::string serializeDependencies(const std::vector<Dependency> &Deps);
/// The dependencies of serializeDependencies' text; an error when it is
/// malformed.
llvm::Expected<std::vector<Dependency>>
parseDependencies(llvm::StringRef Text);

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
  /// The file's facts for the project index are written here, or "".
  std::string FactsFile;
  /// The index child (--index-facts): the facts collector alone, the facts
  /// its only output.
  bool FactsOnly = false;
  /// The project index the checks read, or "": a stored result is replayed
  /// only while the index gives the answers the run's checks got.
  std::string IndexPath;
  bool Cache = true;             // replay and store results
  bool Pch = true;               // precompile the LibTorch includes
  bool Explain = false;          // say on stderr what the cache did
  uint64_t MaxBytes = 0;         // trim the cache to this size; 0: no limit
  /// The command line sets --use-color itself.
  bool UserSetColor = false;
  /// What decides the file's compile command, from the command line.
  CompileArgs Compile;
  /// The --config-file files of the command line.
  std::vector<std::string> ConfigFiles;
};

struct SourceCommand;

/// The key of a stored result: everything besides the files read that
/// decides a run's output (this program, the command line, the compile
/// command \p Cmd when there is one, the configuration files clang-tidy may
/// read, the include path variables), as a hex SHA-256.
std::string resultKey(const CacheOptions &O, const SourceCommand *Cmd);

/// clang-tidy's arguments \p Args with the facts collector enabled next to
/// the checks they name.
std::vector<std::string> withFactsCollector(std::vector<std::string> Args);

/// Only the automatic PCH of O.Source: found or built (left to another run
/// that is building it), without analysis. Prints one line on stdout:
/// "built PATH SECONDS", "reused PATH", "busy PATH" or "none WHY"; returns 0.
int preparePchOnly(const CacheOptions &O);

/// Analyzes one file in a child process, or replays its stored run, and
/// returns clang-tidy's exit code.
int runCachedAnalysis(const CacheOptions &O);

/// The hidden first argument that makes the driver a plain clang-tidy run.
inline constexpr llvm::StringLiteral ChildFlag = "--libtorch-tidy-child";

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CACHE_ANALYSISCACHE_H
