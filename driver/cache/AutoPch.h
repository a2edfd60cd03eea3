//===--- AutoPch.h - libtorch-tidy ------------------------------*- C++ -*-===//
//
// Parsing torch.h is nearly all of an analysis. When a file starts with
// `#include <...>` lines that bring in LibTorch, those lines are precompiled
// once per compile command and the analysis includes the PCH instead: the
// headers' include guards then skip the file's own copies of the lines.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CACHE_AUTOPCH_H
#define LIBTORCH_TIDY_DRIVER_CACHE_AUTOPCH_H

#include "cache/AnalysisCache.h"
#include "cache/CompileArgs.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

/// The compile command clang-tidy will use for \p Source with \p Args, in
/// its directory; an error saying why when there is none.
struct SourceCommand {
  std::string Directory;
  std::vector<std::string> CommandLine;
};
llvm::Expected<SourceCommand> compileCommandFor(const CompileArgs &Args,
                                                llvm::StringRef Source);

/// The leading `#include <...>` lines of a file up to and including the
/// first that names a LibTorch header (comments, blank lines and #pragma
/// once may come between them); empty when none does first.
std::string leadingLibTorchIncludes(llvm::StringRef Code);

/// A file's text, or std::nullopt when it cannot be read.
using FileReader =
    llvm::function_ref<std::optional<std::string>(llvm::StringRef Path)>;
std::optional<std::string> readFromDisk(llvm::StringRef Path);

/// The `#include <...>` lines that \p Source's translation unit starts with,
/// up to and including the first LibTorch header, through the quoted
/// project headers (found beside their includer or in \p Cmd's -iquote and
/// -I folders) that hold only includes, include guards and comments before
/// it; empty when something else comes first.
std::string libTorchPrefixOf(const SourceCommand &Cmd, llvm::StringRef Source,
                             FileReader Read);

/// Whether `#include "Name"` (`<Name>` when \p Angled) in a file of
/// \p IncluderDir finds a file with \p Cmd's flags, by clang's own header
/// search; an error when the search cannot run.
llvm::Expected<bool> includeIsFound(const SourceCommand &Cmd,
                                    llvm::StringRef Source,
                                    llvm::StringRef IncluderDir,
                                    llvm::StringRef Name, bool Angled);

struct PchUse {
  std::string Path;             // the precompiled header
  std::string Prefix;           // the include lines it holds
  std::vector<Dependency> Deps; // the headers precompiled in it
  bool Built = false;           // built by this run
  bool Busy = false;            // another run is building it (PchBusy::Skip)
  double Seconds = 0;           // the time building it took
};

/// What to do when another run is building the PCH: wait for it, or leave
/// it to that run (a whole-project run's first phase).
enum class PchBusy { Wait, Skip };

/// The precompiled header of \p Source's leading LibTorch includes for
/// \p Cmd, under \p CacheDir: reused while none of its headers changed,
/// built otherwise, by one run at a time. An error saying why when the
/// flags or the file do not allow one, or when it does not compile.
llvm::Expected<PchUse> prepareAutoPch(const SourceCommand &Cmd,
                                      llvm::StringRef Source,
                                      llvm::StringRef CacheDir,
                                      PchBusy IfBusy = PchBusy::Wait);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CACHE_AUTOPCH_H
