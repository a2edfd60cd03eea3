//===--- SarifExport.cpp - libtorch-tidy ----------------------------------===//

#include "export/SarifExport.h"
#include "export/FindingsExport.h"
#include "TorchTidyModule.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>
#include <vector>

#ifndef LIBTORCH_TIDY_VERSION
#define LIBTORCH_TIDY_VERSION "unknown"
#endif

using namespace clang;
using namespace clang::tidy;

namespace torchtidy {

namespace {

/// What a SARIF rule says about a check.
struct SarifRuleText {
  std::string Name;  ///< readable, as its class: "ZeroGrad"
  std::string Short; ///< one sentence
  std::string Full;  ///< the first paragraph of its docs/checks page
};

/// The rules' texts. Every registered torch check needs an entry: the
/// driver tests fail on a rule that falls back to an empty description.
const std::map<std::string, SarifRuleText, std::less<>> &ruleTexts() {
  static const std::map<std::string, SarifRuleText, std::less<>> Texts = {
      {"torch-blocking-host-to-device-copy",
       {"BlockingHostToDeviceCopy",
        "Host-to-device copy inside a loop blocks the host.",
        "Finds copies of per-step host data to the device, inside loops, "
        "that block the host because the source is not pinned and "
        "`non_blocking` is not set, and rewrites them to a pinned, "
        "non-blocking copy."}},
      {"torch-conv-bias-before-batchnorm",
       {"ConvBiasBeforeBatchNorm",
        "Convolution bias is cancelled by the BatchNorm after it.",
        "Finds convolutions whose output goes straight into a BatchNorm "
        "while their bias is on, and builds them with `.bias(false)`."}},
      {"torch-debug-api-enabled",
       {"DebugApiEnabled", "Debugging switch left on for training.",
        "Finds debugging switches left on for training: anomaly detection, "
        "anomaly guards and profilers around the training loop, and (as a "
        "remark) deterministic algorithms."}},
      {"torch-host-sync-in-loop",
       {"HostSyncInLoop",
        "Host-device synchronization on every loop iteration.",
        "Finds calls that make the host wait for the device on every "
        "iteration of a loop, and names the better pattern; where it is "
        "provably safe, the fix-it moves the work to the device and reads the "
        "result once after the loop."}},
      {"torch-host-tensor-to-device",
       {"HostTensorToDevice",
        "Tensor made on the host, then copied to the device.",
        "Finds tensors made on the host by a factory and then copied to a "
        "device, and creates them on the device directly by passing the "
        "device in their options."}},
      {"torch-zero-grad",
       {"ZeroGrad", "Gradients zero-filled instead of reset.",
        "Finds gradient clearing that fills every gradient with zeros instead "
        "of resetting it, and rewrites it to the set-to-none form that the "
        "LibTorch version in use accepts."}},
  };
  return Texts;
}

/// A 1-based line, and a 1-based column in UTF-16 code units (the run's
/// columnKind), of a byte offset.
struct Position {
  unsigned Line = 1, Column = 1;
};

Position positionOf(llvm::StringRef Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  size_t LineStart = Text.rfind('\n', Offset);
  LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
  Position P;
  P.Line = 1 + Text.take_front(LineStart).count('\n');
  for (size_t I = LineStart; I < Offset; ++I) {
    auto C = static_cast<unsigned char>(Text[I]);
    if ((C & 0xC0) == 0x80)
      continue; // a UTF-8 continuation byte
    // A four-byte sequence is outside the BMP: a surrogate pair.
    P.Column += C >= 0xF0 ? 2 : 1;
  }
  return P;
}

llvm::json::Object region(llvm::StringRef Text, size_t Begin, size_t End) {
  Position B = positionOf(Text, Begin), E = positionOf(Text, End);
  return llvm::json::Object{{"startLine", B.Line},
                            {"startColumn", B.Column},
                            {"endLine", E.Line},
                            {"endColumn", E.Column}};
}

bool isIdentifierChar(char C) { return llvm::isAlnum(C) || C == '_'; }

/// The end of what a diagnostic at \p Offset flags: its first range that
/// starts there, else the identifier there, else the point itself.
size_t endOf(const tooling::DiagnosticMessage &M, llvm::StringRef Text) {
  for (const tooling::FileByteRange &R : M.Ranges)
    if (R.FilePath == M.FilePath && R.FileOffset == M.FileOffset &&
        R.Length > 0)
      return R.FileOffset + R.Length;
  size_t End = M.FileOffset;
  while (End < Text.size() && isIdentifierChar(Text[End]))
    ++End;
  return End;
}

std::string percentEncoded(llvm::StringRef Path) {
  std::string Out;
  for (char C : Path) {
    if (llvm::isAlnum(C) || llvm::StringRef("-._~/").contains(C))
      Out += C;
    else
      Out += "%" + llvm::utohexstr(static_cast<unsigned char>(C),
                                   /*LowerCase=*/false, /*Width=*/2);
  }
  return Out;
}

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> P(Path);
  llvm::sys::fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return P.str().str();
}

/// Where a file is, for SARIF: an artifactLocation, and the path that the
/// fingerprints hash (relative to the root when under it, so that they do
/// not depend on where the sources are checked out).
struct Artifact {
  llvm::json::Object Location;
  std::string Key;
};

Artifact artifactOf(llvm::StringRef Path, llvm::StringRef Root) {
  std::string Abs = absolutePath(Path);
  llvm::StringRef Rel(Abs);
  if (!Root.empty() && Rel.consume_front(Root) && Rel.consume_front("/"))
    return {llvm::json::Object{{"uri", percentEncoded(Rel)},
                               {"uriBaseId", "%SRCROOT%"}},
            Rel.str()};
  return {llvm::json::Object{{"uri", "file://" + percentEncoded(Abs)}}, Abs};
}

/// The line holding \p Offset with its runs of whitespace made one space and
/// trimmed: reindenting the code keeps the fingerprint.
std::string normalizedLine(llvm::StringRef Text, size_t Offset) {
  Offset = std::min(Offset, Text.size());
  size_t Begin = Text.rfind('\n', Offset);
  Begin = Begin == llvm::StringRef::npos ? 0 : Begin + 1;
  std::string Out;
  bool Space = false;
  for (char C : Text.slice(Begin, Text.find('\n', Offset))) {
    if (llvm::isSpace(C)) {
      Space = !Out.empty();
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

std::string fingerprint(llvm::StringRef Check, llvm::StringRef File,
                        llvm::StringRef Line, unsigned Occurrence) {
  llvm::SHA256 Hash;
  for (llvm::StringRef Part : {Check, File, Line}) {
    Hash.update(Part);
    Hash.update(llvm::StringRef("\0", 1));
  }
  Hash.update(std::to_string(Occurrence));
  std::array<uint8_t, 32> Digest = Hash.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(Digest).take_front(16),
                     /*LowerCase=*/true);
}

const char *levelOf(tooling::Diagnostic::Level L) {
  switch (L) {
  case tooling::Diagnostic::Error:
    return "error";
  case tooling::Diagnostic::Remark:
    return "note";
  default:
    return "warning";
  }
}

/// Every torch-* check registered in the module, sorted by name.
std::vector<std::string> registeredTorchChecks() {
  clang::tidy::torch::TorchModule Module;
  ClangTidyCheckFactories Factories;
  Module.addCheckFactories(Factories);
  std::vector<std::string> Names;
  for (const auto &Entry : Factories)
    if (Entry.getKey().starts_with("torch-"))
      Names.push_back(Entry.getKey().str());
  llvm::sort(Names);
  return Names;
}

/// The texts of \p Check; empty when the table has no entry for it.
SarifRuleText sarifRuleText(llvm::StringRef Check) {
  auto It = ruleTexts().find(Check);
  return It == ruleTexts().end() ? SarifRuleText{} : It->second;
}

/// "zero-grad" -> "ZeroGrad": the rule's readable name.
std::string camelCase(llvm::StringRef Check) {
  std::string Out;
  for (llvm::StringRef Word : llvm::split(Check, '-'))
    if (!Word.empty())
      Out += llvm::toUpper(Word.front()) + Word.drop_front().str();
  return Out;
}

llvm::json::Object ruleOf(llvm::StringRef Check) {
  SarifRuleText T = sarifRuleText(Check);
  std::string Page = "docs/checks/" + Check.drop_front(6).str() + ".md";
  return llvm::json::Object{
      {"id", Check},
      {"name", T.Name.empty() ? camelCase(Check.drop_front(6)) : T.Name},
      {"shortDescription", llvm::json::Object{{"text", T.Short}}},
      {"fullDescription", llvm::json::Object{{"text", T.Full}}},
      {"help",
       llvm::json::Object{{"text", T.Full + "\n\nDocumentation: " + Page +
                                       " in the libtorch-tidy sources."},
                          {"markdown", T.Full + "\n\nDocumentation: `" + Page +
                                           "` in the libtorch-tidy sources."}}},
      {"defaultConfiguration", llvm::json::Object{{"level", "warning"}}},
      {"properties",
       llvm::json::Object{{"tags", llvm::json::Array{"performance"}}}},
  };
}

} // namespace

std::string exportSarif(llvm::StringRef FixesYaml, llvm::StringRef Output,
                        llvm::StringRef RootDir,
                        const llvm::StringMap<std::string> &Originals) {
  std::vector<tooling::Diagnostic> Diagnostics;
  if (std::string Error = readDiagnostics(FixesYaml, Diagnostics);
      !Error.empty())
    return Error;
  llvm::erase_if(Diagnostics, [](const tooling::Diagnostic &D) {
    return !llvm::StringRef(D.DiagnosticName).starts_with("torch-");
  });
  // In file order: the occurrence counters of the fingerprints follow it.
  llvm::sort(Diagnostics, [](const tooling::Diagnostic &A,
                             const tooling::Diagnostic &B) {
    const tooling::DiagnosticMessage &MA = A.Message, &MB = B.Message;
    return std::tie(MA.FilePath, MA.FileOffset, A.DiagnosticName, MA.Message) <
           std::tie(MB.FilePath, MB.FileOffset, B.DiagnosticName, MB.Message);
  });

  std::string Root = RootDir.empty() ? "" : absolutePath(RootDir);
  while (Root.size() > 1 && Root.back() == '/')
    Root.pop_back();

  SourceTexts Texts(Originals);
  auto Source = [&](const std::string &Path) { return Texts.get(Path); };

  std::vector<std::string> Checks = registeredTorchChecks();
  llvm::json::Array Rules;
  for (const std::string &Check : Checks)
    Rules.push_back(ruleOf(Check));

  llvm::json::Array Results;
  std::map<std::string, unsigned> Occurrences;
  for (const tooling::Diagnostic &D : Diagnostics) {
    const tooling::DiagnosticMessage &M = D.Message;
    llvm::StringRef Text = Source(M.FilePath);
    Artifact Where = artifactOf(M.FilePath, Root);

    llvm::json::Array Locations{llvm::json::Object{
        {"physicalLocation",
         llvm::json::Object{
             {"artifactLocation", std::move(Where.Location)},
             {"region", region(Text, M.FileOffset, endOf(M, Text))}}}}};

    llvm::json::Object Result{
        {"ruleId", D.DiagnosticName},
        {"level", levelOf(D.DiagLevel)},
        {"message", llvm::json::Object{{"text", M.Message}}},
        {"locations", std::move(Locations)},
    };
    auto Rule = llvm::find(Checks, D.DiagnosticName);
    if (Rule != Checks.end())
      Result["ruleIndex"] = static_cast<int64_t>(Rule - Checks.begin());

    std::string Line = normalizedLine(Text, M.FileOffset);
    std::string Key = D.DiagnosticName + '\0' + Where.Key + '\0' + Line;
    Result["partialFingerprints"] = llvm::json::Object{
        {"libtorch-tidy/v1",
         fingerprint(D.DiagnosticName, Where.Key, Line, Occurrences[Key]++)}};

    llvm::json::Array Changes;
    for (const auto &[Path, Replacements] : M.Fix) {
      llvm::StringRef FileText = Source(Path.str());
      llvm::json::Array Edits;
      for (const tooling::Replacement &R : Replacements)
        Edits.push_back(llvm::json::Object{
            {"deletedRegion",
             region(FileText, R.getOffset(), R.getOffset() + R.getLength())},
            {"insertedContent",
             llvm::json::Object{{"text", R.getReplacementText().str()}}}});
      if (Edits.empty())
        continue;
      Changes.push_back(llvm::json::Object{
          {"artifactLocation", artifactOf(Path, Root).Location},
          {"replacements", std::move(Edits)}});
    }
    if (!Changes.empty())
      Result["fixes"] = llvm::json::Array{llvm::json::Object{
          {"description", llvm::json::Object{{"text", "Apply the fix-it"}}},
          {"artifactChanges", std::move(Changes)}}};

    llvm::json::Array Related;
    for (const tooling::DiagnosticMessage &N : D.Notes) {
      if (N.FilePath.empty())
        continue;
      llvm::StringRef NoteText = Source(N.FilePath);
      Related.push_back(llvm::json::Object{
          {"id", static_cast<int64_t>(Related.size())},
          {"message", llvm::json::Object{{"text", N.Message}}},
          {"physicalLocation",
           llvm::json::Object{
               {"artifactLocation", artifactOf(N.FilePath, Root).Location},
               {"region",
                region(NoteText, N.FileOffset, endOf(N, NoteText))}}}});
    }
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    Results.push_back(std::move(Result));
  }

  llvm::json::Object Run{
      {"tool",
       llvm::json::Object{
           {"driver", llvm::json::Object{{"name", "libtorch-tidy"},
                                         {"version", LIBTORCH_TIDY_VERSION},
                                         {"rules", std::move(Rules)}}}}},
      {"columnKind", "utf16CodeUnits"},
      {"results", std::move(Results)},
  };
  if (!Root.empty())
    Run["originalUriBaseIds"] = llvm::json::Object{
        {"%SRCROOT%",
         llvm::json::Object{
             {"uri", "file://" + percentEncoded(Root) +
                         (llvm::StringRef(Root).ends_with("/") ? "" : "/")}}}};

  llvm::json::Object Log{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", llvm::json::Array{std::move(Run)}},
  };
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Log))) << "\n";
  return writeFileAtomically(Output, OS.str());
}

} // namespace torchtidy
