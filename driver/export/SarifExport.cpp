//===--- SarifExport.cpp - libtorch-tidy ----------------------------------===//

#include "export/SarifExport.h"
#include "CheckTable.h"
#include "export/DiagnosticReader.h"
#include "export/FindingsExport.h"
#include "support/FixCheck.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
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

namespace torchtidy {

namespace {

/// A region, its columns in UTF-16 code units (the run's columnKind).
llvm::json::Object region(llvm::StringRef Text, size_t Begin, size_t End) {
  TextPosition B = positionOf(Text, Begin), E = positionOf(Text, End);
  return llvm::json::Object{{"startLine", B.Line},
                            {"startColumn", B.Utf16Column},
                            {"endLine", E.Line},
                            {"endColumn", E.Utf16Column}};
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
  std::string Out;
  bool Space = false;
  for (char C : Text.slice(lineStartOf(Text, Offset), lineEndOf(Text, Offset))) {
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

/// The rule of a check, from the check table.
llvm::json::Object ruleOf(const CheckInfo &Check) {
  std::string Full(Check.Description), Page(Check.DocsPage);
  return llvm::json::Object{
      {"id", std::string(Check.Name)},
      {"name", std::string(readableName(Check))},
      {"shortDescription",
       llvm::json::Object{{"text", std::string(Check.Summary)}}},
      {"fullDescription", llvm::json::Object{{"text", Full}}},
      {"help",
       llvm::json::Object{{"text", Full + "\n\nDocumentation: " + Page +
                                       " in the libtorch-tidy sources."},
                          {"markdown", Full + "\n\nDocumentation: `" + Page +
                                           "` in the libtorch-tidy sources."}}},
      {"defaultConfiguration", llvm::json::Object{{"level", "warning"}}},
      {"properties",
       llvm::json::Object{{"tags", llvm::json::Array{"performance"}}}},
  };
}

/// The checks of the table, sorted by name: the rules' order.
std::vector<const CheckInfo *> sortedChecks() {
  std::vector<const CheckInfo *> Checks;
  for (const CheckInfo &Info : CheckTable)
    Checks.push_back(&Info);
  llvm::sort(Checks, [](const CheckInfo *A, const CheckInfo *B) {
    return A->Name < B->Name;
  });
  return Checks;
}

/// The torch findings of \p Diagnostics in file order: the occurrence
/// counters of the fingerprints follow it.
std::vector<tooling::Diagnostic>
sortedFindings(std::vector<tooling::Diagnostic> Diagnostics) {
  llvm::erase_if(Diagnostics, [](const tooling::Diagnostic &D) {
    return !isTorchFinding(D);
  });
  llvm::sort(Diagnostics, [](const tooling::Diagnostic &A,
                             const tooling::Diagnostic &B) {
    const tooling::DiagnosticMessage &MA = A.Message, &MB = B.Message;
    return std::tie(MA.FilePath, MA.FileOffset, A.DiagnosticName, MA.Message) <
           std::tie(MB.FilePath, MB.FileOffset, B.DiagnosticName, MB.Message);
  });
  return Diagnostics;
}

/// Builds the results of one log: locations resolved in the texts, paths
/// made relative to the root, fingerprints counted per line.
class ResultBuilder {
public:
  ResultBuilder(const llvm::StringMap<std::string> &Originals,
                std::string Root, std::vector<const CheckInfo *> Checks)
      : Texts(Originals), Root(std::move(Root)), Checks(std::move(Checks)) {}

  llvm::json::Object resultOf(const tooling::Diagnostic &D) {
    const tooling::DiagnosticMessage &M = D.Message;
    llvm::StringRef Text = Texts.get(M.FilePath);
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
    auto Rule = llvm::find_if(Checks, [&](const CheckInfo *C) {
      return C->Name == D.DiagnosticName;
    });
    if (Rule != Checks.end())
      Result["ruleIndex"] = static_cast<int64_t>(Rule - Checks.begin());
    std::string Line = normalizedLine(Text, M.FileOffset);
    std::string Key = D.DiagnosticName + '\0' + Where.Key + '\0' + Line;
    Result["partialFingerprints"] = llvm::json::Object{
        {"libtorch-tidy/v1",
         fingerprint(D.DiagnosticName, Where.Key, Line, Occurrences[Key]++)}};
    llvm::json::Array Changes = changesOf(M);
    if (!Changes.empty())
      Result["fixes"] = llvm::json::Array{fixOf(D, std::move(Changes))};
    llvm::json::Array Related = relatedOf(D);
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    return Result;
  }

private:
  /// The fix object; one that would not compile says so and is marked
  /// unsafe in its properties, with the compiler's error.
  static llvm::json::Object fixOf(const tooling::Diagnostic &D,
                                  llvm::json::Array Changes) {
    std::optional<std::string> Error = unsafeFixError(D);
    llvm::json::Object Fix{
        {"description",
         llvm::json::Object{{"text", Error ? "Unsafe fix-it: the fixed code "
                                             "does not compile"
                                           : "Apply the fix-it"}}},
        {"artifactChanges", std::move(Changes)}};
    if (Error)
      Fix["properties"] = llvm::json::Object{
          {"libtorch-tidy/unsafe", true},
          {"libtorch-tidy/compileError", std::move(*Error)}};
    return Fix;
  }

  /// The fix-its as artifactChanges, one per file.
  llvm::json::Array changesOf(const tooling::DiagnosticMessage &M) {
    llvm::json::Array Changes;
    for (const auto &[Path, Replacements] : M.Fix) {
      llvm::StringRef FileText = Texts.get(Path.str());
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
    return Changes;
  }

  /// The notes as relatedLocations.
  llvm::json::Array relatedOf(const tooling::Diagnostic &D) {
    llvm::json::Array Related;
    for (const tooling::DiagnosticMessage &N : D.Notes) {
      if (N.FilePath.empty())
        continue;
      llvm::StringRef NoteText = Texts.get(N.FilePath);
      Related.push_back(llvm::json::Object{
          {"id", static_cast<int64_t>(Related.size())},
          {"message", llvm::json::Object{{"text", N.Message}}},
          {"physicalLocation",
           llvm::json::Object{
               {"artifactLocation", artifactOf(N.FilePath, Root).Location},
               {"region",
                region(NoteText, N.FileOffset, endOf(N, NoteText))}}}});
    }
    return Related;
  }

  SourceTexts Texts;
  std::string Root;
  std::vector<const CheckInfo *> Checks;
  std::map<std::string, unsigned> Occurrences;
};

/// The run of the log: the tool with its rules, and the results.
llvm::json::Object runOf(llvm::json::Array Rules, llvm::json::Array Results,
                         llvm::StringRef Root) {
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
         llvm::json::Object{{"uri", "file://" + percentEncoded(Root) +
                                        (Root.ends_with("/") ? "" : "/")}}}};
  return Run;
}

/// \p RootDir absolute, without trailing slashes; "" for none.
std::string rootOf(llvm::StringRef RootDir) {
  std::string Root = RootDir.empty() ? "" : absolutePath(RootDir);
  while (Root.size() > 1 && Root.back() == '/')
    Root.pop_back();
  return Root;
}

} // namespace

llvm::Error exportSarif(llvm::StringRef FixesYaml, llvm::StringRef Output,
                        llvm::StringRef RootDir,
                        const llvm::StringMap<std::string> &Originals) {
  llvm::Expected<std::vector<tooling::Diagnostic>> Diagnostics =
      readDiagnostics(FixesYaml);
  if (!Diagnostics)
    return Diagnostics.takeError();
  std::string Root = rootOf(RootDir);
  std::vector<const CheckInfo *> Checks = sortedChecks();
  llvm::json::Array Rules;
  for (const CheckInfo *Check : Checks)
    Rules.push_back(ruleOf(*Check));
  ResultBuilder Builder(Originals, Root, std::move(Checks));
  llvm::json::Array Results;
  for (const tooling::Diagnostic &D : sortedFindings(std::move(*Diagnostics)))
    Results.push_back(Builder.resultOf(D));
  llvm::json::Object Log{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", llvm::json::Array{runOf(std::move(Rules), std::move(Results),
                                       Root)}},
  };
  return writeJsonAtomically(Output, std::move(Log));
}

} // namespace torchtidy
