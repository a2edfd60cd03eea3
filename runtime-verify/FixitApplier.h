//===--- FixitApplier.h - libtorch-tidy-verify ------------------*- C++ -*-===//
//
// Fix-its applied from a findings file without LLVM: a GPU machine has
// LibTorch but no LLVM, so the verifier cannot ask `libtorch-tidy
// --apply-fixits` to patch its scratch copies. This reproduces what the
// driver's --apply-fixits does (driver/support/FixitApply.cpp: clang's
// tooling::Replacements, applied as clang's Rewriter applies them), byte for
// byte:
//   - the same edit (file, offset, length, text) twice counts once;
//   - insertions at one offset are kept in the order given, before a
//     replacement that starts there and after one that ends there;
//   - overlapping edits are an error, unless clang finds them independent
//     of their order (overlapping deletions, a deletion inside a
//     replacement): then they are merged as clang merges them;
//   - offsets and lengths count bytes (UTF-8 text is never decoded);
//   - every file is read and fixed before any is written, and each is
//     replaced atomically, keeping its mode.
// One difference, on purpose: an edit past the end of its file (the file
// changed since the analysis) is an error here; the driver drops such an
// insertion silently and crashes on such a replacement.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_FIXITAPPLIER_H
#define LIBTORCH_TIDY_VERIFY_FIXITAPPLIER_H

#include "ErrorOr.h"

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace torchtidy {

/// One replacement of a fix-it: Length bytes at Offset of File become Text.
/// Offsets are unsigned 32-bit, as clang's (and as the driver reads them).
struct FixitEdit {
  std::string File;
  unsigned Offset = 0, Length = 0;
  std::string Text;
};

/// A file's text before and after its edits.
struct FixedFile {
  std::string Base, Fixed;
};

/// \p Base after \p Edits (all of one file, in their order), or the one-line
/// reason they cannot be applied (overlap, past the end). \p File only
/// names the file in the message.
ErrorOr<std::string> applyEditsToText(const std::string &Base,
                                      const std::vector<FixitEdit> &Edits,
                                      const std::string &File = "<text>");

/// Each edited file's text before and after \p Edits, read from disk;
/// nothing is written.
ErrorOr<std::map<std::string, FixedFile>>
fixedFiles(const std::vector<FixitEdit> &Edits);

/// Applies \p Edits to their files: all are fixed in memory first, so that
/// an error leaves every file alone; each is then replaced atomically.
std::optional<Failure> applyFixits(const std::vector<FixitEdit> &Edits);

/// The edits of a spec file of the driver's --apply-fixits
/// ({"format": "libtorch-tidy-fixits", "version": 1, "edits": [{"file",
/// "offset", "length", "replacement"}]}), read as the driver reads them.
ErrorOr<std::vector<FixitEdit>> readFixitSpec(const std::string &Path);

/// `libtorch-tidy-verify --apply-fixits=SPEC`: 0, or 1 with one line on
/// \p Err, like `libtorch-tidy --apply-fixits=SPEC`.
int runApplyFixits(const std::string &Spec, std::ostream &Err);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_FIXITAPPLIER_H
