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

#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <string>
#include <vector>

namespace torchtidy {

constexpr int FindingsFormatVersion = 1;

/// Writes \p Text to a temporary file next to \p Output and renames it over
/// \p Output, so it is never half-written. Returns an error text, or "".
std::string writeFileAtomically(llvm::StringRef Output, llvm::StringRef Text);

/// The diagnostics clang-tidy exported to \p FixesYaml, none when it is
/// absent (clang-tidy writes it only when there are some). Returns an error
/// text, or "".
std::string readDiagnostics(llvm::StringRef FixesYaml,
                            std::vector<clang::tooling::Diagnostic> &Out);

/// The text of the files that diagnostics point into: the originals kept
/// before --fix changed them (absolute path -> text), else the file on disk,
/// read once; "" when unreadable.
class SourceTexts {
public:
  explicit SourceTexts(const llvm::StringMap<std::string> &Originals)
      : Originals(Originals) {}
  llvm::StringRef get(const std::string &Path);

private:
  const llvm::StringMap<std::string> &Originals;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> Files;
};

/// Reads the clang-tidy fixes file \p FixesYaml (which may not exist: no
/// diagnostics) and writes the findings to \p Output, atomically. \p
/// Originals: the sources as they were before --fix changed them (absolute
/// path -> text); other files are read from disk. Returns an error message,
/// empty on success.
std::string exportFindings(llvm::StringRef FixesYaml, llvm::StringRef Output,
                           const llvm::StringMap<std::string> &Originals = {});

/// The payloads recorded in this process as JSON, for the parent of an
/// analysis child and for the result cache.
std::string serializePayloads();

/// Adds the payloads of serializePayloads() \p Text to this process's;
/// false when the text is malformed.
bool loadPayloads(llvm::StringRef Text);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_EXPORT_FINDINGSEXPORT_H
