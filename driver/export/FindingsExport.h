//===--- FindingsExport.h - libtorch-tidy -----------------------*- C++ -*-===//
//
// `--export-findings=FILE`: the torch-* findings of a run as versioned JSON,
// the input of the runtime verifier. Built from the diagnostics clang-tidy
// exports (message, location, fix-its), with the flagged code before and after
// its fix-its. The format is documented in docs/findings-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_EXPORT_FINDINGSEXPORT_H
#define LIBTORCH_TIDY_DRIVER_EXPORT_FINDINGSEXPORT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <string>

namespace torchtidy {

constexpr int FindingsFormatVersion = 1;

/// Reads the clang-tidy fixes file \p FixesYaml (which may not exist: no
/// diagnostics) and writes the findings to \p Output, atomically. \p
/// Originals: the sources as they were before --fix changed them (absolute
/// path -> text); other files are read from disk.
llvm::Error exportFindings(llvm::StringRef FixesYaml, llvm::StringRef Output,
                           const llvm::StringMap<std::string> &Originals = {});

/// The findings document (format, version) holding \p Findings.
llvm::json::Object findingsDocument(llvm::json::Array Findings);

/// Writes the findings document of \p Findings to \p Output, atomically.
llvm::Error writeFindings(llvm::StringRef Output, llvm::json::Array Findings);

/// \p V as the exports write JSON (indented by two), atomically.
llvm::Error writeJsonAtomically(llvm::StringRef Output, llvm::json::Value V);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_EXPORT_FINDINGSEXPORT_H
