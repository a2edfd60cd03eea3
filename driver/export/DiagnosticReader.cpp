//===--- DiagnosticReader.cpp - libtorch-tidy -----------------------------===//

#include "export/DiagnosticReader.h"
#include "CheckTable.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include <algorithm>

using namespace clang;

namespace torchtidy {

size_t lineStartOf(llvm::StringRef Text, size_t Offset) {
  // StringRef::rfind looks strictly before Offset.
  size_t Newline = Text.rfind('\n', std::min(Offset, Text.size()));
  return Newline == llvm::StringRef::npos ? 0 : Newline + 1;
}

size_t lineEndOf(llvm::StringRef Text, size_t Offset) {
  return std::min(Text.find('\n', std::min(Offset, Text.size())), Text.size());
}

TextPosition positionOf(llvm::StringRef Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  size_t LineStart = lineStartOf(Text, Offset);
  TextPosition P;
  P.Line = 1 + Text.take_front(LineStart).count('\n');
  P.ByteColumn = 1 + (Offset - LineStart);
  for (size_t I = LineStart; I < Offset; ++I) {
    auto C = static_cast<unsigned char>(Text[I]);
    if ((C & 0xC0) == 0x80)
      continue; // a UTF-8 continuation byte
    // A four-byte sequence is outside the BMP: a surrogate pair.
    P.Utf16Column += C >= 0xF0 ? 2 : 1;
  }
  return P;
}

llvm::Expected<std::vector<tooling::Diagnostic>>
parseDiagnostics(llvm::StringRef Yaml) {
  tooling::TranslationUnitDiagnostics TU;
  llvm::yaml::Input YIn(Yaml);
  YIn >> TU;
  if (YIn.error())
    return llvm::createStringError(YIn.error(),
                                   "cannot parse the diagnostics: " +
                                       YIn.error().message());
  return std::move(TU.Diagnostics);
}

llvm::Expected<std::vector<tooling::Diagnostic>>
readDiagnostics(llvm::StringRef FixesYaml) {
  if (!llvm::sys::fs::exists(FixesYaml))
    return std::vector<tooling::Diagnostic>();
  auto Buffer = llvm::MemoryBuffer::getFile(FixesYaml);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(),
                                   "cannot read the diagnostics: " +
                                       Buffer.getError().message());
  return parseDiagnostics((*Buffer)->getBuffer());
}

bool isTorchFinding(const tooling::Diagnostic &D) {
  return findCheck(D.DiagnosticName) != nullptr;
}

llvm::StringRef SourceTexts::get(const std::string &Path) {
  llvm::SmallString<256> Abs(Path);
  llvm::sys::fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  if (auto It = Originals.find(Abs); It != Originals.end())
    return It->second;
  std::unique_ptr<llvm::MemoryBuffer> &Slot = Files[Path];
  if (!Slot) {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer)
      return "";
    Slot = std::move(*Buffer);
  }
  return Slot->getBuffer();
}

} // namespace torchtidy
