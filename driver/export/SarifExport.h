//===--- SarifExport.h - libtorch-tidy --------------------------*- C++ -*-===//
//
// `--export-sarif=FILE`: the torch-* findings of a run as a SARIF 2.1.0 log,
// for GitHub code scanning and other SARIF viewers. Built, like the findings
// export, from the diagnostics clang-tidy exports with --export-fixes.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_EXPORT_SARIFEXPORT_H
#define LIBTORCH_TIDY_DRIVER_EXPORT_SARIFEXPORT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace torchtidy {

/// Reads the clang-tidy fixes file \p FixesYaml (which may not exist: no
/// diagnostics) and writes the SARIF log to \p Output, atomically. With a
/// non-empty \p Root, files under it get URIs relative to %SRCROOT%; others
/// get absolute file:// URIs. Offsets are resolved in \p Originals (absolute
/// path to contents: the files as they were before --fix rewrote them), else
/// in the files on disk.
llvm::Error exportSarif(llvm::StringRef FixesYaml, llvm::StringRef Output,
                        llvm::StringRef Root,
                        const llvm::StringMap<std::string> &Originals);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_EXPORT_SARIFEXPORT_H
