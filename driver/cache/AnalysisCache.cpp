//===--- AnalysisCache.cpp - libtorch-tidy --------------------------------===//

#include "cache/AnalysisCache.h"
#include "cache/AutoPch.h"
#include "cache/CacheTrim.h"
#include "export/FindingsExport.h"
#include "support/TempFiles.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <chrono>
#include <cstdlib>
#include <optional>
#include <sys/stat.h>

#ifndef LIBTORCH_TIDY_VERSION
#define LIBTORCH_TIDY_VERSION "dev"
#endif

using namespace clang;

namespace torchtidy {

namespace fs = llvm::sys::fs;

static int64_t nanoseconds(llvm::sys::TimePoint<> T) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             T.time_since_epoch())
      .count();
}

static std::optional<uint64_t> hashFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return llvm::xxh3_64bits((*Buffer)->getBuffer());
}

bool describeDependency(llvm::StringRef Path, Dependency &D) {
  fs::file_status Status;
  if (fs::status(Path, Status) || !fs::is_regular_file(Status))
    return false;
  std::optional<uint64_t> Hash = hashFile(Path);
  if (!Hash)
    return false;
  D = {Path.str(), Status.getSize(),
       nanoseconds(Status.getLastModificationTime()), *Hash};
  return true;
}

bool isUnchanged(const Dependency &D) {
  fs::file_status Status;
  if (fs::status(D.Path, Status) || !fs::is_regular_file(Status) ||
      Status.getSize() != D.Size)
    return false;
  if (nanoseconds(Status.getLastModificationTime()) == D.MTime)
    return true;
  // Touched but maybe not changed (a checkout, a build step).
  std::optional<uint64_t> Hash = hashFile(D.Path);
  return Hash && *Hash == D.Hash;
}

bool readHeaderList(llvm::StringRef ListFile, std::vector<Dependency> &Deps) {
  auto Buffer = llvm::MemoryBuffer::getFile(ListFile);
  if (!Buffer)
    return false;
  llvm::StringSet<> Seen;
  for (const Dependency &D : Deps)
    Seen.insert(D.Path);
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    // The textual format indents by include depth with dots.
    llvm::StringRef Path = Line.ltrim('.').ltrim(' ').rtrim('\r');
    if (Path.empty() || !Seen.insert(Path).second)
      continue;
    Dependency D;
    if (!describeDependency(Path, D))
      return false;
    Deps.push_back(std::move(D));
  }
  return true;
}

std::string serializeDependencies(const std::vector<Dependency> &Deps) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  for (const Dependency &D : Deps)
    OS << "dep " << D.Size << ' ' << D.MTime << ' ' << D.Hash << ' ' << D.Path
       << '\n';
  return Text;
}

bool parseDependencies(llvm::StringRef Text, std::vector<Dependency> &Deps) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    if (!Line.consume_front("dep "))
      return false;
    Dependency D;
    llvm::StringRef Size, MTime, Hash;
    std::tie(Size, Line) = Line.split(' ');
    std::tie(MTime, Line) = Line.split(' ');
    std::tie(Hash, Line) = Line.split(' ');
    if (Size.getAsInteger(10, D.Size) || MTime.getAsInteger(10, D.MTime) ||
        Hash.getAsInteger(10, D.Hash) || Line.empty())
      return false;
    D.Path = Line.str();
    Deps.push_back(std::move(D));
  }
  return true;
}

std::string defaultCacheDir() {
  if (const char *Dir = std::getenv("LIBTORCH_TIDY_CACHE_DIR"); Dir && *Dir)
    return Dir;
  llvm::SmallString<256> Path;
  if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg)
    Path = Xdg;
  else if (const char *Home = std::getenv("HOME"); Home && *Home)
    llvm::sys::path::append(Path, Home, ".cache");
  else
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/false, Path);
  llvm::sys::path::append(Path, "libtorch-tidy");
  return Path.str().str();
}

namespace {

/// A stored run: its exit code, what it printed, the fixes it exported and
/// the files it read.
/// An #include that was not found: a result with it stays valid only while
/// it is still not found.
struct MissingInclude {
  bool Angled = false;
  std::string Includer; // the file with the #include
  std::string Name;     // as written between the brackets or quotes
};

struct Entry {
  int ExitCode = 0;
  std::string Stdout, Stderr, Fixes, Payloads;
  bool HasFixes = false;
  std::vector<Dependency> Deps;
  std::vector<MissingInclude> Missing;
};

std::string serializeMissing(const std::vector<MissingInclude> &Missing) {
  std::string Text;
  for (const MissingInclude &M : Missing)
    Text += (M.Angled ? "<" : "\"") + M.Includer + "\t" + M.Name + "\n";
  return Text;
}

bool parseMissing(llvm::StringRef Text, std::vector<MissingInclude> &Missing) {
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    MissingInclude M;
    M.Angled = Line.consume_front("<");
    if (!M.Angled && !Line.consume_front("\""))
      return false;
    auto [Includer, Name] = Line.split('\t');
    if (Includer.empty() || Name.empty())
      return false;
    M.Includer = Includer.str();
    M.Name = Name.str();
    Missing.push_back(std::move(M));
  }
  return true;
}

/// The #includes a run with compiler errors did not find, from its exported
/// diagnostics; false when an error is about an #include this cannot tell
/// apart (a macro for a name), so that the result is not stored.
bool missingIncludes(llvm::StringRef Fixes,
                     std::vector<MissingInclude> &Missing) {
  tooling::TranslationUnitDiagnostics TU;
  llvm::yaml::Input YAML(Fixes);
  YAML >> TU;
  if (YAML.error())
    return false;
  for (const tooling::Diagnostic &D : TU.Diagnostics) {
    llvm::StringRef Message = D.Message.Message;
    if (D.DiagnosticName != "clang-diagnostic-error" ||
        !Message.starts_with("'") || !Message.contains("' file not found"))
      continue;
    MissingInclude M;
    M.Name = Message.drop_front().split("' file not found").first.str();
    M.Includer = D.Message.FilePath;
    auto Code = llvm::MemoryBuffer::getFile(M.Includer);
    if (!Code || D.Message.FileOffset >= (*Code)->getBufferSize())
      return false;
    char Open = (*Code)->getBuffer()[D.Message.FileOffset];
    if (Open != '<' && Open != '"')
      return false;
    M.Angled = Open == '<';
    Missing.push_back(std::move(M));
  }
  return true;
}

constexpr llvm::StringLiteral EntryMagic = "libtorch-tidy-cache 1\n";

std::string serializeEntry(const Entry &E) {
  std::string Text(EntryMagic);
  llvm::raw_string_ostream OS(Text);
  OS << "rc " << E.ExitCode << '\n';
  auto Blob = [&](llvm::StringRef Name, llvm::StringRef Data) {
    OS << "blob " << Name << ' ' << Data.size() << '\n' << Data << '\n';
  };
  Blob("stdout", E.Stdout);
  Blob("stderr", E.Stderr);
  if (E.HasFixes)
    Blob("fixes", E.Fixes);
  if (!E.Payloads.empty())
    Blob("payloads", E.Payloads);
  if (!E.Missing.empty())
    Blob("missing", serializeMissing(E.Missing));
  OS << "deps\n" << serializeDependencies(E.Deps);
  return Text;
}

std::optional<Entry> parseEntry(llvm::StringRef Text) {
  if (!Text.consume_front(EntryMagic) || !Text.consume_front("rc "))
    return std::nullopt;
  Entry E;
  llvm::StringRef RC;
  std::tie(RC, Text) = Text.split('\n');
  if (RC.getAsInteger(10, E.ExitCode))
    return std::nullopt;
  while (Text.consume_front("blob ")) {
    llvm::StringRef Header;
    std::tie(Header, Text) = Text.split('\n');
    auto [Name, SizeText] = Header.split(' ');
    size_t Size;
    if (SizeText.getAsInteger(10, Size) || Text.size() < Size + 1 ||
        Text[Size] != '\n')
      return std::nullopt;
    std::string Data = Text.take_front(Size).str();
    Text = Text.drop_front(Size + 1);
    if (Name == "stdout")
      E.Stdout = std::move(Data);
    else if (Name == "stderr")
      E.Stderr = std::move(Data);
    else if (Name == "payloads")
      E.Payloads = std::move(Data);
    else if (Name == "missing") {
      if (!parseMissing(Data, E.Missing))
        return std::nullopt;
    } else if (Name == "fixes") {
      E.Fixes = std::move(Data);
      E.HasFixes = true;
    } else
      return std::nullopt;
  }
  if (!Text.consume_front("deps\n") || !parseDependencies(Text, E.Deps))
    return std::nullopt;
  return E;
}

/// Whether a run had compiler errors, by its exported diagnostics.
bool hasCompilerErrors(const Entry &E) {
  return llvm::StringRef(E.Fixes).contains("clang-diagnostic-error");
}

/// The first of \p Missing that clang's header search finds now (or whose
/// search cannot run); null when all are still not found.
const MissingInclude *foundNow(const SourceCommand &Cmd, llvm::StringRef Source,
                               const std::vector<MissingInclude> &Missing) {
  for (const MissingInclude &M : Missing)
    if (includeIsFound(Cmd, Source, llvm::sys::path::parent_path(M.Includer),
                       M.Name, M.Angled)
            .value_or(true))
      return &M;
  return nullptr;
}

/// Whether stdout and stderr are the same file (a terminal, 2>&1): the
/// child then writes both to one file, so that their order is kept.
bool outputsMerged() {
  struct stat Out, Err;
  return fstat(1, &Out) == 0 && fstat(2, &Err) == 0 &&
         Out.st_dev == Err.st_dev && Out.st_ino == Err.st_ino;
}

/// The value of option \p Name (-name=V, --name=V, -name V) in Args.
std::vector<std::string> optionValues(const std::vector<std::string> &Args,
                                      llvm::StringRef Name) {
  std::vector<std::string> Values;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A(Args[I]);
    if (A == "--")
      break;
    if (!A.consume_front("-"))
      continue;
    A.consume_front("-");
    if (!A.consume_front(Name))
      continue;
    if (A.consume_front("="))
      Values.push_back(A.str());
    else if (A.empty() && I + 1 < Args.size())
      Values.push_back(Args[++I]);
  }
  return Values;
}

/// Everything besides the files read that decides a run's output: this
/// program, the command line, the compile command and the configuration
/// files clang-tidy may read.
std::string cacheKey(const CacheOptions &O,
                     const std::optional<SourceCommand> &Cmd) {
  llvm::SHA256 H;
  auto Add = [&](llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  };
  Add(EntryMagic);
  Add(LIBTORCH_TIDY_VERSION);
  fs::file_status Self;
  if (!fs::status(O.Self, Self))
    Add(std::to_string(Self.getSize()) + " " +
        std::to_string(nanoseconds(Self.getLastModificationTime())));
  llvm::SmallString<256> Cwd;
  fs::current_path(Cwd);
  Add(Cwd);
  for (const std::string &A : O.Args)
    // The fixes file is a new temporary name each run.
    if (!llvm::StringRef(A).contains("export-fixes"))
      Add(A);
  Add(O.Payloads ? "payloads" : "");
  Add(outputsMerged() ? "merged" : "");
  Add(O.Pch ? "pch" : "");
  if (Cmd) {
    Add(Cmd->Directory);
    for (const std::string &A : Cmd->CommandLine)
      Add(A);
  }
  // Configuration: every .clang-tidy from the file's directory up, and
  // --config-file.
  llvm::SmallString<256> Dir(O.Source);
  fs::make_absolute(Dir);
  llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  llvm::StringRef Up = llvm::sys::path::parent_path(Dir);
  std::vector<std::string> Configs = optionValues(O.Args, "config-file");
  for (; !Up.empty(); Up = llvm::sys::path::parent_path(Up)) {
    llvm::SmallString<256> Config(Up);
    llvm::sys::path::append(Config, ".clang-tidy");
    if (fs::exists(Config))
      Configs.push_back(Config.str().str());
  }
  for (const std::string &C : Configs) {
    Add(C);
    if (auto Buffer = llvm::MemoryBuffer::getFile(C))
      Add((*Buffer)->getBuffer());
  }
  for (const char *Var : {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"})
    if (const char *V = std::getenv(Var))
      Add(std::string(Var) + "=" + V);
  return llvm::toHex(H.final(), /*LowerCase=*/true);
}

std::string readAll(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return Buffer ? (*Buffer)->getBuffer().str() : "";
}

void explain(const CacheOptions &O, const llvm::Twine &What) {
  if (O.Explain)
    llvm::errs() << "libtorch-tidy: " << What << "\n";
}

/// Prints a run as the child printed it.
int replay(const Entry &E, const CacheOptions &O) {
  if (!E.Payloads.empty() && !loadPayloads(E.Payloads)) {
    llvm::errs() << "error: a cached result is malformed: run with "
                    "--no-cache\n";
    return 2;
  }
  llvm::outs() << E.Stdout;
  llvm::outs().flush();
  llvm::errs() << E.Stderr;
  if (E.HasFixes && !O.FixesFile.empty()) {
    std::string Error = writeFileAtomically(O.FixesFile, E.Fixes);
    if (!Error.empty()) {
      llvm::errs() << "error: " << Error << "\n";
      return 1;
    }
  }
  return E.ExitCode;
}

} // namespace

int runCachedAnalysis(const CacheOptions &O) {
  std::string Why;
  std::optional<SourceCommand> Cmd = compileCommandFor(O.Args, O.Source, Why);
  llvm::SmallString<256> EntryPath(O.Dir);
  llvm::sys::path::append(EntryPath, "results");
  std::string Key = cacheKey(O, Cmd);
  llvm::sys::path::append(EntryPath, Key.substr(0, 2), Key.substr(2));

  if (O.Cache && Cmd) {
    std::optional<Entry> Stored;
    if (auto Buffer = llvm::MemoryBuffer::getFile(EntryPath))
      Stored = parseEntry((*Buffer)->getBuffer());
    if (!Stored) {
      explain(O, "cache: miss for '" + O.Source + "' (no stored result)");
    } else {
      const Dependency *Changed = nullptr;
      for (const Dependency &D : Stored->Deps)
        if (!isUnchanged(D)) {
          Changed = &D;
          break;
        }
      // A missing #include that is found now: the errors may be gone.
      const MissingInclude *Found =
          Changed ? nullptr : foundNow(*Cmd, O.Source, Stored->Missing);
      if (Changed) {
        explain(O, "cache: miss for '" + O.Source + "' ('" + Changed->Path +
                       "' changed)");
      } else if (Found) {
        explain(O, "cache: miss for '" + O.Source + "' ('" + Found->Name +
                       "', not found before, is found now)");
      } else {
        explain(O, "cache: hit for '" + O.Source + "'");
        markCacheItemUsed(EntryPath);
        return replay(*Stored, O);
      }
    }
  } else if (O.Cache) {
    explain(O, "cache: not used for '" + O.Source + "' (" + Why + ")");
  }

  std::optional<PchUse> Pch;
  if (O.Pch && Cmd) {
    std::string PchWhy;
    Pch = prepareAutoPch(*Cmd, O.Source, O.Dir, PchWhy);
    if (!Pch)
      explain(O, "pch: none for '" + O.Source + "' (" + PchWhy + ")");
    else if (Pch->Built)
      explain(O, "pch: built for '" + O.Source + "' in " +
                     llvm::formatv("{0:F1}", Pch->Seconds) + " s");
    else {
      explain(O, "pch: reused for '" + O.Source + "'");
      markCacheItemUsed(Pch->Path);
    }
  }
  // A run that analyzed may have added a result or a PCH: keep the cache
  // under its limit (what this run uses stays).
  auto Trim = llvm::make_scope_exit([&] {
    if (!O.Cache && !Pch)
      return;
    TrimSummary T =
        trimCache(O.Dir, O.MaxBytes, Pch ? Pch->Path : "", EntryPath);
    if (T.Pchs || T.Results)
      explain(O, llvm::formatv("cache: over its limit of {0} bytes ({1}): "
                               "removed {2} precompiled header{3} and {4} "
                               "result{5}, the least recently used",
                               O.MaxBytes, T.BytesBefore, T.Pchs,
                               T.Pchs == 1 ? "" : "s", T.Results,
                               T.Results == 1 ? "" : "s")
                     .str());
    if (T.Leftovers)
      explain(O, llvm::formatv("cache: removed {0} precompiled header{1} "
                               "left half-built by a killed run",
                               T.Leftovers, T.Leftovers == 1 ? "" : "s")
                     .str());
  });

  llvm::SmallString<128> Out, Err, Headers, OwnFixes, PayloadFile;
  for (auto [Path, Suffix] :
       {std::pair{&Out, "out"}, std::pair{&Err, "err"},
        std::pair{&Headers, "headers"}, std::pair{&OwnFixes, "yaml"},
        std::pair{&PayloadFile, "json"}}) {
    if (std::error_code EC = createRunTempFile("cache", Suffix, *Path)) {
      llvm::errs() << "error: cannot create a temporary file: " << EC.message()
                   << "\n";
      return 1;
    }
  }
  auto RemoveTemps = llvm::make_scope_exit([&] {
    for (const llvm::SmallString<128> *P :
         {&Out, &Err, &Headers, &OwnFixes, &PayloadFile})
      fs::remove(*P);
  });
  // The exported fixes tell compiler errors apart; export them for the
  // cache when the command line does not.
  std::string FixesFile = O.FixesFile.empty() ? OwnFixes.str().str()
                                              : O.FixesFile;

  Dependency Before;
  bool SourceKnown = describeDependency(O.Source, Before);
  auto Start = std::chrono::system_clock::now();
  Entry E;
  auto RunChild = [&](bool WithPch) {
    fs::remove(FixesFile);
    std::vector<std::string> Child = {O.Self, ChildFlag.str()};
    if (O.Payloads)
      Child.push_back(("--payloads=" + PayloadFile).str());
    for (const char *A : {"-Xclang", "-header-include-file", "-Xclang",
                          Headers.c_str(), "-Xclang", "-sys-header-deps"})
      Child.push_back(std::string("--extra-arg-before=") + A);
    if (WithPch)
      for (const std::string &A : {std::string("-include-pch"), Pch->Path})
        Child.push_back("--extra-arg-before=" + A);
    if (O.FixesFile.empty())
      Child.push_back("--export-fixes=" + FixesFile);
    // The child writes to files: keep clang-tidy's colors for a terminal.
    bool ColorOption = false;
    for (const std::string &A : O.Args)
      ColorOption |= llvm::StringRef(A).ltrim('-').starts_with("use-color");
    if (!ColorOption && llvm::sys::Process::StandardOutIsDisplayed())
      Child.push_back("--use-color");
    Child.insert(Child.end(), O.Args.begin(), O.Args.end());
    std::vector<llvm::StringRef> Refs(Child.begin(), Child.end());
    std::optional<llvm::StringRef> Redirects[] = {
        std::nullopt, Out.str(), outputsMerged() ? Out.str() : Err.str()};
    std::string ExecError;
    bool Failed = false;
    E = Entry();
    E.ExitCode = llvm::sys::ExecuteAndWait(O.Self, Refs, std::nullopt,
                                           Redirects, 0, 0, &ExecError,
                                           &Failed);
    E.Stdout = readAll(Out);
    E.Stderr = readAll(Err);
    if (O.Payloads)
      E.Payloads = readAll(PayloadFile);
    if (fs::exists(FixesFile)) {
      E.Fixes = readAll(FixesFile);
      E.HasFixes = !O.FixesFile.empty();
    }
    if (Failed || E.ExitCode < 0)
      return ExecError.empty() ? std::string("crashed") : ExecError;
    return std::string();
  };
  std::string Failure = RunChild(Pch.has_value());
  // Compiler errors with the PCH may come from the PCH itself (flags that
  // differ, a header without include guard): the plain parse decides.
  if (Pch && (!Failure.empty() || hasCompilerErrors(E))) {
    explain(O, "pch: not used for '" + O.Source +
                   "' (the analysis with it had errors)");
    Pch.reset();
    Failure = RunChild(false);
  }
  llvm::outs() << E.Stdout;
  llvm::outs().flush();
  llvm::errs() << E.Stderr;
  if (Failure.empty() && !E.Payloads.empty() && !loadPayloads(E.Payloads))
    Failure = "its payloads are malformed";
  if (!Failure.empty()) {
    llvm::errs() << "error: the analysis of '" << O.Source
                 << "' failed: " << Failure << "\n";
    return 2;
  }
  int RC = E.ExitCode;

  // Store it unless a file changed while it ran. With compiler errors, the
  // #includes not found are stored too, each checked by clang's header
  // search now and at every replay: a header installed later is seen.
  if (!O.Cache || !Cmd || !SourceKnown)
    return RC;
  if (hasCompilerErrors(E)) {
    if (!missingIncludes(E.Fixes, E.Missing)) {
      explain(O, "cache: not stored (an #include not found cannot be "
                 "checked later)");
      return RC;
    }
    if (const MissingInclude *M = foundNow(*Cmd, O.Source, E.Missing)) {
      explain(O, "cache: not stored ('" + M->Name +
                     "' was not found, but a search finds it)");
      return RC;
    }
  }
  // The headers are described now, after the run: a time after its start
  // means one changed while it ran. The file and the PCH's headers were
  // described before it, so they are compared with the disk instead.
  int64_t Started = nanoseconds(Start);
  E.Deps.push_back(Before);
  if (!readHeaderList(Headers, E.Deps))
    return RC;
  for (const Dependency &D : llvm::ArrayRef(E.Deps).drop_front())
    if (D.MTime >= Started)
      return RC;
  if (!isUnchanged(Before))
    return RC;
  if (Pch) {
    for (const Dependency &D : Pch->Deps)
      if (!isUnchanged(D))
        return RC;
    E.Deps.insert(E.Deps.end(), Pch->Deps.begin(), Pch->Deps.end());
  }
  fs::create_directories(llvm::sys::path::parent_path(EntryPath));
  std::string Error = writeFileAtomically(EntryPath, serializeEntry(E));
  if (!Error.empty())
    explain(O, "cache: not stored: " + Error);
  return RC;
}

} // namespace torchtidy
