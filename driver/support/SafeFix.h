//===--- SafeFix.h - libtorch-tidy ------------------------------*- C++ -*-===//
//
// --fix that never hurts the code. clang-tidy computes the fixed text as it
// always does (conflicts, cleanup, -format-style, -fix-errors, -fix-notes),
// but its one write, clang::Rewriter::overwriteChangedFiles, is wrapped at
// link time (driver/CMakeLists.txt) and lands in writeFixedFile: a file that
// is read-only or that changed on disk since the analysis started is
// reported in one line and left alone; any other is replaced atomically,
// keeping its mode.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_SAFEFIX_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_SAFEFIX_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace torchtidy {

struct CommandLine;

/// The exit code of a --fix run that left a file alone.
constexpr int FixNotAppliedExitCode = 3;

/// Notes when the analysis starts and, when \p CL asks for fixes, the text
/// of its source files, to tell later whether a file changed meanwhile.
void beginFixes(const CommandLine &CL);

/// \p RC, clang-tidy's exit code, or FixNotAppliedExitCode when a file was
/// left alone.
int fixExitCode(int RC);

/// Whether the file \p Path changed since beginFixes (its status, or its
/// text for a source file of the command line); false outside --fix.
bool changedDuringFixRun(llvm::StringRef Path);

/// Writes \p Text, the fixed \p Base, to \p Path unless the file is
/// read-only, is not \p Base any more, or changed since beginFixes; the
/// error says why not. The file is replaced atomically (support/AtomicWrite).
llvm::Error writeFixedFile(llvm::StringRef Path, llvm::StringRef Base,
                           llvm::StringRef Text);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_SAFEFIX_H
