//===--- AnalysisCache.cpp - libtorch-tidy --------------------------------===//

#include "cache/AnalysisCache.h"
#include "cache/AutoPch.h"
#include "cache/CacheTrim.h"
#include "export/DiagnosticReader.h"
#include "support/AtomicWrite.h"
#include "support/FieldHash.h"
#include "support/PayloadIO.h"
#include "utils/ProjectIndex.h"
#include "ProjectFactsCollector.h"
#include "support/TempFiles.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
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

/// The content hash of \p Path; std::nullopt when it cannot be read, which
/// the callers answer (as "changed" or with their own error).
static std::optional<uint64_t> hashFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return std::nullopt;
  return llvm::xxh3_64bits((*Buffer)->getBuffer());
}

static llvm::Error cacheError(const llvm::Twine &Why) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument), Why);
}

llvm::Expected<Dependency> describeDependency(llvm::StringRef Path) {
  fs::file_status Status;
  if (fs::status(Path, Status) || !fs::is_regular_file(Status))
    return cacheError("'" + Path + "' is not a regular file");
  std::optional<uint64_t> Hash = hashFile(Path);
  if (!Hash)
    return cacheError("cannot read '" + Path + "'");
  return Dependency{Path.str(), Status.getSize(),
                    nanoseconds(Status.getLastModificationTime()), *Hash};
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

std::vector<llvm::StringRef> headerListPaths(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  std::vector<llvm::StringRef> Paths;
  for (llvm::StringRef Line : Lines) {
    // The textual format indents by include depth with dots.
    llvm::StringRef Path = Line.ltrim('.').ltrim(' ').rtrim('\r');
    if (!Path.empty())
      Paths.push_back(Path);
  }
  return Paths;
}

llvm::Error readHeaderList(llvm::StringRef ListFile,
                           std::vector<Dependency> &Deps) {
  auto Buffer = llvm::MemoryBuffer::getFile(ListFile);
  if (!Buffer)
    return cacheError("cannot read the header list '" + ListFile + "'");
  llvm::StringSet<> Seen;
  for (const Dependency &D : Deps)
    Seen.insert(D.Path);
  for (llvm::StringRef Path : headerListPaths((*Buffer)->getBuffer())) {
    if (!Seen.insert(Path).second)
      continue;
    llvm::Expected<Dependency> D = describeDependency(Path);
    if (!D)
      return D.takeError();
    Deps.push_back(std::move(*D));
  }
  return llvm::Error::success();
}

std::string serializeDependencies(const std::vector<Dependency> &Deps) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  for (const Dependency &D : Deps)
    OS << "dep " << D.Size << ' ' << D.MTime << ' ' << D.Hash << ' ' << D.Path
       << '\n';
  return Text;
}

/// One line of serializeDependencies.
static llvm::Expected<Dependency> parseDependency(llvm::StringRef Line) {
  if (!Line.consume_front("dep "))
    return cacheError("not a dependency: '" + Line + "'");
  Dependency D;
  llvm::StringRef Size, MTime, Hash;
  std::tie(Size, Line) = Line.split(' ');
  std::tie(MTime, Line) = Line.split(' ');
  std::tie(Hash, Line) = Line.split(' ');
  if (Size.getAsInteger(10, D.Size) || MTime.getAsInteger(10, D.MTime) ||
      Hash.getAsInteger(10, D.Hash) || Line.empty())
    return cacheError("a malformed dependency");
  D.Path = Line.str();
  return D;
}

llvm::Expected<std::vector<Dependency>>
parseDependencies(llvm::StringRef Text) {
  std::vector<Dependency> Deps;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef Line : Lines) {
    llvm::Expected<Dependency> D = parseDependency(Line);
    if (!D)
      return D.takeError();
    Deps.push_back(std::move(*D));
  }
  return Deps;
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

/// An #include that was not found: a result with it stays valid only while
/// it is still not found.
struct MissingInclude {
  bool Angled = false;
  std::string Includer; // the file with the #include
  std::string Name;     // as written between the brackets or quotes
};

/// A stored run: its exit code, what it printed, the fixes it exported and
/// the files it read.
struct Entry {
  int ExitCode = 0;
  std::string Stdout, Stderr, Fixes, Payloads;
  /// The file's facts for the project index; the index answers the run's
  /// checks got.
  std::string Facts, Answers;
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

/// The #include that \p D, a compiler error, says was not found; nothing
/// when \p D is another error, an error when it cannot be told apart (a
/// macro for a name).
llvm::Expected<std::optional<MissingInclude>>
missingIncludeOf(const tooling::Diagnostic &D) {
  llvm::StringRef Message = D.Message.Message;
  if (D.DiagnosticName != "clang-diagnostic-error" ||
      !Message.starts_with("'") || !Message.contains("' file not found"))
    return std::nullopt;
  MissingInclude M;
  M.Name = Message.drop_front().split("' file not found").first.str();
  M.Includer = D.Message.FilePath;
  auto Code = llvm::MemoryBuffer::getFile(M.Includer);
  if (!Code || D.Message.FileOffset >= (*Code)->getBufferSize())
    return cacheError("cannot read the #include of '" + M.Name + "'");
  char Open = (*Code)->getBuffer()[D.Message.FileOffset];
  if (Open != '<' && Open != '"')
    return cacheError("the #include of '" + M.Name + "' is a macro");
  M.Angled = Open == '<';
  return M;
}

/// The #includes a run with compiler errors did not find, from its exported
/// diagnostics; an error when one cannot be checked later, so that the
/// result is not stored.
llvm::Expected<std::vector<MissingInclude>>
missingIncludes(llvm::StringRef Fixes) {
  llvm::Expected<std::vector<tooling::Diagnostic>> Diagnostics =
      parseDiagnostics(Fixes);
  if (!Diagnostics)
    return Diagnostics.takeError();
  std::vector<MissingInclude> Missing;
  for (const tooling::Diagnostic &D : *Diagnostics) {
    llvm::Expected<std::optional<MissingInclude>> M = missingIncludeOf(D);
    if (!M)
      return M.takeError();
    if (*M)
      Missing.push_back(std::move(**M));
  }
  return Missing;
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
  if (!E.Facts.empty())
    Blob("facts", E.Facts);
  if (!E.Answers.empty())
    Blob("answers", E.Answers);
  if (!E.Missing.empty())
    Blob("missing", serializeMissing(E.Missing));
  OS << "deps\n" << serializeDependencies(E.Deps);
  return Text;
}

/// Puts the blob \p Name of a stored entry into \p E; false for a name no
/// entry has or a malformed blob.
bool setBlob(Entry &E, llvm::StringRef Name, std::string Data) {
  if (Name == "stdout")
    E.Stdout = std::move(Data);
  else if (Name == "stderr")
    E.Stderr = std::move(Data);
  else if (Name == "payloads")
    E.Payloads = std::move(Data);
  else if (Name == "facts")
    E.Facts = std::move(Data);
  else if (Name == "answers")
    E.Answers = std::move(Data);
  else if (Name == "missing")
    return parseMissing(Data, E.Missing);
  else if (Name == "fixes") {
    E.Fixes = std::move(Data);
    E.HasFixes = true;
  } else
    return false;
  return true;
}

/// The entry stored as \p Text; std::nullopt when it is malformed (an entry
/// of another version, a write cut short), which is a miss like no entry.
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
        Text[Size] != '\n' || !setBlob(E, Name, Text.take_front(Size).str()))
      return std::nullopt;
    Text = Text.drop_front(Size + 1);
  }
  if (!Text.consume_front("deps\n"))
    return std::nullopt;
  llvm::Expected<std::vector<Dependency>> Deps = parseDependencies(Text);
  if (!Deps) {
    llvm::consumeError(Deps.takeError());
    return std::nullopt;
  }
  E.Deps = std::move(*Deps);
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
  for (const MissingInclude &M : Missing) {
    llvm::Expected<bool> Found =
        includeIsFound(Cmd, Source, llvm::sys::path::parent_path(M.Includer),
                       M.Name, M.Angled);
    // A search that cannot run cannot vouch that it is still missing.
    if (!Found) {
      llvm::consumeError(Found.takeError());
      return &M;
    }
    if (*Found)
      return &M;
  }
  return nullptr;
}

/// Whether stdout and stderr are the same file (a terminal, 2>&1): the
/// child then writes both to one file, so that their order is kept.
bool outputsMerged() {
  struct stat Out, Err;
  return fstat(1, &Out) == 0 && fstat(2, &Err) == 0 &&
         Out.st_dev == Err.st_dev && Out.st_ino == Err.st_ino;
}

/// The configuration files clang-tidy may read for \p O.Source: every
/// .clang-tidy from the file's directory up, and --config-file.
std::vector<std::string> configFiles(const CacheOptions &O) {
  llvm::SmallString<256> Dir(O.Source);
  fs::make_absolute(Dir);
  llvm::sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  std::vector<std::string> Configs = O.ConfigFiles;
  for (llvm::StringRef Up = llvm::sys::path::parent_path(Dir); !Up.empty();
       Up = llvm::sys::path::parent_path(Up)) {
    llvm::SmallString<256> Config(Up);
    llvm::sys::path::append(Config, ".clang-tidy");
    if (fs::exists(Config))
      Configs.push_back(Config.str().str());
  }
  return Configs;
}

/// This program and how it runs: its version and binary, the directory,
/// what the command line and the outputs make it do.
void addRunToKey(FieldHash &Key, const CacheOptions &O) {
  Key.add(EntryMagic);
  Key.add(LIBTORCH_TIDY_VERSION);
  fs::file_status Self;
  if (!fs::status(O.Self, Self))
    Key.add(std::to_string(Self.getSize()) + " " +
            std::to_string(nanoseconds(Self.getLastModificationTime())));
  llvm::SmallString<256> Cwd;
  fs::current_path(Cwd);
  Key.add(Cwd);
  for (const std::string &A : O.Args)
    // The fixes file is a new temporary name each run.
    if (!llvm::StringRef(A).contains("export-fixes"))
      Key.add(A);
  Key.add(O.Payloads ? "payloads" : "");
  // Facts collected next to the checks change nothing the run prints.
  Key.add(O.FactsOnly ? "facts-only" : "");
  Key.add(O.IndexPath.empty() ? "" : "index");
  Key.add(outputsMerged() ? "merged" : "");
  Key.add(O.Pch ? "pch" : "");
}

} // namespace

namespace {

/// The option name of \p Arg ("-checks=x" -> "checks"), or "".
llvm::StringRef optionNameOf(llvm::StringRef Arg) {
  if (!Arg.starts_with("-"))
    return "";
  return Arg.ltrim('-').split('=').first;
}

} // namespace

std::vector<std::string> withFactsCollector(std::vector<std::string> Args) {
  const std::string Collector = clang::tidy::torch::ProjectFactsCollectorName;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef Name = optionNameOf(Args[I]);
    if (Name != "checks")
      continue;
    // "-checks=X" or "-checks X": the command line's list, then the
    // collector.
    size_t At = llvm::StringRef(Args[I]).contains('=') ? I : I + 1;
    if (At < Args.size())
      Args[At] += "," + Collector;
    return Args;
  }
  // clang-tidy adds the command line's list to the configuration's.
  Args.push_back("--checks=" + Collector);
  return Args;
}

std::string resultKey(const CacheOptions &O, const SourceCommand *Cmd) {
  FieldHash Key;
  addRunToKey(Key, O);
  if (Cmd) {
    Key.add(Cmd->Directory);
    for (const std::string &A : Cmd->CommandLine)
      Key.add(A);
  }
  for (const std::string &C : configFiles(O)) {
    Key.add(C);
    if (auto Buffer = llvm::MemoryBuffer::getFile(C))
      Key.add((*Buffer)->getBuffer());
  }
  for (const char *Var : {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH"})
    if (const char *V = std::getenv(Var))
      Key.add(std::string(Var) + "=" + V);
  return Key.hex();
}

namespace {

std::string readAll(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  return Buffer ? (*Buffer)->getBuffer().str() : "";
}

void explain(const CacheOptions &O, const llvm::Twine &What) {
  if (O.Explain)
    llvm::errs() << "libtorch-tidy: " << What << "\n";
}

std::string plural(unsigned N) { return N == 1 ? "" : "s"; }

/// Writes the run's facts for the project index; whether it could. Stored
/// facts get the stamps their inputs have now (the replay checked their
/// contents), so that the index does not take them for stale.
bool writeFacts(const Entry &E, const CacheOptions &O) {
  if (llvm::Error Error = writeFileAtomically(
          O.FactsFile, clang::tidy::torch::utils::restampFacts(E.Facts))) {
    llvm::errs() << "error: " << llvm::toString(std::move(Error)) << "\n";
    return false;
  }
  return true;
}

/// Prints a run as the child printed it.
int replay(const Entry &E, const CacheOptions &O) {
  // The index child prints nothing.
  if (O.FactsOnly)
    return writeFacts(E, O) ? E.ExitCode : 2;
  if (!O.FactsFile.empty() && !writeFacts(E, O))
    return 2;
  if (!E.Payloads.empty()) {
    if (llvm::Error Malformed = loadPayloads(E.Payloads)) {
      llvm::consumeError(std::move(Malformed));
      llvm::errs() << "error: a cached result is malformed: run with "
                      "--no-cache\n";
      return 2;
    }
  }
  llvm::outs() << E.Stdout;
  llvm::outs().flush();
  llvm::errs() << E.Stderr;
  if (E.HasFixes && !O.FixesFile.empty()) {
    if (llvm::Error Error = writeFileAtomically(O.FixesFile, E.Fixes)) {
      llvm::errs() << "error: " << llvm::toString(std::move(Error)) << "\n";
      return 1;
    }
  }
  return E.ExitCode;
}

/// The temporary files of one analysis child, removed with it.
struct ChildFiles {
  llvm::SmallString<128> Out, Err, Headers, OwnFixes, Payloads, Facts, Answers;

  std::error_code create() {
    for (auto [Path, Suffix] :
         {std::pair{&Out, "out"}, std::pair{&Err, "err"},
          std::pair{&Headers, "headers"}, std::pair{&OwnFixes, "yaml"},
          std::pair{&Payloads, "json"}, std::pair{&Facts, "facts"},
          std::pair{&Answers, "answers"}})
      if (std::error_code EC = createRunTempFile("cache", Suffix, *Path))
        return EC;
    return {};
  }
  ~ChildFiles() {
    for (const llvm::SmallString<128> *P :
         {&Out, &Err, &Headers, &OwnFixes, &Payloads, &Facts, &Answers})
      if (!P->empty())
        fs::remove(*P);
  }
};

/// One analysis of one file through the cache: look the result up, else
/// run the child (with the automatic PCH when there is one), store what it
/// did, and keep the cache under its limit.
class CachedRun {
public:
  explicit CachedRun(const CacheOptions &O) : O(O) {}

  int run() {
    lookUpCommand();
    if (std::optional<int> RC = replayStored())
      return *RC;
    preparePch();
    int RC = analyze();
    // A run that analyzed may have added a result or a PCH: keep the cache
    // under its limit (what this run uses stays).
    trim();
    return RC;
  }

private:
  void lookUpCommand() {
    llvm::Expected<SourceCommand> Found = compileCommandFor(O.Compile, O.Source);
    if (Found)
      Cmd = std::move(*Found);
    else
      NoCommand = llvm::toString(Found.takeError());
    std::string Key = resultKey(O, Cmd ? &*Cmd : nullptr);
    EntryPath = O.Dir;
    llvm::sys::path::append(EntryPath, "results", Key.substr(0, 2),
                            Key.substr(2));
  }

  /// The stored run's exit code after replaying it, when one is valid.
  std::optional<int> replayStored() {
    if (!O.Cache)
      return std::nullopt;
    if (!Cmd) {
      explain(O, "cache: not used for '" + O.Source + "' (" + NoCommand + ")");
      return std::nullopt;
    }
    std::optional<Entry> Stored;
    if (auto Buffer = llvm::MemoryBuffer::getFile(EntryPath))
      Stored = parseEntry((*Buffer)->getBuffer());
    if (!Stored) {
      explain(O, "cache: miss for '" + O.Source + "' (no stored result)");
      return std::nullopt;
    }
    if (std::optional<std::string> Why = staleBecause(*Stored)) {
      explain(O, "cache: miss for '" + O.Source + "' (" + *Why + ")");
      return std::nullopt;
    }
    explain(O, "cache: hit for '" + O.Source + "'");
    markCacheItemUsed(EntryPath);
    return replay(*Stored, O);
  }

  /// Why \p Stored is no longer valid; std::nullopt when it is.
  std::optional<std::string> staleBecause(const Entry &Stored) const {
    for (const Dependency &D : Stored.Deps)
      if (!isUnchanged(D))
        return "'" + D.Path + "' changed";
    if (!O.IndexPath.empty()) {
      std::string Changed = changedAnswer(Stored.Answers);
      if (!Changed.empty())
        return "the project index's answer to '" + Changed + "' changed";
    }
    // A missing #include that is found now: the errors may be gone.
    if (const MissingInclude *Found = foundNow(*Cmd, O.Source, Stored.Missing))
      return "'" + Found->Name + "', not found before, is found now";
    return std::nullopt;
  }

  /// The first index answer of a stored run that the index at
  /// O.IndexPath no longer gives, or "".
  std::string changedAnswer(llvm::StringRef Answers) const {
    llvm::SmallString<256> Source(O.Source);
    fs::make_absolute(Source);
    llvm::SmallString<256> Real;
    if (!fs::real_path(Source, Real))
      Source = Real;
    std::string Why;
    std::shared_ptr<const clang::tidy::torch::utils::ProjectIndex> Index =
        clang::tidy::torch::utils::loadProjectIndex(O.IndexPath, Source, Why);
    return clang::tidy::torch::utils::changedIndexAnswer(Index.get(),
                                                         Answers);
  }

  void preparePch() {
    if (!O.Pch || !Cmd)
      return;
    llvm::Expected<PchUse> Use = prepareAutoPch(*Cmd, O.Source, O.Dir);
    if (!Use) {
      explain(O, "pch: none for '" + O.Source + "' (" +
                     llvm::toString(Use.takeError()) + ")");
      return;
    }
    Pch = std::move(*Use);
    if (Pch->Built) {
      explain(O, "pch: built for '" + O.Source + "' in " +
                     llvm::formatv("{0:F1}", Pch->Seconds) + " s");
      return;
    }
    explain(O, "pch: reused for '" + O.Source + "'");
    markCacheItemUsed(Pch->Path);
  }

  void trim() {
    if (!O.Cache && !Pch)
      return;
    TrimSummary T =
        trimCache(O.Dir, O.MaxBytes, Pch ? Pch->Path : "", EntryPath);
    if (T.Pchs || T.Results)
      explain(O, llvm::formatv("cache: over its limit of {0} bytes ({1}): "
                               "removed {2} precompiled header{3} and {4} "
                               "result{5}, the least recently used",
                               O.MaxBytes, T.BytesBefore, T.Pchs,
                               plural(T.Pchs), T.Results, plural(T.Results))
                     .str());
    if (T.Leftovers)
      explain(O, llvm::formatv("cache: removed {0} precompiled header{1} "
                               "left half-built by a killed run",
                               T.Leftovers, plural(T.Leftovers))
                     .str());
  }

  /// Runs the child, prints what it printed, and stores the run; returns
  /// its exit code, or 1 or 2 when it could not run.
  int analyze() {
    if (std::error_code EC = Files.create()) {
      llvm::errs() << "error: cannot create a temporary file: " << EC.message()
                   << "\n";
      return 1;
    }
    // The exported fixes tell compiler errors apart; export them for the
    // cache when the command line does not.
    FixesFile = O.FixesFile.empty() ? Files.OwnFixes.str().str() : O.FixesFile;
    llvm::Expected<Dependency> Before = describeDependency(O.Source);
    auto Start = std::chrono::system_clock::now();
    std::string Failure = runChild(Pch.has_value());
    // Compiler errors with the PCH may come from the PCH itself (flags that
    // differ, a header without include guard): the plain parse decides.
    if (Pch && (!Failure.empty() || hasCompilerErrors(E))) {
      explain(O, "pch: not used for '" + O.Source +
                     "' (the analysis with it had errors)");
      Pch.reset();
      Failure = runChild(false);
    }
    if (!O.FactsOnly)
      Failure = printOutput(std::move(Failure));
    if (!Failure.empty()) {
      llvm::consumeError(Before.takeError());
      llvm::errs() << "error: the analysis of '" << O.Source
                   << "' failed: " << Failure << "\n";
      return 2;
    }
    int RC = E.ExitCode;
    if (!O.FactsFile.empty() && !writeFacts(E, O))
      RC = 2;
    if (!Before) {
      // A source that cannot be described cannot be checked at a replay.
      llvm::consumeError(Before.takeError());
      return RC;
    }
    store(*Before, nanoseconds(Start));
    return RC;
  }

  /// Prints what the child printed and loads its payloads; why that
  /// failed, or \p Failure.
  std::string printOutput(std::string Failure) {
    llvm::outs() << E.Stdout;
    llvm::outs().flush();
    llvm::errs() << E.Stderr;
    if (Failure.empty() && !E.Payloads.empty() &&
        llvm::errorToBool(loadPayloads(E.Payloads)))
      return "its payloads are malformed";
    return Failure;
  }

  /// The child's command line: this program as plain clang-tidy, with the
  /// header list, the PCH and the exports this run needs.
  std::vector<std::string> childArgs(bool WithPch) const {
    std::vector<std::string> Child = {O.Self, ChildFlag.str()};
    if (O.Payloads)
      Child.push_back(("--payloads=" + Files.Payloads).str());
    if (!O.FactsFile.empty())
      Child.push_back(
          ((O.FactsOnly ? "--facts-only=" : "--facts=") + Files.Facts).str());
    const bool Collects = !O.FactsFile.empty() && !O.FactsOnly;
    if (!O.IndexPath.empty())
      Child.push_back(("--answers=" + Files.Answers).str());
    std::string Headers = Files.Headers.str().str();
    for (llvm::StringRef A : {"-Xclang", "-header-include-file", "-Xclang",
                              Headers.c_str(), "-Xclang", "-sys-header-deps"})
      Child.push_back(("--extra-arg-before=" + A).str());
    if (WithPch)
      for (const std::string &A : {std::string("-include-pch"), Pch->Path})
        Child.push_back("--extra-arg-before=" + A);
    if (O.FixesFile.empty())
      Child.push_back("--export-fixes=" + FixesFile);
    // The child writes to files: keep clang-tidy's colors for a terminal.
    if (!O.UserSetColor && llvm::sys::Process::StandardOutIsDisplayed())
      Child.push_back("--use-color");
    if (Collects) {
      std::vector<std::string> Args = withFactsCollector(O.Args);
      Child.insert(Child.end(), Args.begin(), Args.end());
    } else {
      Child.insert(Child.end(), O.Args.begin(), O.Args.end());
    }
    return Child;
  }

  /// Runs the child into E; returns why it failed, or "".
  std::string runChild(bool WithPch) {
    fs::remove(FixesFile);
    std::vector<std::string> Child = childArgs(WithPch);
    std::vector<llvm::StringRef> Refs(Child.begin(), Child.end());
    std::optional<llvm::StringRef> Redirects[] = {
        std::nullopt, Files.Out.str(),
        outputsMerged() ? Files.Out.str() : Files.Err.str()};
    std::string ExecError;
    bool Failed = false;
    E = Entry();
    E.ExitCode = llvm::sys::ExecuteAndWait(O.Self, Refs, std::nullopt,
                                           Redirects, 0, 0, &ExecError,
                                           &Failed);
    E.Stdout = readAll(Files.Out);
    E.Stderr = readAll(Files.Err);
    if (O.Payloads)
      E.Payloads = readAll(Files.Payloads);
    if (!O.FactsFile.empty())
      E.Facts = readAll(Files.Facts);
    if (!O.IndexPath.empty())
      E.Answers = readAll(Files.Answers);
    if (fs::exists(FixesFile)) {
      E.Fixes = readAll(FixesFile);
      E.HasFixes = !O.FixesFile.empty();
    }
    if (Failed || E.ExitCode < 0)
      return ExecError.empty() ? std::string("crashed") : ExecError;
    return std::string();
  }

  /// Whether the run's #includes not found can be stored: each is checked
  /// by clang's header search now and at every replay, so that a header
  /// installed later is seen.
  bool missingIncludesStorable() {
    if (!hasCompilerErrors(E))
      return true;
    llvm::Expected<std::vector<MissingInclude>> Missing =
        missingIncludes(E.Fixes);
    if (!Missing) {
      llvm::consumeError(Missing.takeError());
      explain(O, "cache: not stored (an #include not found cannot be "
                 "checked later)");
      return false;
    }
    E.Missing = std::move(*Missing);
    if (const MissingInclude *M = foundNow(*Cmd, O.Source, E.Missing)) {
      explain(O, "cache: not stored ('" + M->Name +
                     "' was not found, but a search finds it)");
      return false;
    }
    return true;
  }

  /// The files the run read, unless one changed while it ran. The headers
  /// are described now, after the run: a time after its start means one
  /// changed meanwhile. The file and the PCH's headers were described
  /// before it, so they are compared with the disk instead.
  bool collectDependencies(const Dependency &Before, int64_t Started) {
    E.Deps.push_back(Before);
    if (llvm::Error Unreadable = readHeaderList(Files.Headers, E.Deps)) {
      llvm::consumeError(std::move(Unreadable));
      return false;
    }
    for (const Dependency &D : llvm::ArrayRef(E.Deps).drop_front())
      if (D.MTime >= Started)
        return false;
    if (!isUnchanged(Before))
      return false;
    if (!Pch)
      return true;
    if (!llvm::all_of(Pch->Deps, isUnchanged))
      return false;
    E.Deps.insert(E.Deps.end(), Pch->Deps.begin(), Pch->Deps.end());
    return true;
  }

  /// Stores the run unless a file changed while it ran.
  void store(const Dependency &Before, int64_t Started) {
    if (!O.Cache || !Cmd || !missingIncludesStorable() ||
        !collectDependencies(Before, Started))
      return;
    fs::create_directories(llvm::sys::path::parent_path(EntryPath));
    if (llvm::Error Error = writeFileAtomically(EntryPath, serializeEntry(E)))
      explain(O, "cache: not stored: " + llvm::toString(std::move(Error)));
  }

  const CacheOptions &O;
  std::optional<SourceCommand> Cmd;
  std::string NoCommand; // why there is no Cmd
  llvm::SmallString<256> EntryPath;
  std::optional<PchUse> Pch;
  ChildFiles Files;
  std::string FixesFile;
  Entry E; // the child's run
};

} // namespace

int preparePchOnly(const CacheOptions &O) {
  llvm::Expected<SourceCommand> Cmd = compileCommandFor(O.Compile, O.Source);
  if (!Cmd) {
    llvm::outs() << "none " << llvm::toString(Cmd.takeError()) << "\n";
    return 0;
  }
  llvm::Expected<PchUse> Use =
      prepareAutoPch(*Cmd, O.Source, O.Dir, PchBusy::Skip);
  if (!Use) {
    llvm::outs() << "none " << llvm::toString(Use.takeError()) << "\n";
    return 0;
  }
  if (Use->Busy) {
    llvm::outs() << "busy " << Use->Path << "\n";
  } else if (Use->Built) {
    llvm::outs() << "built " << Use->Path << " "
                 << llvm::formatv("{0:F1}", Use->Seconds) << "\n";
  } else {
    markCacheItemUsed(Use->Path);
    llvm::outs() << "reused " << Use->Path << "\n";
  }
  return 0;
}

int runCachedAnalysis(const CacheOptions &O) {
  return CachedRun(O).run();
}

} // namespace torchtidy
