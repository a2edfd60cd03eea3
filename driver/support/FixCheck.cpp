//===--- FixCheck.cpp - libtorch-tidy -------------------------------------===//

#include "support/FixCheck.h"
#include "cache/AutoPch.h"
#include "support/AtomicWrite.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Format/Format.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <map>
#include <numeric>

using namespace clang;

namespace torchtidy {

std::vector<UnsafeFix> findBreakingFixes(
    size_t Count,
    llvm::function_ref<std::optional<std::string>(llvm::ArrayRef<size_t>)>
        FirstError) {
  std::vector<UnsafeFix> Dropped;
  std::vector<size_t> Accepted, Rest;
  for (size_t I = 0; I < Count; ++I)
    Rest.push_back(I);
  auto With = [&](size_t PrefixLength) {
    std::vector<size_t> Set = Accepted;
    Set.insert(Set.end(), Rest.begin(), Rest.begin() + PrefixLength);
    return FirstError(Set);
  };
  std::optional<std::string> Error = Rest.empty() ? std::nullopt : With(Rest.size());
  while (Error) {
    // Accepted alone compiles, Accepted with all of Rest does not: find the
    // first prefix of Rest that breaks it. Its last fix breaks the build of
    // what comes before it.
    size_t Good = 0, Bad = Rest.size();
    while (Bad - Good > 1) {
      size_t Mid = Good + (Bad - Good) / 2;
      if (std::optional<std::string> E = With(Mid)) {
        Bad = Mid;
        Error = std::move(E);
      } else {
        Good = Mid;
      }
    }
    Dropped.push_back({Rest[Bad - 1], std::move(*Error)});
    Accepted.insert(Accepted.end(), Rest.begin(), Rest.begin() + (Bad - 1));
    Rest.erase(Rest.begin(), Rest.begin() + Bad);
    Error = Rest.empty() ? std::nullopt : With(Rest.size());
  }
  return Dropped;
}

namespace {

namespace fs = llvm::sys::fs;

std::string normalPath(llvm::StringRef Path) {
  llvm::SmallString<256> Abs(Path);
  fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  return Abs.str().str();
}

bool isCompilerError(const tooling::Diagnostic &D) {
  return D.DiagLevel == tooling::Diagnostic::Error &&
         llvm::StringRef(D.DiagnosticName).starts_with("clang-diagnostic-");
}

/// One compile command, for ClangTool.
class OneCommand : public tooling::CompilationDatabase {
public:
  explicit OneCommand(tooling::CompileCommand Cmd) : Cmd(std::move(Cmd)) {}
  std::vector<tooling::CompileCommand>
  getCompileCommands(llvm::StringRef) const override {
    return {Cmd};
  }
  std::vector<std::string> getAllFiles() const override {
    return {Cmd.Filename};
  }

private:
  tooling::CompileCommand Cmd;
};

/// Keeps the first error, as "file:line:col: error: message".
class FirstErrorConsumer : public DiagnosticConsumer {
public:
  std::optional<std::string> First;

  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    if (First || Level < DiagnosticsEngine::Error)
      return;
    llvm::SmallString<128> Message;
    Info.FormatDiagnostic(Message);
    std::string Where;
    if (Info.hasSourceManager() && Info.getLocation().isValid()) {
      PresumedLoc P =
          Info.getSourceManager().getPresumedLoc(Info.getLocation());
      if (P.isValid())
        Where = (llvm::sys::path::filename(P.getFilename()) + ":" +
                 llvm::Twine(P.getLine()) + ":" + llvm::Twine(P.getColumn()) +
                 ": ")
                    .str();
    }
    First = Where + "error: " + Message.str().str();

  }
};

/// A translation unit to parse again: its compile command and the PCH of
/// its LibTorch includes, when there is one.
struct Unit {
  std::string Source; ///< normalized
  SourceCommand Cmd;
  std::string Pch;
  std::string PchPrefix; ///< the leading includes the PCH holds
};

llvm::Expected<Unit> unitFor(llvm::StringRef Source, const FixCheckOptions &O) {
  Unit U;
  U.Source = normalPath(Source);
  llvm::Expected<SourceCommand> Cmd = compileCommandFor(O.Compile, U.Source);
  if (!Cmd)
    return Cmd.takeError();
  U.Cmd = std::move(*Cmd);
  if (!O.Pch || O.CacheDir.empty())
    return U;
  // Without a PCH of its own (the command may bring one) the parse costs
  // what the analysis did.
  if (llvm::Expected<PchUse> Use = prepareAutoPch(U.Cmd, U.Source, O.CacheDir)) {
    U.Pch = Use->Path;
    U.PchPrefix = Use->Prefix;
  } else {
    llvm::consumeError(Use.takeError());
  }
  return U;
}

/// The first error of \p U with \p Texts (normalized path -> text) over the
/// files on disk; "" when the parse did not run at all.
std::optional<std::string> parseError(const Unit &U,
                                      const llvm::StringMap<std::string> &Texts) {
  tooling::CompileCommand Cmd(U.Cmd.Directory, U.Source, U.Cmd.CommandLine,
                              "");
  OneCommand DB(Cmd);
  tooling::ClangTool Tool(DB, {U.Source});
  // Entries, not structured bindings: those copy a StringMap's values, and
  // the tool keeps only references to the texts.
  for (const auto &Entry : Texts)
    Tool.mapVirtualFile(Entry.getKey(), Entry.getValue());
  // The PCH holds the unit's leading includes: a fix that changed them (in
  // the file or in a header they pass through) parses without it.
  auto Read = [&](llvm::StringRef Path) -> std::optional<std::string> {
    auto Fixed = Texts.find(Path);
    if (Fixed != Texts.end())
      return Fixed->getValue();
    return readFromDisk(Path);
  };
  bool WithPch =
      !U.Pch.empty() && libTorchPrefixOf(U.Cmd, U.Source, Read) == U.PchPrefix;
  if (WithPch)
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        {"-include-pch", U.Pch}, tooling::ArgumentInsertPosition::BEGIN));
  // Without the "N errors generated." line on stderr.
  Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
      "-fno-caret-diagnostics", tooling::ArgumentInsertPosition::END));
  FirstErrorConsumer Diags;
  Tool.setDiagnosticConsumer(&Diags);
  Tool.setPrintErrorMessage(false);
  int RC =
      Tool.run(tooling::newFrontendActionFactory<SyntaxOnlyAction>().get());
  if (Diags.First)
    return Diags.First;
  if (RC)
    return std::string();
  return std::nullopt;
}

/// Adds \p R to \p To as clang-tidy's fix application does: an insertion
/// where an earlier fix already edits goes after it; a replacement that
/// still overlaps after shifting is skipped.
void addAsClangTidy(tooling::Replacements &To, const tooling::Replacement &R) {
  llvm::Error Err = To.add(R);
  if (!Err)
    return;
  llvm::consumeError(std::move(Err));
  unsigned Offset = To.getShiftedCodePosition(R.getOffset());
  unsigned Length =
      To.getShiftedCodePosition(R.getOffset() + R.getLength()) - Offset;
  if (Length == R.getLength())
    To = To.merge(tooling::Replacements(tooling::Replacement(
        R.getFilePath(), Offset, Length, R.getReplacementText())));
}

/// The files as they were, read once.
class Originals {
public:
  llvm::StringRef get(const std::string &Path) {
    auto It = Texts.find(Path);
    if (It != Texts.end())
      return It->second;
    std::string Text;
    if (auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                                  /*RequiresNullTerminator=*/
                                                  false))
      Text = (*Buffer)->getBuffer().str();
    return Texts[Path] = std::move(Text);
  }

private:
  llvm::StringMap<std::string> Texts;
};

/// Each changed file's text after the fixes \p Set of \p Fixes, applied,
/// cleaned up and formatted as clang-tidy applies them.
llvm::StringMap<std::string>
textsAfter(llvm::ArrayRef<const llvm::StringMap<tooling::Replacements> *> Fixes,
           llvm::ArrayRef<size_t> Set, Originals &Files,
           llvm::function_ref<std::string(llvm::StringRef)> StyleOf) {
  llvm::StringMap<tooling::Replacements> ByFile;
  for (size_t I : Set)
    for (const auto &Entry : *Fixes[I])
      for (const tooling::Replacement &R : Entry.getValue()) {
        if (!R.isApplicable())
          continue;
        std::string Path = normalPath(R.getFilePath());
        addAsClangTidy(ByFile[Path],
                       tooling::Replacement(Path, R.getOffset(), R.getLength(),
                                            R.getReplacementText()));
      }
  llvm::StringMap<std::string> Out;
  for (const auto &Entry : ByFile) {
    std::string File = Entry.getKey().str();
    const tooling::Replacements &Replacements = Entry.getValue();
    llvm::StringRef Code = Files.get(File);
    tooling::Replacements Final = Replacements;
    if (llvm::Expected<format::FormatStyle> Style =
            format::getStyle(StyleOf(File), File, "none")) {
      if (auto Clean = format::cleanupAroundReplacements(Code, Final, *Style))
        Final = std::move(*Clean);
      else
        llvm::consumeError(Clean.takeError());
      if (auto Formatted = format::formatReplacements(Code, Final, *Style))
        Final = std::move(*Formatted);
      else
        llvm::consumeError(Formatted.takeError());
    } else {
      llvm::consumeError(Style.takeError());
    }
      llvm::Expected<std::string> Text = tooling::applyAllReplacements(Code, Final);
    if (Text)
      Out[File] = std::move(*Text);
    else
      llvm::consumeError(Text.takeError());
  }
  return Out;
}

} // namespace

llvm::Expected<std::vector<UnsafeFix>>
findUnsafeFixes(llvm::ArrayRef<const tooling::Diagnostic *> Diags,
                bool FixNotes, const FixCheckOptions &O,
                llvm::function_ref<std::string(llvm::StringRef)> StyleOf) {
  if (llvm::any_of(Diags, [](const tooling::Diagnostic *D) {
        return isCompilerError(*D);
      }))
    return std::vector<UnsafeFix>();
  // The diagnostics with a fix, and their fixes.
  std::vector<size_t> Owners;
  std::vector<const llvm::StringMap<tooling::Replacements> *> Fixes;
  for (size_t I = 0; I < Diags.size(); ++I)
    if (const auto *Fix = tidy::getFixIt(*Diags[I], FixNotes);
        Fix && !Fix->empty()) {
      Owners.push_back(I);
      Fixes.push_back(Fix);
    }
  if (Fixes.empty())
    return std::vector<UnsafeFix>();
  std::vector<Unit> Units;
  for (const std::string &Source : O.Sources) {
    llvm::Expected<Unit> U = unitFor(Source, O);
    if (!U)
      return U.takeError();
    Units.push_back(std::move(*U));
  }
  Originals Files;
  llvm::StringSet<> UnitFiles;
  for (const Unit &U : Units)
    UnitFiles.insert(U.Source);
  // The units the fixes change: their own file, or a header they include.
  std::vector<size_t> All(Fixes.size());
  std::iota(All.begin(), All.end(), 0);
  llvm::StringMap<std::string> AllTexts = textsAfter(Fixes, All, Files, StyleOf);
  bool HeaderChanged = llvm::any_of(AllTexts.keys(), [&](llvm::StringRef Path) {
    return !UnitFiles.contains(Path);
  });
  llvm::erase_if(Units, [&](const Unit &U) {
    return !HeaderChanged && !AllTexts.count(U.Source);
  });
  // Each set is parsed once (the bisection starts with all of them).
  std::map<std::vector<size_t>, std::optional<std::string>> Parsed;
  auto FirstError =
      [&](llvm::ArrayRef<size_t> Set) -> std::optional<std::string> {
    auto [It, New] = Parsed.try_emplace(Set.vec());
    if (!New)
      return It->second;
    llvm::StringMap<std::string> Texts = textsAfter(Fixes, Set, Files, StyleOf);
    for (const Unit &U : Units)
      if (std::optional<std::string> E = parseError(U, Texts))
        return It->second = E->empty() ? "the parse did not run" : *E;
    return std::nullopt;
  };
  std::optional<std::string> WithAll = FirstError(All);
  if (!WithAll)
    return std::vector<UnsafeFix>();
  // Only code that compiled is judged: the parse must succeed without the
  // fixes (it may not, where the analysis saw other flags). A PCH that
  // another run rebuilt meanwhile is not worth a verdict: without it.
  std::optional<std::string> Before = FirstError({});
  if (Before && llvm::any_of(Units, [](const Unit &U) { return !U.Pch.empty(); })) {
    for (Unit &U : Units)
      U.Pch.clear();
    Parsed.clear();
    Before = FirstError({});
  }
  if (Before)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the code does not compile as it is either: " + *Before);
  std::vector<UnsafeFix> Unsafe = findBreakingFixes(Fixes.size(), FirstError);
  for (UnsafeFix &U : Unsafe)
    U.Index = Owners[U.Index];
  return Unsafe;
}

void markUnsafe(tooling::Diagnostic &D, llvm::StringRef Error) {
  tooling::DiagnosticMessage Note((UnsafeFixNote + Error).str());
  Note.FilePath = D.Message.FilePath;
  Note.FileOffset = D.Message.FileOffset;
  D.Notes.push_back(std::move(Note));
}

std::optional<std::string>
unsafeFixError(const tooling::Diagnostic &D) {
  for (const tooling::DiagnosticMessage &N : D.Notes) {
    llvm::StringRef Text = N.Message;
    if (Text.consume_front(UnsafeFixNote))
      return Text.str();
  }
  return std::nullopt;
}

bool injectBrokenFixes(llvm::MutableArrayRef<tooling::Diagnostic> Diags) {
  const char *Spec = std::getenv("LIBTORCH_TIDY_INJECT_BROKEN_FIX");
  if (!Spec || !*Spec)
    return false;
  // CHECK breaks every finding of the check, CHECK:N its N-th (from 1).
  auto [Check, Nth] = llvm::StringRef(Spec).split(':');
  unsigned Only = 0, Seen = 0;
  if (!Nth.empty() && Nth.getAsInteger(10, Only))
    return false;
  bool Injected = false;
  for (tooling::Diagnostic &D : Diags) {
    if (D.DiagnosticName != Check || (Only && ++Seen != Only))
      continue;
    auto It = D.Message.Fix.find(D.Message.FilePath);
    if (It == D.Message.Fix.end() || It->second.empty())
      continue;
    tooling::Replacement First = *It->second.begin();
    tooling::Replacements Broken(tooling::Replacement(
        First.getFilePath(), First.getOffset(), First.getLength(),
        (First.getReplacementText() + " libtorch_tidy_injected_fault").str()));
    for (const tooling::Replacement &R : llvm::drop_begin(It->second))
      llvm::consumeError(Broken.add(R));
    It->second = std::move(Broken);
    Injected = true;
  }
  return Injected;
}

llvm::Error markUnsafeFixesInExport(llvm::StringRef FixesYaml,
                                    const FixCheckOptions &O) {
  auto Buffer = llvm::MemoryBuffer::getFile(FixesYaml);
  if (!Buffer) // clang-tidy writes it only when there are diagnostics
    return llvm::Error::success();
  tooling::TranslationUnitDiagnostics TUD;
  llvm::yaml::Input YAML((*Buffer)->getBuffer());
  YAML >> TUD;
  if (YAML.error())
    return llvm::createStringError(YAML.error(),
                                   "cannot read the exported fixes '" +
                                       FixesYaml + "'");
  bool Injected = injectBrokenFixes(TUD.Diagnostics);
  std::vector<const tooling::Diagnostic *> Diags;
  for (const tooling::Diagnostic &D : TUD.Diagnostics)
    Diags.push_back(&D);
  llvm::Expected<std::vector<UnsafeFix>> Unsafe = findUnsafeFixes(
      Diags, /*FixNotes=*/false, O, [](llvm::StringRef) { return "none"; });
  if (!Unsafe) {
    llvm::errs() << "libtorch-tidy: note: the exported fixes were not "
                    "checked: "
                 << llvm::toString(Unsafe.takeError()) << "\n";
    return llvm::Error::success();
  }
  if (Unsafe->empty() && !Injected)
    return llvm::Error::success();
  for (const UnsafeFix &U : *Unsafe)
    markUnsafe(TUD.Diagnostics[U.Index], U.Error);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  llvm::yaml::Output Out(OS);
  Out << TUD;
  OS.flush();
  return writeFileAtomically(FixesYaml, Text);
}

namespace {
std::optional<FixCheckOptions> &fixCheckSlot() {
  static std::optional<FixCheckOptions> Options;
  return Options;
}
} // namespace

void setFixCheck(std::optional<FixCheckOptions> O) {
  fixCheckSlot() = std::move(O);
}

const std::optional<FixCheckOptions> &fixCheck() { return fixCheckSlot(); }

} // namespace torchtidy
