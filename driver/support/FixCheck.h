//===--- FixCheck.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// The safety net of the fix-its: before a run's fixes are written (--fix) or
// exported (--export-fixes, --export-findings, --export-sarif), the
// translation unit they change is parsed again in memory, with its own
// compile command (and the automatic PCH), the fixed texts mapped over the
// files on disk. When it no longer compiles, the fixes that break it are
// found, finding by finding (bisecting over them), and dropped: each gets a
// note naming the compiler's first error, is not applied, and is exported
// marked unsafe. The rest are applied as clang-tidy applies them.
//
// Only a file that compiled before is judged: with compiler errors in the
// analysis, nothing is checked. --no-fix-check turns the net off.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_FIXCHECK_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_FIXCHECK_H

#include "cache/CompileArgs.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

/// The start of the note on a finding whose fix-it would break the build;
/// the compiler's first error follows. The exports read it to mark the fix
/// unsafe.
inline constexpr llvm::StringLiteral UnsafeFixNote =
    "unsafe fix-it, not applied: the fixed code does not compile: ";

/// What the safety net needs to parse the analyzed files again.
struct FixCheckOptions {
  CompileArgs Compile;
  /// The translation units of the run (as named on the command line).
  std::vector<std::string> Sources;
  /// Where the automatic PCH is kept; "" for none.
  std::string CacheDir;
  bool Pch = true;
};

/// A fix that breaks the build: the index of its diagnostic and the
/// compiler's first error with the fix applied.
struct UnsafeFix {
  size_t Index = 0;
  std::string Error;
};

/// The fixes to drop among \p Count, so that the others compile together.
/// \p FirstError(Set) applies the fixes of Set (indices, in order) to the
/// files as they were, which compile, and returns the compiler's first
/// error, or nothing. One call when all compile; for each fix dropped,
/// about log2(Count) + 1 more.
std::vector<UnsafeFix> findBreakingFixes(
    size_t Count,
    llvm::function_ref<std::optional<std::string>(llvm::ArrayRef<size_t>)>
        FirstError);

/// The fixes among \p Diags that break the build of one of \p O.Sources:
/// each diagnostic's own fix, or with \p FixNotes the one clang-tidy picks
/// from its notes. \p StyleOf gives the clang-format style clang-tidy
/// formats a file's fixes with. Nothing when a diagnostic is a compiler
/// error (the code did not compile before); an error when the files cannot
/// be parsed at all (no compile command).
llvm::Expected<std::vector<UnsafeFix>>
findUnsafeFixes(llvm::ArrayRef<const clang::tooling::Diagnostic *> Diags,
                bool FixNotes, const FixCheckOptions &O,
                llvm::function_ref<std::string(llvm::StringRef)> StyleOf);

/// Adds the unsafe note to \p D, at its own location; its fix stays.
void markUnsafe(clang::tooling::Diagnostic &D, llvm::StringRef Error);

/// The compiler error of \p D's unsafe note, when it has one.
std::optional<std::string> unsafeFixError(const clang::tooling::Diagnostic &D);

/// Test-only fault injection: with $LIBTORCH_TIDY_INJECT_BROKEN_FIX set to a
/// check name (CHECK, or CHECK:N for its N-th finding), the fixes of that
/// check's findings get an undeclared name added, so that the net has
/// something to catch. False when unset.
bool injectBrokenFixes(llvm::MutableArrayRef<clang::tooling::Diagnostic> Diags);

/// The export path: checks the fixes in clang-tidy's exported diagnostics
/// \p FixesYaml (computed against the files as they are now) and rewrites
/// the file with the unsafe ones marked. An error when the file cannot be
/// read or written back.
llvm::Error markUnsafeFixesInExport(llvm::StringRef FixesYaml,
                                    const FixCheckOptions &O);

/// The --fix path: the options clang-tidy's fix application (wrapped in
/// the driver) checks with, or none when the net is off.
void setFixCheck(std::optional<FixCheckOptions> O);
const std::optional<FixCheckOptions> &fixCheck();

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_FIXCHECK_H
