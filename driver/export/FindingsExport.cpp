//===--- FindingsExport.cpp - libtorch-tidy -------------------------------===//

#include "export/FindingsExport.h"
#include "export/DiagnosticReader.h"
#include "support/AtomicWrite.h"
#include "support/FixCheck.h"
#include "utils/FindingPayload.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace clang;

namespace torchtidy {
namespace utils = clang::tidy::torch::utils;

namespace {

/// The start of the line holding \p Offset, and the end of the line holding
/// \p End (after its newline).
std::pair<unsigned, unsigned> wholeLines(llvm::StringRef Text, unsigned Offset,
                                         unsigned End) {
  size_t Stop = lineEndOf(Text, End);
  if (Stop < Text.size())
    ++Stop;
  return {static_cast<unsigned>(lineStartOf(Text, Offset)),
          static_cast<unsigned>(Stop)};
}

bool sameFile(llvm::StringRef A, llvm::StringRef B) {
  if (A == B)
    return true;
  llvm::SmallString<256> RA, RB;
  return !llvm::sys::fs::real_path(A, RA) && !llvm::sys::fs::real_path(B, RB) &&
         RA == RB;
}

llvm::json::Array
pairs(const std::vector<std::pair<std::string, std::string>> &Items,
      llvm::StringRef First, llvm::StringRef Second) {
  llvm::json::Array Out;
  for (const auto &[A, B] : Items)
    Out.push_back(llvm::json::Object{{First.str(), A}, {Second.str(), B}});
  return Out;
}

llvm::json::Array strings(const std::vector<std::string> &Items) {
  llvm::json::Array Out;
  for (const std::string &S : Items)
    Out.push_back(S);
  return Out;
}

/// The "code" object: the lines around the unit before and after the fix,
/// and what the AST said about the unit when the check recorded it.
llvm::json::Object codeObject(const utils::FindingPayload *P,
                              unsigned FirstLine, std::string Before,
                              std::string After) {
  llvm::json::Object Code{{"unit", P ? P->Unit : std::string("lines")},
                          {"first_line", FirstLine},
                          {"before", std::move(Before)},
                          {"after", std::move(After)}};
  if (!P)
    return Code;
  Code["free_variables"] = pairs(P->FreeVariables, "name", "type");
  Code["shapes"] = strings(P->Shapes);
  Code["dtypes"] = strings(P->Dtypes);
  Code["devices"] = strings(P->Devices);
  Code["trip_count"] = P->TripCount ? llvm::json::Value(*P->TripCount)
                                    : llvm::json::Value(nullptr);
  Code["constructions"] = pairs(P->Constructions, "name", "code");
  Code["declarations"] = pairs(P->Declarations, "name", "type");
  return Code;
}

/// The fix-its of a finding as JSON, and the replacements among them that
/// edit the finding's own file.
struct FixIts {
  llvm::json::Array Json;
  tooling::Replacements SameFile;
};

FixIts fixItsOf(const tooling::DiagnosticMessage &M) {
  FixIts F;
  for (const auto &[Path, Replacements] : M.Fix)
    for (const tooling::Replacement &R : Replacements) {
      F.Json.push_back(
          llvm::json::Object{{"file", R.getFilePath().str()},
                             {"offset", R.getOffset()},
                             {"length", R.getLength()},
                             {"replacement", R.getReplacementText().str()}});
      if (R.getFilePath() == M.FilePath)
        llvm::consumeError(F.SameFile.add(R));
    }
  return F;
}

/// The AST payload of a finding, when its check recorded one.
const utils::FindingPayload *payloadOf(const tooling::Diagnostic &D) {
  const tooling::DiagnosticMessage &M = D.Message;
  for (const utils::FindingPayload &P : utils::recordedPayloads())
    if (P.Check == D.DiagnosticName && P.Offset == M.FileOffset &&
        sameFile(P.File, M.FilePath))
      return &P;
  return nullptr;
}

/// The bytes [First, Last) that the finding, its same-file fix-its and its
/// payload's unit touch.
std::pair<unsigned, unsigned> touchedRange(const tooling::DiagnosticMessage &M,
                                           const tooling::Replacements &Fixes,
                                           const utils::FindingPayload *P,
                                           llvm::StringRef Text) {
  unsigned First = M.FileOffset, Last = M.FileOffset;
  for (const tooling::Replacement &R : Fixes) {
    First = std::min(First, R.getOffset());
    Last = std::max(Last, R.getOffset() + R.getLength());
  }
  if (P && P->UnitEnd > P->UnitBegin) {
    First = std::min(First, P->UnitBegin);
    Last = std::max(Last, P->UnitEnd);
  }
  // An insertion at the start of a line belongs to the line before.
  if (Last > First && Last <= Text.size() && Text[Last - 1] == '\n')
    --Last;
  return {First, Last};
}

/// \p Before, the lines starting at \p Begin, after the fix-its: the
/// replacements shifted to the snippet's start and applied there.
std::string afterFixes(llvm::StringRef Before, unsigned Begin,
                       const tooling::Replacements &Fixes) {
  tooling::Replacements Shifted;
  for (const tooling::Replacement &R : Fixes)
    llvm::consumeError(Shifted.add(
        tooling::Replacement("snippet", R.getOffset() - Begin, R.getLength(),
                             R.getReplacementText())));
  auto After = tooling::applyAllReplacements(Before, Shifted);
  if (After)
    return *After;
  llvm::consumeError(After.takeError());
  return Before.str();
}

const char *levelName(tooling::Diagnostic::Level L) {
  switch (L) {
  case tooling::Diagnostic::Remark:
    return "remark";
  case tooling::Diagnostic::Error:
    return "error";
  default:
    return "warning";
  }
}

llvm::json::Object findingOf(const tooling::Diagnostic &D,
                             llvm::StringRef Text) {
  const tooling::DiagnosticMessage &M = D.Message;
  TextPosition At = positionOf(Text, M.FileOffset);
  FixIts Fixes = fixItsOf(M);
  const utils::FindingPayload *Payload = payloadOf(D);
  auto [First, Last] = touchedRange(M, Fixes.SameFile, Payload, Text);
  auto [Begin, End] = wholeLines(Text, First, Last);
  llvm::StringRef Before = Text.slice(Begin, End);
  llvm::json::Object Finding{
      {"check", D.DiagnosticName},
      {"level", levelName(D.DiagLevel)},
      {"file", M.FilePath},
      {"line", At.Line},
      {"column", At.ByteColumn},
      {"offset", M.FileOffset},
      {"message", M.Message},
      {"fixits", std::move(Fixes.Json)},
      {"code", codeObject(Payload, positionOf(Text, Begin).Line, Before.str(),
                          afterFixes(Before, Begin, Fixes.SameFile))},
  };
  // A fix-it that would not compile stays, marked with the compiler's error.
  if (std::optional<std::string> Error = unsafeFixError(D))
    Finding["unsafe_fix"] = std::move(*Error);
  return Finding;
}

} // namespace

llvm::Error exportFindings(llvm::StringRef FixesYaml, llvm::StringRef Output,
                           const llvm::StringMap<std::string> &Originals) {
  llvm::Expected<std::vector<tooling::Diagnostic>> Diagnostics =
      readDiagnostics(FixesYaml);
  if (!Diagnostics)
    return Diagnostics.takeError();
  SourceTexts Texts(Originals);
  llvm::json::Array Findings;
  for (const tooling::Diagnostic &D : *Diagnostics)
    if (isTorchFinding(D))
      Findings.push_back(findingOf(D, Texts.get(D.Message.FilePath)));
  return writeFindings(Output, std::move(Findings));
}

llvm::json::Object findingsDocument(llvm::json::Array Findings) {
  return llvm::json::Object{
      {"format", "libtorch-tidy-findings"},
      {"version", FindingsFormatVersion},
      {"findings", std::move(Findings)},
  };
}

llvm::Error writeJsonAtomically(llvm::StringRef Output, llvm::json::Value V) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", std::move(V)) << "\n";
  return writeFileAtomically(Output, OS.str());
}

llvm::Error writeFindings(llvm::StringRef Output, llvm::json::Array Findings) {
  return writeJsonAtomically(Output, findingsDocument(std::move(Findings)));
}

} // namespace torchtidy
