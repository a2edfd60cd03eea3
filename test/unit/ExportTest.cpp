//===--- ExportTest.cpp - libtorch-tidy -----------------------------------===//
//
// The exports' pure parts: byte offsets as lines and columns (bytes for the
// findings JSON, UTF-16 code units for SARIF), the reader of clang-tidy's
// exported diagnostics, the merging of a whole project's exports, the
// payloads' transport, and atomic writes.
//
//===----------------------------------------------------------------------===//

#include "CheckTable.h"
#include "export/DiagnosticReader.h"
#include "export/MergeExports.h"
#include "support/AtomicWrite.h"
#include "support/PayloadIO.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <gtest/gtest.h>
#include <string>

namespace torchtidy {
namespace {

namespace fs = llvm::sys::fs;

TEST(Position, LinesAndColumnsAreOneBased) {
  llvm::StringRef Text = "ab\ncd\n\nef";
  TextPosition P = positionOf(Text, 0);
  EXPECT_EQ(P.Line, 1u);
  EXPECT_EQ(P.ByteColumn, 1u);
  EXPECT_EQ(P.Utf16Column, 1u);
  P = positionOf(Text, 2); // the first newline itself
  EXPECT_EQ(P.Line, 1u);
  EXPECT_EQ(P.ByteColumn, 3u);
  P = positionOf(Text, 4);
  EXPECT_EQ(P.Line, 2u);
  EXPECT_EQ(P.ByteColumn, 2u);
  P = positionOf(Text, 6);
  EXPECT_EQ(P.Line, 3u);
  EXPECT_EQ(P.ByteColumn, 1u);
  P = positionOf(Text, 8);
  EXPECT_EQ(P.Line, 4u);
  EXPECT_EQ(P.ByteColumn, 2u);
  EXPECT_EQ(P.Utf16Column, 2u);
}

TEST(Position, OffsetsPastTheEndAreTheEnd) {
  TextPosition P = positionOf("ab\nc", 100);
  EXPECT_EQ(P.Line, 2u);
  EXPECT_EQ(P.ByteColumn, 2u);
  P = positionOf("", 3);
  EXPECT_EQ(P.Line, 1u);
  EXPECT_EQ(P.ByteColumn, 1u);
}

TEST(Position, MultibyteUtf8CountsAsUtf16CodeUnits) {
  // "é" is two bytes and one UTF-16 unit; "€" three bytes, one unit;
  // U+1F600 four bytes and a surrogate pair (two units).
  std::string Text = "x\n\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80y";
  size_t Y = Text.find('y');
  TextPosition P = positionOf(Text, Y);
  EXPECT_EQ(P.Line, 2u);
  EXPECT_EQ(P.ByteColumn, 1u + 2 + 3 + 4);
  EXPECT_EQ(P.Utf16Column, 1u + 1 + 1 + 2);
  // After "é" only.
  P = positionOf(Text, 4);
  EXPECT_EQ(P.ByteColumn, 3u);
  EXPECT_EQ(P.Utf16Column, 2u);
}

TEST(Position, LineBounds) {
  llvm::StringRef Text = "one\ntwo\nthree";
  EXPECT_EQ(lineStartOf(Text, 0), 0u);
  EXPECT_EQ(lineStartOf(Text, 3), 0u); // the newline belongs to its line
  EXPECT_EQ(lineStartOf(Text, 4), 4u);
  EXPECT_EQ(lineStartOf(Text, 6), 4u);
  EXPECT_EQ(lineEndOf(Text, 0), 3u);
  EXPECT_EQ(lineEndOf(Text, 5), 7u);
  EXPECT_EQ(lineEndOf(Text, 9), Text.size());
  EXPECT_EQ(lineEndOf(Text, 99), Text.size());
}

const CheckInfo &anyCheck() { return CheckTable[0]; }

std::string fixesYaml(llvm::StringRef Check) {
  return ("---\n"
          "MainSourceFile: '/src/a.cpp'\n"
          "Diagnostics:\n"
          "  - DiagnosticName: " +
          Check +
          "\n"
          "    DiagnosticMessage:\n"
          "      Message: 'something slow'\n"
          "      FilePath: '/src/a.cpp'\n"
          "      FileOffset: 12\n"
          "      Replacements: []\n"
          "    Level: Warning\n"
          "...\n")
      .str();
}

TEST(Diagnostics, ParsesExportedFixes) {
  std::string Check(anyCheck().Name);
  llvm::Expected<std::vector<clang::tooling::Diagnostic>> Ds =
      parseDiagnostics(fixesYaml(Check));
  ASSERT_TRUE(static_cast<bool>(Ds)) << llvm::toString(Ds.takeError());
  ASSERT_EQ(Ds->size(), 1u);
  EXPECT_EQ((*Ds)[0].DiagnosticName, Check);
  EXPECT_EQ((*Ds)[0].Message.Message, "something slow");
  EXPECT_EQ((*Ds)[0].Message.FileOffset, 12u);
  EXPECT_TRUE(isTorchFinding((*Ds)[0]));
}

TEST(Diagnostics, OnlyTableChecksAreTorchFindings) {
  llvm::Expected<std::vector<clang::tooling::Diagnostic>> Ds =
      parseDiagnostics(fixesYaml("clang-diagnostic-error"));
  ASSERT_TRUE(static_cast<bool>(Ds));
  EXPECT_FALSE(isTorchFinding((*Ds)[0]));
}

TEST(Diagnostics, MalformedYamlIsAnError) {
  llvm::Expected<std::vector<clang::tooling::Diagnostic>> Ds =
      parseDiagnostics("Diagnostics: [ {DiagnosticName: 3");
  ASSERT_FALSE(static_cast<bool>(Ds));
  EXPECT_NE(llvm::toString(Ds.takeError()).find("cannot parse the diagnostics"),
            std::string::npos);
}

TEST(Diagnostics, AbsentFileIsNoDiagnostics) {
  llvm::Expected<std::vector<clang::tooling::Diagnostic>> Ds =
      readDiagnostics("/nonexistent/libtorch-tidy/fixes.yaml");
  ASSERT_TRUE(static_cast<bool>(Ds));
  EXPECT_TRUE(Ds->empty());
}

TEST(Payloads, MalformedTextIsAnErrorAndLoadsNothing) {
  for (llvm::StringRef Bad : {"{", "{}", "[1]", "[{\"check\": 3}]"}) {
    llvm::Error E = loadPayloads(Bad);
    EXPECT_TRUE(static_cast<bool>(E)) << Bad.str();
    llvm::consumeError(std::move(E));
  }
  EXPECT_FALSE(llvm::errorToBool(loadPayloads("[]")));
}

/// A fresh directory for one test, removed after it.
class Files : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("libtorch-tidy-unit", Dir));
  }
  void TearDown() override { fs::remove_directories(Dir); }

  std::string path(llvm::StringRef Name) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Name);
    return Path.str().str();
  }
  static std::string read(llvm::StringRef Path) {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    return Buffer ? (*Buffer)->getBuffer().str() : "<unreadable>";
  }
  static llvm::json::Value readJson(llvm::StringRef Path) {
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(read(Path));
    if (!V) {
      ADD_FAILURE() << llvm::toString(V.takeError());
      return nullptr;
    }
    return std::move(*V);
  }

  llvm::SmallString<256> Dir;
};

using AtomicWrite = Files;

TEST_F(AtomicWrite, WritesAndReplacesLeavingNoTemporaryFile) {
  std::string Out = path("out.json");
  ASSERT_FALSE(llvm::errorToBool(writeFileAtomically(Out, "first")));
  ASSERT_FALSE(llvm::errorToBool(writeFileAtomically(Out, "second, longer")));
  EXPECT_EQ(read(Out), "second, longer");
  std::error_code EC;
  unsigned Entries = 0;
  for (fs::directory_iterator I(Dir, EC), E; I != E && !EC; I.increment(EC))
    ++Entries;
  EXPECT_EQ(Entries, 1u);
}

TEST_F(AtomicWrite, MissingDirectoryIsAnErrorNamingTheFile) {
  std::string Out = path("no/such/dir/out.json");
  llvm::Error E = writeFileAtomically(Out, "x");
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("cannot write '" + Out + "'"),
            std::string::npos);
}

TEST_F(AtomicWrite, ReplaceKeepsTheMode) {
  std::string Out = path("src.cpp");
  ASSERT_FALSE(llvm::errorToBool(writeFileAtomically(Out, "old")));
  fs::setPermissions(Out, fs::perms(0640));
  ASSERT_FALSE(llvm::errorToBool(replaceFileAtomically(Out, "new")));
  EXPECT_EQ(read(Out), "new");
  llvm::ErrorOr<fs::perms> Perms = fs::getPermissions(Out);
  ASSERT_TRUE(static_cast<bool>(Perms));
  EXPECT_EQ(*Perms, fs::perms(0640));
}

using Merge = Files;

std::string findingsWith(std::initializer_list<llvm::StringRef> Messages) {
  llvm::json::Array Findings;
  for (llvm::StringRef M : Messages)
    Findings.push_back(llvm::json::Object{{"message", M}});
  return llvm::formatv("{0}", llvm::json::Value(llvm::json::Object{
                                  {"format", "libtorch-tidy-findings"},
                                  {"version", 1},
                                  {"findings", std::move(Findings)}}))
      .str();
}

TEST_F(Merge, FindingsInDocumentOrderSkippingBrokenOnes) {
  std::string Out = path("all.json");
  std::vector<std::string> Documents = {findingsWith({"a", "b"}), "",
                                        "{broken", findingsWith({"c"})};
  ASSERT_FALSE(llvm::errorToBool(mergeFindings(Documents, Out)));
  llvm::json::Value All = readJson(Out);
  const llvm::json::Object *Root = All.getAsObject();
  ASSERT_TRUE(Root);
  EXPECT_EQ(Root->getString("format"), "libtorch-tidy-findings");
  EXPECT_EQ(Root->getInteger("version"), 1);
  const llvm::json::Array *Findings = Root->getArray("findings");
  ASSERT_TRUE(Findings);
  ASSERT_EQ(Findings->size(), 3u);
  EXPECT_EQ((*Findings)[2].getAsObject()->getString("message"), "c");
}

std::string sarifWith(std::initializer_list<llvm::StringRef> Rules) {
  llvm::json::Array Results;
  for (llvm::StringRef R : Rules)
    Results.push_back(llvm::json::Object{{"ruleId", R}});
  llvm::json::Object Run{{"results", std::move(Results)}};
  return llvm::formatv("{0}", llvm::json::Value(llvm::json::Object{
                                  {"version", "2.1.0"},
                                  {"runs", llvm::json::Array{std::move(Run)}}}))
      .str();
}

TEST_F(Merge, SarifResultsJoinTheFirstLogsRun) {
  std::string Out = path("all.sarif");
  std::vector<std::string> Logs = {"", sarifWith({"r1"}), "[]",
                                   sarifWith({"r2", "r3"})};
  ASSERT_FALSE(llvm::errorToBool(mergeSarif(Logs, Out)));
  llvm::json::Value All = readJson(Out);
  const llvm::json::Array *Runs = All.getAsObject()->getArray("runs");
  ASSERT_TRUE(Runs);
  ASSERT_EQ(Runs->size(), 1u);
  const llvm::json::Array *Results =
      (*Runs)[0].getAsObject()->getArray("results");
  ASSERT_TRUE(Results);
  ASSERT_EQ(Results->size(), 3u);
  EXPECT_EQ((*Results)[1].getAsObject()->getString("ruleId"), "r2");
}

TEST_F(Merge, NoSarifAtAllIsAnError) {
  std::string Out = path("all.sarif");
  std::vector<std::string> Logs = {"", "{broken"};
  llvm::Error E = mergeSarif(Logs, Out);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_EQ(llvm::toString(std::move(E)), "no SARIF from the analysis");
  EXPECT_FALSE(fs::exists(Out));
}

} // namespace
} // namespace torchtidy
