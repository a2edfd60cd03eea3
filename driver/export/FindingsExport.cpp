//===--- FindingsExport.cpp - libtorch-tidy -------------------------------===//

#include "export/FindingsExport.h"
#include "utils/FindingPayload.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>
#include <unistd.h>

using namespace clang;
using namespace clang::tidy;

namespace torchtidy {
namespace utils = clang::tidy::torch::utils;

namespace {

struct LineCol {
  unsigned Line = 1, Column = 1;
};

LineCol lineColOf(llvm::StringRef Text, unsigned Offset) {
  LineCol LC;
  Offset = std::min<size_t>(Offset, Text.size());
  for (unsigned I = 0; I < Offset; ++I) {
    if (Text[I] == '\n') {
      ++LC.Line;
      LC.Column = 1;
    } else {
      ++LC.Column;
    }
  }
  return LC;
}

/// The start of the line holding \p Offset, and the end of the line holding
/// \p End (after its newline).
std::pair<unsigned, unsigned> wholeLines(llvm::StringRef Text, unsigned Offset,
                                         unsigned End) {
  // StringRef::rfind looks strictly before Offset.
  size_t Begin = Text.rfind('\n', Offset);
  Begin = Begin == llvm::StringRef::npos ? 0 : Begin + 1;
  size_t Stop = Text.find('\n', std::min<size_t>(End, Text.size()));
  Stop = Stop == llvm::StringRef::npos ? Text.size() : Stop + 1;
  return {static_cast<unsigned>(Begin), static_cast<unsigned>(Stop)};
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

} // namespace

std::string writeFileAtomically(llvm::StringRef Output, llvm::StringRef Text) {
  llvm::SmallString<256> Model(Output);
  llvm::sys::path::remove_filename(Model);
  llvm::sys::path::append(Model,
                          llvm::sys::path::filename(Output) + ".tmp-%%%%%%");
  llvm::SmallString<256> Temp;
  int FD = -1;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Temp))
    return "cannot write '" + Output.str() + "': " + EC.message();
  // A run stopped by a signal leaves no temporary file beside the output.
  llvm::sys::RemoveFileOnSignal(Temp);
  auto Forget =
      llvm::make_scope_exit([&] { llvm::sys::DontRemoveFileOnSignal(Temp); });
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.flush();
    // On disk before the rename: a crash leaves the old file or the new.
    ::fsync(FD);
    OS.close();
    if (OS.has_error()) {
      std::string Message = OS.error().message();
      OS.clear_error();
      llvm::sys::fs::remove(Temp);
      return "cannot write '" + Output.str() + "': " + Message;
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Output)) {
    llvm::sys::fs::remove(Temp);
    return "cannot write '" + Output.str() + "': " + EC.message();
  }
  return "";
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

std::string readDiagnostics(llvm::StringRef FixesYaml,
                            std::vector<tooling::Diagnostic> &Out) {
  if (!llvm::sys::fs::exists(FixesYaml))
    return "";
  auto Buffer = llvm::MemoryBuffer::getFile(FixesYaml);
  if (!Buffer)
    return "cannot read the diagnostics: " + Buffer.getError().message();
  tooling::TranslationUnitDiagnostics TU;
  llvm::yaml::Input YIn((*Buffer)->getBuffer());
  YIn >> TU;
  if (YIn.error())
    return "cannot parse the diagnostics: " + YIn.error().message();
  Out = std::move(TU.Diagnostics);
  return "";
}

std::string exportFindings(llvm::StringRef FixesYaml, llvm::StringRef Output,
                           const llvm::StringMap<std::string> &Originals) {
  std::vector<tooling::Diagnostic> Diagnostics;
  if (std::string Error = readDiagnostics(FixesYaml, Diagnostics);
      !Error.empty())
    return Error;

  SourceTexts Texts(Originals);
  auto Source = [&](const std::string &Path) { return Texts.get(Path); };

  llvm::json::Array Findings;
  for (const tooling::Diagnostic &D : Diagnostics) {
    if (!llvm::StringRef(D.DiagnosticName).starts_with("torch-"))
      continue;
    const tooling::DiagnosticMessage &M = D.Message;
    llvm::StringRef Text = Source(M.FilePath);
    LineCol At = lineColOf(Text, M.FileOffset);

    // The fix-its, and the lines they and the finding touch in its file.
    llvm::json::Array Fixes;
    unsigned First = M.FileOffset, Last = M.FileOffset;
    tooling::Replacements SameFile;
    for (const auto &[Path, Replacements] : M.Fix)
      for (const tooling::Replacement &R : Replacements) {
        Fixes.push_back(
            llvm::json::Object{{"file", R.getFilePath().str()},
                               {"offset", R.getOffset()},
                               {"length", R.getLength()},
                               {"replacement", R.getReplacementText().str()}});
        if (R.getFilePath() != M.FilePath)
          continue;
        First = std::min(First, R.getOffset());
        Last = std::max(Last, R.getOffset() + R.getLength());
        llvm::consumeError(SameFile.add(R));
      }
    // The AST payload of this finding, when its check recorded one.
    const utils::FindingPayload *Payload = nullptr;
    for (const utils::FindingPayload &P : utils::recordedPayloads())
      if (P.Check == D.DiagnosticName && P.Offset == M.FileOffset &&
          sameFile(P.File, M.FilePath)) {
        Payload = &P;
        break;
      }
    if (Payload && Payload->UnitEnd > Payload->UnitBegin) {
      First = std::min(First, Payload->UnitBegin);
      Last = std::max(Last, Payload->UnitEnd);
    }
    // An insertion at the start of a line belongs to the line before.
    if (Last > First && Last <= Text.size() && Text[Last - 1] == '\n')
      --Last;
    auto [Begin, End] = wholeLines(Text, First, Last);
    llvm::StringRef Before = Text.slice(Begin, End);
    // The same lines after the fix-its: shift the replacements to the
    // snippet's start and apply them there.
    tooling::Replacements Shifted;
    for (const tooling::Replacement &R : SameFile)
      llvm::consumeError(Shifted.add(
          tooling::Replacement("snippet", R.getOffset() - Begin, R.getLength(),
                               R.getReplacementText())));
    auto After = tooling::applyAllReplacements(Before, Shifted);
    std::string AfterText = After ? *After : Before.str();
    if (!After)
      llvm::consumeError(After.takeError());

    Findings.push_back(llvm::json::Object{
        {"check", D.DiagnosticName},
        {"level", D.DiagLevel == tooling::Diagnostic::Remark  ? "remark"
                  : D.DiagLevel == tooling::Diagnostic::Error ? "error"
                                                              : "warning"},
        {"file", M.FilePath},
        {"line", At.Line},
        {"column", At.Column},
        {"offset", M.FileOffset},
        {"message", M.Message},
        {"fixits", std::move(Fixes)},
        {"code", codeObject(Payload, lineColOf(Text, Begin).Line, Before.str(),
                            AfterText)},
    });
  }

  llvm::json::Object Root{
      {"format", "libtorch-tidy-findings"},
      {"version", FindingsFormatVersion},
      {"findings", std::move(Findings)},
  };

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
  return writeFileAtomically(Output, OS.str());
}

namespace {
llvm::json::Array pairsToJson(
    const std::vector<std::pair<std::string, std::string>> &Pairs) {
  llvm::json::Array A;
  for (const auto &[First, Second] : Pairs)
    A.push_back(llvm::json::Array{First, Second});
  return A;
}

bool pairsFromJson(const llvm::json::Array *A,
                   std::vector<std::pair<std::string, std::string>> &Out) {
  if (!A)
    return false;
  for (const llvm::json::Value &V : *A) {
    const llvm::json::Array *P = V.getAsArray();
    if (!P || P->size() != 2 || !(*P)[0].getAsString() ||
        !(*P)[1].getAsString())
      return false;
    Out.emplace_back((*P)[0].getAsString()->str(),
                     (*P)[1].getAsString()->str());
  }
  return true;
}

bool stringsFromJson(const llvm::json::Array *A,
                     std::vector<std::string> &Out) {
  if (!A)
    return false;
  for (const llvm::json::Value &V : *A) {
    if (!V.getAsString())
      return false;
    Out.push_back(V.getAsString()->str());
  }
  return true;
}
} // namespace

std::string serializePayloads() {
  llvm::json::Array All;
  for (const utils::FindingPayload &P : utils::recordedPayloads()) {
    llvm::json::Object O{
        {"check", P.Check},
        {"file", P.File},
        {"offset", P.Offset},
        {"unit", P.Unit},
        {"unitBegin", P.UnitBegin},
        {"unitEnd", P.UnitEnd},
        {"free", pairsToJson(P.FreeVariables)},
        {"shapes", llvm::json::Array(P.Shapes)},
        {"dtypes", llvm::json::Array(P.Dtypes)},
        {"devices", llvm::json::Array(P.Devices)},
        {"constructions", pairsToJson(P.Constructions)},
        {"declarations", pairsToJson(P.Declarations)},
    };
    if (P.TripCount)
      O["trips"] = *P.TripCount;
    All.push_back(std::move(O));
  }
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(std::move(All));
  return Text;
}

bool loadPayloads(llvm::StringRef Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    llvm::consumeError(V.takeError());
    return false;
  }
  const llvm::json::Array *All = V->getAsArray();
  if (!All)
    return false;
  std::vector<utils::FindingPayload> Loaded;
  for (const llvm::json::Value &Item : *All) {
    const llvm::json::Object *O = Item.getAsObject();
    if (!O)
      return false;
    utils::FindingPayload P;
    auto Str = [&](llvm::StringRef Key, std::string &Out) {
      std::optional<llvm::StringRef> S = O->getString(Key);
      if (S)
        Out = S->str();
      return S.has_value();
    };
    auto Num = [&](llvm::StringRef Key, unsigned &Out) {
      std::optional<int64_t> N = O->getInteger(Key);
      if (N)
        Out = static_cast<unsigned>(*N);
      return N.has_value();
    };
    if (!Str("check", P.Check) || !Str("file", P.File) ||
        !Str("unit", P.Unit) || !Num("offset", P.Offset) ||
        !Num("unitBegin", P.UnitBegin) || !Num("unitEnd", P.UnitEnd) ||
        !pairsFromJson(O->getArray("free"), P.FreeVariables) ||
        !stringsFromJson(O->getArray("shapes"), P.Shapes) ||
        !stringsFromJson(O->getArray("dtypes"), P.Dtypes) ||
        !stringsFromJson(O->getArray("devices"), P.Devices) ||
        !pairsFromJson(O->getArray("constructions"), P.Constructions) ||
        !pairsFromJson(O->getArray("declarations"), P.Declarations))
      return false;
    P.TripCount = O->getInteger("trips");
    Loaded.push_back(std::move(P));
  }
  utils::addRecordedPayloads(std::move(Loaded));
  return true;
}

} // namespace torchtidy
