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
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

/// The compile command clang-tidy will use for \p Source with these
/// arguments (-p, --extra-arg, --extra-arg-before, flags after "--"), in
/// its directory; std::nullopt with \p Why when there is none.
struct SourceCommand {
  std::string Directory;
  std::vector<std::string> CommandLine;
};
std::optional<SourceCommand>
compileCommandFor(const std::vector<std::string> &Args, llvm::StringRef Source,
                  std::string &Why);

/// The leading `#include <...>` lines of a file (comments, blank lines and
/// #pragma once may come between them) when one names a LibTorch header;
/// empty otherwise.
std::string leadingLibTorchIncludes(llvm::StringRef Code);

/// Whether `#include "Name"` (`<Name>` when \p Angled) in a file of
/// \p IncluderDir finds a file with \p Cmd's flags, by clang's own header
/// search; std::nullopt when that cannot be told.
std::optional<bool> includeIsFound(const SourceCommand &Cmd,
                                   llvm::StringRef Source,
                                   llvm::StringRef IncluderDir,
                                   llvm::StringRef Name, bool Angled);

struct PchUse {
  std::string Path;             // the precompiled header
  std::vector<Dependency> Deps; // the headers precompiled in it
  bool Built = false;           // built by this run
  double Seconds = 0;           // the time building it took
};

/// The precompiled header of \p Source's leading LibTorch includes for
/// \p Cmd, under \p CacheDir: reused while none of its headers changed,
/// built otherwise. std::nullopt with \p Why when the flags or the file do
/// not allow one, or when it does not compile.
std::optional<PchUse> prepareAutoPch(const SourceCommand &Cmd,
                                     llvm::StringRef Source,
                                     llvm::StringRef CacheDir,
                                     std::string &Why);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CACHE_AUTOPCH_H
