//===--- MergeExports.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// A whole-project run (-p with no source file) analyzes each file in a child
// process with its own --export-findings and --export-sarif file; these
// merge them, in file order, into the one export the user asked for.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_EXPORT_MERGEEXPORTS_H
#define LIBTORCH_TIDY_DRIVER_EXPORT_MERGEEXPORTS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace torchtidy {

/// Writes to \p Output, atomically, one findings document with the findings
/// of \p Documents (the children's findings JSON, "" for a child that wrote
/// none), in their order. A document that does not parse adds nothing.
llvm::Error mergeFindings(llvm::ArrayRef<std::string> Documents,
                          llvm::StringRef Output);

/// Writes to \p Output, atomically, the first SARIF log of \p Logs with the
/// results of the others' first runs appended, in their order; an error
/// when none of them is a SARIF log.
llvm::Error mergeSarif(llvm::ArrayRef<std::string> Logs,
                       llvm::StringRef Output);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_EXPORT_MERGEEXPORTS_H
