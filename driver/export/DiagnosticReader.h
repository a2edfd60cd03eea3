//===--- DiagnosticReader.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// The one reader of the diagnostics clang-tidy exports (--export-fixes YAML)
// for the findings JSON, the SARIF log and the result cache, with the text of
// the files they point into and the one translation of byte offsets into
// lines and columns.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_EXPORT_DIAGNOSTICREADER_H
#define LIBTORCH_TIDY_DRIVER_EXPORT_DIAGNOSTICREADER_H

#include "clang/Tooling/Core/Diagnostic.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace torchtidy {

/// Where a byte offset is in a text: a 1-based line, and a 1-based column
/// counted two ways: in bytes (as clang reports columns, and the findings
/// JSON) and in UTF-16 code units (SARIF's utf16CodeUnits columnKind).
struct TextPosition {
  unsigned Line = 1;
  unsigned ByteColumn = 1;
  unsigned Utf16Column = 1;
};

/// The position of \p Offset (clamped to the text) in \p Text, UTF-8.
TextPosition positionOf(llvm::StringRef Text, size_t Offset);

/// The offset where the line holding \p Offset starts.
size_t lineStartOf(llvm::StringRef Text, size_t Offset);

/// The offset where the line holding \p Offset ends: its newline, or the
/// end of the text.
size_t lineEndOf(llvm::StringRef Text, size_t Offset);

/// The diagnostics in \p Yaml, clang-tidy's exported fixes.
llvm::Expected<std::vector<clang::tooling::Diagnostic>>
parseDiagnostics(llvm::StringRef Yaml);

/// The diagnostics clang-tidy exported to the file \p FixesYaml; none when
/// it is absent (clang-tidy writes it only when there are some).
llvm::Expected<std::vector<clang::tooling::Diagnostic>>
readDiagnostics(llvm::StringRef FixesYaml);

/// Whether \p D is a finding of one of the torch checks (of the table).
bool isTorchFinding(const clang::tooling::Diagnostic &D);

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

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_EXPORT_DIAGNOSTICREADER_H
