//===--- FixitApply.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Fix-its applied from a findings file rather than from an analysis: the
// replacements are clang's (tooling::Replacements, applied through
// clang::Rewriter by tooling::applyAllReplacements, as --fix applies them;
// overlapping ones are an error, never merged by hand) and every file is
// replaced atomically.
//
// Two users: the verifier's program mode, which patches its scratch copies
// with `libtorch-tidy --apply-fixits=SPEC`, and --fix-only, which applies
// to the user's files only the fixes the verifier measured to pay.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_FIXITAPPLY_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_FIXITAPPLY_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace torchtidy {

/// The option that runs runApplyFixits instead of an analysis.
constexpr llvm::StringLiteral ApplyFixitsFlag = "--apply-fixits=";

/// `libtorch-tidy --apply-fixits=SPEC`: applies the edits of SPEC
/// ({"format": "libtorch-tidy-fixits", "version": 1, "edits": [{"file",
/// "offset", "length", "replacement"}]}) to their files. Exit code 0, or 1
/// with one line on stderr (unreadable spec or file, overlapping edits).
int runApplyFixits(llvm::StringRef Spec);

/// --fix-only=MODE after --verify: applies to the user's files the fix-its
/// of the findings in \p FindingsFile whose verdict in the verifier's
/// report \p ReportFile is faster (MODE "faster") or faster or same (MODE
/// "not-slower"); never a fix whose verdict is changes-results. Prints one
/// line per fix applied or left out, with why. Files that changed since the
/// analysis started are left alone (support/SafeFix). The exit code: 0, 1
/// when the files cannot be read, FixNotAppliedExitCode when a file was
/// left alone.
int applyVerifiedFixes(llvm::StringRef FindingsFile, llvm::StringRef ReportFile,
                       llvm::StringRef Mode);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_FIXITAPPLY_H
