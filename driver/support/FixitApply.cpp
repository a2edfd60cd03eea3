//===--- FixitApply.cpp - libtorch-tidy -----------------------------------===//

#include "support/FixitApply.h"
#include "support/AtomicWrite.h"
#include "support/SafeFix.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>
#include <tuple>
#include <vector>

using namespace clang;

namespace torchtidy {
namespace {

struct FixitEdit {
  std::string File;
  unsigned Offset = 0, Length = 0;
  std::string Text;

  bool operator<(const FixitEdit &O) const {
    return std::tie(File, Offset, Length, Text) <
           std::tie(O.File, O.Offset, O.Length, O.Text);
  }
};

/// A file's text before and after its edits.
struct FixedFile {
  std::string Base, Fixed;
};

llvm::Error failure(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

llvm::Expected<llvm::json::Value> readJson(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return failure("cannot read '" + Path + "': " +
                   Buffer.getError().message());
  llvm::Expected<llvm::json::Value> V = llvm::json::parse((*Buffer)->getBuffer());
  if (!V)
    return failure("'" + Path + "' is not JSON: " +
                   llvm::toString(V.takeError()));
  return V;
}

/// The edits of a JSON list of {"file", "offset", "length", "replacement"}.
std::vector<FixitEdit> editsOf(const llvm::json::Array *List) {
  std::vector<FixitEdit> Edits;
  if (!List)
    return Edits;
  for (const llvm::json::Value &V : *List) {
    const llvm::json::Object *O = V.getAsObject();
    if (!O)
      continue;
    FixitEdit E;
    E.File = O->getString("file").value_or("").str();
    E.Offset = static_cast<unsigned>(O->getInteger("offset").value_or(0));
    E.Length = static_cast<unsigned>(O->getInteger("length").value_or(0));
    E.Text = O->getString("replacement").value_or("").str();
    Edits.push_back(std::move(E));
  }
  return Edits;
}

/// Adds \p R to \p Replaces. An insertion where an earlier edit already
/// inserts goes after it, as clang-tidy's --fix resolves that conflict (two
/// checks that each insert a statement after the same declaration).
llvm::Error addEdit(tooling::Replacements &Replaces,
                    const tooling::Replacement &R) {
  llvm::Error Error = Replaces.add(R);
  if (!Error || R.getLength() != 0)
    return Error;
  bool SameInsertLocation = false;
  if (llvm::Error Other = llvm::handleErrors(
          std::move(Error),
          [&](std::unique_ptr<tooling::ReplacementError> E) -> llvm::Error {
            if (E->get() != tooling::replacement_error::insert_conflict)
              return llvm::Error(std::move(E));
            SameInsertLocation = true;
            return llvm::Error::success();
          }))
    return Other;
  if (!SameInsertLocation)
    return llvm::Error::success();
  unsigned Shifted = Replaces.getShiftedCodePosition(R.getOffset());
  Replaces = Replaces.merge(tooling::Replacements(tooling::Replacement(
      R.getFilePath(), Shifted, 0, R.getReplacementText())));
  return llvm::Error::success();
}

/// Each file's text after \p Edits, in their order (the same edit twice
/// counts once), with clang's replacements.
llvm::Expected<std::map<std::string, FixedFile>>
fixedTexts(const std::vector<FixitEdit> &Edits) {
  std::set<FixitEdit> Seen;
  std::map<std::string, tooling::Replacements> ByFile;
  for (const FixitEdit &E : Edits) {
    if (!Seen.insert(E).second)
      continue;
    if (llvm::Error Error =
            addEdit(ByFile[E.File],
                    tooling::Replacement(E.File, E.Offset, E.Length, E.Text)))
      return failure("the fix-its conflict in '" + E.File +
                     "': " + llvm::toString(std::move(Error)));
  }
  std::map<std::string, FixedFile> Out;
  for (const auto &[File, Replacements] : ByFile) {
    auto Buffer = llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return failure("cannot read '" + File +
                     "': " + Buffer.getError().message());
    std::string Base = (*Buffer)->getBuffer().str();
    // clang's Rewriter drops an insertion past the end and crashes on a
    // replacement there: the file is not the one the fix-its were made for.
    for (const tooling::Replacement &R : Replacements)
      if (uint64_t(R.getOffset()) + R.getLength() > Base.size())
        return failure(llvm::formatv("the fix-it at offset {0} length {1} is "
                                     "past the end of '{2}' ({3} bytes)",
                                     R.getOffset(), R.getLength(), File,
                                     Base.size())
                           .str());
    llvm::Expected<std::string> Fixed =
        tooling::applyAllReplacements(Base, Replacements);
    if (!Fixed)
      return failure("cannot apply the fix-its to '" + File +
                     "': " + llvm::toString(Fixed.takeError()));
    Out[File] = {std::move(Base), std::move(*Fixed)};
  }
  return Out;
}

/// The verdicts of a verifier report, by finding index.
std::map<int64_t, const llvm::json::Object *>
verdictsByIndex(const llvm::json::Object &Report) {
  std::map<int64_t, const llvm::json::Object *> Out;
  if (const llvm::json::Array *Results = Report.getArray("results"))
    for (const llvm::json::Value &V : *Results)
      if (const llvm::json::Object *R = V.getAsObject())
        if (std::optional<int64_t> Index = R->getInteger("index"))
          Out[*Index] = R;
  return Out;
}

/// Whether --fix-only=\p Mode takes a fix with \p Verdict.
bool pays(llvm::StringRef Mode, llvm::StringRef Verdict) {
  return Verdict == "faster" || (Mode == "not-slower" && Verdict == "same");
}

std::string where(const llvm::json::Object &F) {
  return llvm::formatv("{0} at {1}:{2}",
                       F.getString("check").value_or("?"),
                       llvm::sys::path::filename(
                           F.getString("file").value_or("?")),
                       F.getInteger("line").value_or(0))
      .str();
}

/// "faster 1.42x (1.30 .. 1.51)", or the verdict and its reason.
std::string verdictLine(const llvm::json::Object *R) {
  if (!R)
    return "not verified";
  std::string Line = R->getString("verdict").value_or("no verdict").str();
  if (const llvm::json::Object *S = R->getObject("speedup"))
    Line += llvm::formatv(" {0:F2}x ({1:F2} .. {2:F2})",
                          S->getNumber("point").value_or(0),
                          S->getNumber("low").value_or(0),
                          S->getNumber("high").value_or(0))
                .str();
  else if (std::optional<llvm::StringRef> Why = R->getString("reason"))
    Line += ": " + Why->str();
  return Line;
}

/// The fix-its --fix-only takes, with a line for each finding that has any.
std::vector<FixitEdit> selectFixes(const llvm::json::Array &Findings,
                                   const llvm::json::Object &Report,
                                   llvm::StringRef Mode) {
  std::map<int64_t, const llvm::json::Object *> Verdicts =
      verdictsByIndex(Report);
  std::vector<FixitEdit> Chosen;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const llvm::json::Object *F = Findings[I].getAsObject();
    if (!F)
      continue;
    std::vector<FixitEdit> Edits = editsOf(F->getArray("fixits"));
    if (Edits.empty())
      continue;
    auto It = Verdicts.find(static_cast<int64_t>(I));
    const llvm::json::Object *R = It == Verdicts.end() ? nullptr : It->second;
    llvm::StringRef Verdict =
        R ? R->getString("verdict").value_or("") : llvm::StringRef();
    // A fix-it the analysis found not to compile is never applied.
    std::optional<llvm::StringRef> Unsafe = F->getString("unsafe_fix");
    bool Take = !Unsafe && pays(Mode, Verdict);
    llvm::outs() << "libtorch-tidy: " << (Take ? "applying" : "left out")
                 << " the fix of " << where(*F) << ": "
                 << (Unsafe ? "unsafe, the fixed code does not compile: " +
                                  Unsafe->str()
                            : verdictLine(R))
                 << "\n";
    if (Take)
      Chosen.insert(Chosen.end(), Edits.begin(), Edits.end());
  }
  return Chosen;
}

} // namespace

int runApplyFixits(llvm::StringRef Spec) {
  llvm::Expected<llvm::json::Value> Doc = readJson(Spec);
  if (!Doc) {
    llvm::errs() << "error: --apply-fixits: " << llvm::toString(Doc.takeError())
                 << "\n";
    return 1;
  }
  const llvm::json::Object *O = Doc->getAsObject();
  if (!O || O->getString("format") != "libtorch-tidy-fixits") {
    llvm::errs() << "error: --apply-fixits: '" << Spec
                 << "' is not a libtorch-tidy-fixits file\n";
    return 1;
  }
  llvm::Expected<std::map<std::string, FixedFile>> Texts =
      fixedTexts(editsOf(O->getArray("edits")));
  if (!Texts) {
    llvm::errs() << "error: " << llvm::toString(Texts.takeError()) << "\n";
    return 1;
  }
  for (const auto &[File, Text] : *Texts)
    if (llvm::Error E = replaceFileAtomically(File, Text.Fixed)) {
      llvm::errs() << "error: cannot write '" << File
                   << "': " << llvm::toString(std::move(E)) << "\n";
      return 1;
    }
  return 0;
}

int applyVerifiedFixes(llvm::StringRef FindingsFile, llvm::StringRef ReportFile,
                       llvm::StringRef Mode) {
  llvm::Expected<llvm::json::Value> Findings = readJson(FindingsFile);
  llvm::Expected<llvm::json::Value> Report = readJson(ReportFile);
  if (!Findings || !Report) {
    llvm::Error E = llvm::joinErrors(
        Findings ? llvm::Error::success() : Findings.takeError(),
        Report ? llvm::Error::success() : Report.takeError());
    llvm::errs() << "error: --fix-only: " << llvm::toString(std::move(E))
                 << "\n";
    return 1;
  }
  const llvm::json::Object *F = Findings->getAsObject();
  const llvm::json::Object *R = Report->getAsObject();
  const llvm::json::Array *List = F ? F->getArray("findings") : nullptr;
  if (!List || !R) {
    llvm::errs() << "error: --fix-only: the findings or the verifier's report "
                    "cannot be read\n";
    return 1;
  }
  llvm::Expected<std::map<std::string, FixedFile>> Texts =
      fixedTexts(selectFixes(*List, *R, Mode));
  if (!Texts) {
    llvm::errs() << "error: --fix-only: " << llvm::toString(Texts.takeError())
                 << "\n";
    return 1;
  }
  int RC = 0;
  for (const auto &[File, Text] : *Texts)
    if (llvm::Error E = writeFixedFile(File, Text.Base, Text.Fixed)) {
      llvm::errs() << "libtorch-tidy: error: not fixing '" << File
                   << "': " << llvm::toString(std::move(E)) << "\n";
      RC = FixNotAppliedExitCode;
    }
  return RC;
}

} // namespace torchtidy
