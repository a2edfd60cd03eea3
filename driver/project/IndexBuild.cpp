//===--- IndexBuild.cpp - libtorch-tidy -----------------------------------===//

#include "project/IndexBuild.h"
#include "support/AtomicWrite.h"
#include "support/FieldHash.h"
#include "support/RunBasics.h"
#include "support/TempFiles.h"
#include "utils/ProjectIndex.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <optional>
#include <thread>

namespace torchtidy {

namespace {

namespace fs = llvm::sys::fs;
namespace ttu = clang::tidy::torch::utils;

llvm::Error failure(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

/// One file of the database: where its stored facts are, the hash of what
/// besides its files decides them.
struct IndexedFile {
  std::string Source;
  std::string FactsPath;
  std::string CommandHash;
  std::optional<ttu::FileFacts> Facts;
};

/// Whether the stored facts of \p F are fresh: same command, every file
/// they were read from unchanged. Fills F.Facts when they are.
bool loadFresh(IndexedFile &F) {
  std::string Stored = readText(F.FactsPath);
  auto [Hash, Json] = llvm::StringRef(Stored).split('\n');
  if (Hash != F.CommandHash)
    return false;
  llvm::Expected<ttu::FileFacts> Facts = ttu::parseFacts(Json);
  if (!Facts) {
    llvm::consumeError(Facts.takeError());
    return false;
  }
  for (const ttu::FileStamp &S : Facts->Inputs) {
    std::optional<ttu::FileStamp> Now = ttu::stampOf(S.Path);
    if (!Now || Now->Size != S.Size || Now->ModifiedNs != S.ModifiedNs)
      return false;
  }
  F.Facts = std::move(*Facts);
  return true;
}

/// The index children of the stale files, a few at a time.
class Reindexer {
public:
  Reindexer(const IndexOptions &O, llvm::StringRef TempDir)
      : O(O), TempDir(TempDir) {
    Jobs = O.Jobs ? O.Jobs : std::thread::hardware_concurrency();
    if (Jobs == 0)
      Jobs = 1;
  }

  /// Makes the facts of \p Stale; the files that failed.
  std::vector<std::string> run(std::vector<IndexedFile *> Stale) {
    size_t Next = 0;
    while (Next < Stale.size() || !Running.empty()) {
      while (Next < Stale.size() && Running.size() < Jobs)
        launch(*Stale[Next++]);
      if (!reap())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return Failed;
  }

private:
  struct Child {
    IndexedFile *File;
    llvm::sys::ProcessInfo Process;
    std::string Out;
  };

  void launch(IndexedFile &F) {
    Child C{&F, {}, ""};
    llvm::SmallString<128> Out(TempDir);
    llvm::sys::path::append(Out, std::to_string(Counter++) + ".facts");
    C.Out = Out.str().str();
    std::vector<std::string> Argv = {O.Self, "--index-facts=" + C.Out};
    Argv.insert(Argv.end(), O.CacheArgs.begin(), O.CacheArgs.end());
    Argv.insert(Argv.end(), O.ExtraArgs.begin(), O.ExtraArgs.end());
    Argv.insert(Argv.end(), {"-p", O.BuildDir, F.Source});
    std::vector<llvm::StringRef> Refs(Argv.begin(), Argv.end());
    // The analysis of a file with errors still has facts: its output says
    // nothing the index needs.
    std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""),
                                                  llvm::StringRef("/dev/null"),
                                                  llvm::StringRef("/dev/null")};
    std::string Error;
    bool ExecFailed = false;
    C.Process = llvm::sys::ExecuteNoWait(O.Self, Refs, std::nullopt,
                                         Redirects, 0, &Error, &ExecFailed);
    if (ExecFailed || !C.Process.Pid) {
      Failed.push_back(F.Source);
      return;
    }
    Running.push_back(std::move(C));
  }

  bool reap() {
    bool Any = false;
    for (size_t I = 0; I < Running.size();) {
      llvm::sys::ProcessInfo PI = llvm::sys::Wait(Running[I].Process, 0);
      if (PI.Pid == 0) {
        ++I;
        continue;
      }
      finish(Running[I]);
      Running.erase(Running.begin() + I);
      Any = true;
    }
    return Any;
  }

  void finish(Child &C) {
    IndexedFile &F = *C.File;
    std::string Json = readText(C.Out);
    fs::remove(C.Out);
    llvm::Expected<ttu::FileFacts> Facts = ttu::parseFacts(Json);
    if (!Facts) {
      llvm::consumeError(Facts.takeError());
      Failed.push_back(F.Source);
      return;
    }
    if (O.Explain)
      llvm::errs() << "libtorch-tidy: index: re-indexed '" << F.Source
                   << "'\n";
    // A failed store costs a re-index next time, nothing else.
    llvm::consumeError(writeFileAtomically(F.FactsPath,
                                           F.CommandHash + "\n" + Json));
    F.Facts = std::move(*Facts);
  }

  const IndexOptions &O;
  std::string TempDir;
  unsigned Jobs = 1;
  unsigned Counter = 0;
  std::vector<Child> Running;
  std::vector<std::string> Failed;
};

/// What names the program that makes the facts: a new build of it (another
/// collector) makes every file's facts again, as it makes every result
/// again.
std::string programStamp(llvm::StringRef Self) {
  std::optional<ttu::FileStamp> S = ttu::stampOf(Self);
  return S ? std::to_string(S->Size) + " " + std::to_string(S->ModifiedNs)
           : std::string();
}

llvm::Expected<std::vector<IndexedFile>>
databaseFiles(const IndexOptions &O, llvm::StringRef FactsDir) {
  llvm::SmallString<256> DBPath(O.BuildDir);
  llvm::sys::path::append(DBPath, "compile_commands.json");
  std::string Error;
  auto DB = clang::tooling::JSONCompilationDatabase::loadFromFile(
      DBPath, Error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB)
    return failure(DBPath + ": " + llvm::StringRef(Error).split('\n').first);
  std::vector<std::string> Sources = DB->getAllFiles();
  llvm::sort(Sources);
  std::string Program = programStamp(O.Self);
  std::vector<IndexedFile> Files;
  for (const std::string &Source : Sources) {
    IndexedFile F;
    F.Source = Source;
    llvm::SmallString<256> P(FactsDir);
    llvm::sys::path::append(P, hashFields({Source}).substr(0, 32) + ".facts");
    F.FactsPath = P.str().str();
    std::vector<std::string> Key = {Program, Source};
    for (const clang::tooling::CompileCommand &C :
         DB->getCompileCommands(Source)) {
      Key.push_back(C.Directory);
      Key.insert(Key.end(), C.CommandLine.begin(), C.CommandLine.end());
    }
    Key.insert(Key.end(), O.ExtraArgs.begin(), O.ExtraArgs.end());
    F.CommandHash = hashFields(Key);
    Files.push_back(std::move(F));
  }
  return Files;
}

llvm::Expected<std::vector<IndexedFile>>
indexedFiles(const IndexOptions &O, llvm::StringRef IndexPath) {
  llvm::SmallString<256> FactsDir(llvm::sys::path::parent_path(IndexPath));
  llvm::sys::path::append(FactsDir, "facts");
  if (std::error_code EC = fs::create_directories(FactsDir))
    return failure("cannot create '" + FactsDir + "': " + EC.message());
  return databaseFiles(O, FactsDir);
}

/// Takes \p Json, made for \p F by an analysis, as its facts, and stores
/// them; whether they could be read.
bool takeProvided(IndexedFile &F, llvm::StringRef Json) {
  llvm::Expected<ttu::FileFacts> Facts = ttu::parseFacts(Json);
  if (!Facts) {
    llvm::consumeError(Facts.takeError());
    return false;
  }
  llvm::consumeError(
      writeFileAtomically(F.FactsPath, (F.CommandHash + "\n" + Json).str()));
  F.Facts = std::move(*Facts);
  return true;
}

/// Writes \p Json to \p Path unless it holds it already; whether it
/// changed.
llvm::Expected<bool> writeIfChanged(llvm::StringRef Path,
                                    const std::string &Json) {
  // Unchanged facts leave the file (and the results checked against it)
  // alone.
  if (readText(Path) == Json)
    return false;
  if (llvm::Error E = writeFileAtomically(Path, Json))
    return std::move(E);
  return true;
}

} // namespace

std::string indexPathFor(llvm::StringRef CacheDir, llvm::StringRef BuildDir) {
  llvm::SmallString<256> Build(BuildDir);
  fs::make_absolute(Build);
  llvm::sys::path::remove_dots(Build, /*remove_dot_dot=*/true);
  // Absolute: clang-tidy reads it from the compile command's directory.
  llvm::SmallString<256> P(CacheDir);
  fs::make_absolute(P);
  llvm::sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  llvm::sys::path::append(P, "index",
                          hashFields({Build.str().str()}).substr(0, 32),
                          "index.json");
  return P.str().str();
}

llvm::Expected<std::string> ensureIndex(const IndexOptions &O,
                                        bool SelectsCuda) {
  std::string Path = indexPathFor(O.CacheDir, O.BuildDir);
  if (fs::exists(Path))
    return Path;
  llvm::Expected<std::vector<IndexedFile>> Files = indexedFiles(O, Path);
  if (!Files)
    return Files.takeError();
  std::vector<ttu::FileFacts> Fresh;
  for (IndexedFile &F : *Files)
    if (loadFresh(F))
      Fresh.push_back(std::move(*F.Facts));
  ttu::ProjectIndex Index = ttu::mergeFacts(Fresh);
  if (SelectsCuda)
    Index.setSelectsCuda(true);
  if (llvm::Error E = writeFileAtomically(Path, Index.serialize()))
    return std::move(E);
  return Path;
}

llvm::Expected<IndexRefresh>
refreshIndex(const IndexOptions &O,
             const llvm::StringMap<std::string> &Provided) {
  double Start = seconds();
  IndexRefresh R;
  R.Path = indexPathFor(O.CacheDir, O.BuildDir);
  llvm::Expected<std::vector<IndexedFile>> Files = indexedFiles(O, R.Path);
  if (!Files)
    return Files.takeError();
  std::vector<IndexedFile *> Stale;
  for (IndexedFile &F : *Files) {
    auto It = Provided.find(F.Source);
    if (It != Provided.end() && takeProvided(F, It->second))
      continue;
    if (!loadFresh(F))
      Stale.push_back(&F);
  }
  if (!Stale.empty()) {
    llvm::SmallString<128> TempDir;
    if (std::error_code EC = createRunTempDirectory("index", TempDir))
      return failure("cannot create a temporary directory: " + EC.message());
    R.Failed = Reindexer(O, TempDir).run(Stale);
    fs::remove_directories(TempDir);
  }
  std::vector<ttu::FileFacts> All;
  for (IndexedFile &F : *Files)
    if (F.Facts)
      All.push_back(std::move(*F.Facts));
  llvm::Expected<bool> Changed =
      writeIfChanged(R.Path, ttu::mergeFacts(All).serialize());
  if (!Changed)
    return Changed.takeError();
  R.Changed = *Changed;
  R.Files = static_cast<unsigned>(Files->size());
  R.Reindexed = static_cast<unsigned>(Stale.size());
  R.Seconds = seconds() - Start;
  return R;
}

} // namespace torchtidy
