//===--- ProjectRun.cpp - libtorch-tidy -----------------------------------===//

#include "project/ProjectRun.h"
#include "project/CudaScan.h"
#include "project/IndexBuild.h"
#include "export/MergeExports.h"
#include "support/RunBasics.h"
#include "support/TempFiles.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <map>
#include <optional>
#include <thread>

using namespace clang;

namespace torchtidy {

namespace {

namespace fs = llvm::sys::fs;

struct Child {
  size_t File;
  llvm::sys::ProcessInfo Process;
  llvm::SmallString<128> Out, Err, Findings, Sarif;
};

/// \p Args with what only the whole project knows given to the checks:
/// whether any file selects CUDA (unknown for a library without a program of
/// its own), as the global check option
/// TorchProjectSelectsCuda (torch-host-sync-in-loop reads it). As a --config
/// that inherits the .clang-tidy files; left out when the command line has
/// its own --config or --config-file (\p OwnConfig), which it would replace.
std::vector<std::string>
withProjectFacts(std::vector<std::string> Args, bool OwnConfig,
                 const std::vector<std::string> &Files,
                 const std::string &IndexPath) {
  if (OwnConfig)
    return Args;
  // The index holds the project's CUDA fact too: the child passes both.
  if (!IndexPath.empty()) {
    Args.push_back("--project-index=" + IndexPath);
    return Args;
  }
  llvm::Expected<ProjectScan> Scan = scanProject(Files);
  if (!Scan) {
    llvm::consumeError(Scan.takeError());
    return Args;
  }
  // A library without a program of its own leaves the device to its users.
  if (!Scan->SelectsCuda && !Scan->HasProgram)
    return Args;
  Args.push_back(std::string("--config={InheritParentConfig: true, "
                             "CheckOptions: {TorchProjectSelectsCuda: ") +
                 (Scan->SelectsCuda ? "true" : "false") + "}}");
  return Args;
}

/// An error that ends a whole-project run with exit code 2.
llvm::Error usageError(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

/// The files of the compilation database in \p BuildDir, in path order
/// whatever the database's: the output is the same from run to run,
/// whichever file finishes first.
llvm::Expected<std::vector<std::string>> databaseFiles(llvm::StringRef BuildDir) {
  llvm::SmallString<256> DBPath(BuildDir);
  llvm::sys::path::append(DBPath, "compile_commands.json");
  if (!fs::exists(DBPath))
    return usageError("-p " + BuildDir + ": no compile_commands.json there");
  std::string Error;
  auto DB = tooling::JSONCompilationDatabase::loadFromFile(
      DBPath, Error, tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB)
    return usageError(DBPath + ": " + llvm::StringRef(Error).split('\n').first);
  std::vector<std::string> Files = DB->getAllFiles();
  llvm::sort(Files);
  if (Files.empty())
    return usageError("-p " + BuildDir +
                      ": the compilation database lists no files");
  return Files;
}

/// Whether a line of a child's stderr is clang-tidy's per-file chatter,
/// which says nothing a summary does not.
bool isChatter(llvm::StringRef Line) {
  return Line.ends_with(" generated.") || Line.starts_with("Suppressed ") ||
         Line.starts_with("Use -header-filter") ||
         Line.starts_with("Found compiler error") || Line.trim().empty();
}

/// One whole-project run: the children, their output in file order, the
/// tallies for the summary.
class ProjectRunner {
public:
  ProjectRunner(const ProjectOptions &O, std::vector<std::string> Files,
                llvm::StringRef Dir)
      : O(O), Files(std::move(Files)), Dir(Dir) {
    Jobs = O.Jobs ? O.Jobs : std::thread::hardware_concurrency();
    // --fix in two processes at once could rewrite a shared header twice.
    if (O.Fix || Jobs == 0)
      Jobs = 1;
  }

  int run() {
    Start = seconds();
    if (O.Pch)
      preparePchs();
    std::string IndexPath = prepareIndex();
    Args = withProjectFacts(O.Args, O.OwnConfig, Files, IndexPath);
    // Without --fix, the analysis collects the facts: the index is merged
    // after it, and the files whose answers changed run again.
    Collect = !IndexPath.empty() && !O.Fix;
    runPhase();
    if (Collect && indexChanged()) {
      Collect = false;
      runPhase();
    }
    printReady();
    if (Progress)
      llvm::errs() << "\r\033[K";
    writeExports();
    printSummary();
    if (ToolErrors)
      return 2;
    if (LeftAlone)
      return 3;
    return Total && O.FailOnFindings ? 1 : 0;
  }

private:
  /// The index the children read: brought up to date first with --fix
  /// (whose children cannot run twice), else the one there is; "" without.
  std::string prepareIndex() {
    if (!O.Index)
      return "";
    if (O.Fix) {
      llvm::Expected<IndexRefresh> R = refreshIndex(*O.Index);
      if (R)
        return R->Path;
      noteNoIndex(R.takeError());
      return "";
    }
    llvm::Expected<ProjectScan> Scan = scanProject(Files);
    if (!Scan)
      llvm::consumeError(Scan.takeError());
    llvm::Expected<std::string> Path =
        ensureIndex(*O.Index, Scan && Scan->SelectsCuda);
    if (Path)
      return *Path;
    noteNoIndex(Path.takeError());
    return "";
  }

  /// The first phase: every file's PCH found or built, each once (a child
  /// that finds its PCH being built by another leaves it to that one).
  void preparePchs() {
    double Began = seconds();
    std::vector<std::string> Said(Files.size());
    size_t Next = 0, Finished = 0;
    unsigned Built = 0;
    std::vector<std::pair<size_t, llvm::sys::ProcessInfo>> Busy;
    while (Next < Files.size() || !Busy.empty()) {
      while (Next < Files.size() && Busy.size() < Jobs) {
        std::optional<llvm::sys::ProcessInfo> PI = launchPch(Next);
        if (PI)
          Busy.push_back({Next, *PI});
        else
          ++Finished;
        ++Next;
      }
      bool Any = false;
      for (size_t I = 0; I < Busy.size();) {
        llvm::sys::ProcessInfo PI = llvm::sys::Wait(Busy[I].second, 0);
        if (PI.Pid == 0) {
          ++I;
          continue;
        }
        Said[Busy[I].first] = readText(tempFile(Busy[I].first, ".pch"));
        Built += llvm::StringRef(Said[Busy[I].first]).starts_with("built ");
        Busy.erase(Busy.begin() + I);
        ++Finished;
        Any = true;
        if (Progress)
          llvm::errs() << llvm::formatv(
              "\r\033[K[{0}/{1}] precompiling LibTorch's headers first: {2} "
              "PCH{3} built",
              Finished, Files.size(), Built, Built == 1 ? "" : "s");
      }
      if (!Any)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (Progress)
      llvm::errs() << "\r\033[K";
    if (O.Explain || Progress)
      llvm::errs() << pchSummary(Said, Built, seconds() - Began);
  }

  /// "N files share K PCHs, B built in S s", said after the PCH phase.
  std::string pchSummary(const std::vector<std::string> &Said, unsigned Built,
                         double Spent) const {
    llvm::StringSet<> Pchs;
    size_t With = 0;
    for (llvm::StringRef Line : Said) {
      llvm::StringRef Verb, Rest;
      std::tie(Verb, Rest) = Line.trim().split(' ');
      if (Verb == "none" || Verb.empty())
        continue;
      ++With;
      Pchs.insert(Rest.split(' ').first);
    }
    return llvm::formatv("libtorch-tidy: LibTorch's headers precompiled first: "
                         "{0} of {1} files share {2} PCH{3}, {4} built in "
                         "{5} s\n",
                         With, Files.size(), Pchs.size(),
                         Pchs.size() == 1 ? "" : "s", Built,
                         static_cast<int>(Spent + 0.5))
        .str();
  }

  /// File \p I's --prepare-pch child; std::nullopt when it cannot run (the
  /// analysis will say so).
  std::optional<llvm::sys::ProcessInfo> launchPch(size_t I) const {
    std::vector<std::string> Argv = {O.Self};
    Argv.insert(Argv.end(), O.Args.begin(), O.Args.end());
    Argv.insert(Argv.end(), {"--prepare-pch", "-p", O.BuildDir, Files[I]});
    std::vector<llvm::StringRef> Refs(Argv.begin(), Argv.end());
    llvm::SmallString<128> Out = tempFile(I, ".pch");
    std::optional<llvm::StringRef> Redirects[] = {
        llvm::StringRef(""), Out.str(), llvm::StringRef("")};
    bool Failed = false;
    llvm::sys::ProcessInfo PI = llvm::sys::ExecuteNoWait(
        O.Self, Refs, std::nullopt, Redirects, 0, nullptr, &Failed);
    if (Failed || !PI.Pid)
      return std::nullopt;
    return PI;
  }

  static void noteNoIndex(llvm::Error E) {
    llvm::errs() << "libtorch-tidy: note: no project index: "
                 << llvm::toString(std::move(E)) << "\n";
  }

  /// Merges the facts the analysis collected into the index; whether it
  /// changed.
  bool indexChanged() {
    llvm::StringMap<std::string> Provided;
    for (size_t I = 0; I < Files.size(); ++I) {
      std::string Json = readText(tempFile(I, ".facts"));
      if (!Json.empty())
        Provided[Files[I]] = std::move(Json);
    }
    llvm::Expected<IndexRefresh> R = refreshIndex(*O.Index, Provided);
    if (!R) {
      noteNoIndex(R.takeError());
      return false;
    }
    for (const std::string &F : R->Failed)
      llvm::errs() << "libtorch-tidy: note: the project index has no facts "
                      "of '"
                   << F << "'\n";
    if (O.Index->Explain)
      llvm::errs() << "libtorch-tidy: index: " << Provided.size()
                   << " file(s) of facts from the analysis, "
                   << R->Reindexed << " re-indexed; the index "
                   << (R->Changed ? "changed: every file runs again, "
                                    "replaying the results whose index "
                                    "answers hold"
                                  : "is unchanged")
                   << "\n";
    return R->Changed;
  }

  /// One run of every file, its output and tallies replacing any before.
  void runPhase() {
    Outputs.assign(Files.size(), std::nullopt);
    ChildFindings.assign(Files.size(), "");
    ChildSarif.assign(Files.size(), "");
    ByCheck.clear();
    CompileErrors.clear();
    Total = Done = ToolErrors = LeftAlone = 0;
    Printed = 0;
    ++Phase;
    runAll();
  }

  const ProjectOptions &O;
  std::vector<std::string> Files;
  std::string Dir;
  std::vector<std::string> Args;
  unsigned Jobs = 1;
  bool Progress = llvm::sys::Process::StandardErrIsDisplayed();
  llvm::Regex Finding{
      ": (warning|error|remark): .* \\[(torch-[a-z0-9-]+)(,.*)?\\]$"};
  std::map<std::string, unsigned> ByCheck;
  unsigned Total = 0, Done = 0, ToolErrors = 0, LeftAlone = 0;
  std::vector<std::string> CompileErrors;
  std::vector<Child> Running;
  /// Each file's output in one piece, never interleaved with another's, and
  /// in file order: a file's waits for those before it.
  std::vector<std::optional<std::pair<std::string, std::string>>> Outputs;
  size_t Printed = 0;
  std::vector<std::string> ChildFindings, ChildSarif;
  llvm::StringSet<> RunWarnings;
  /// The children collect facts for the index; their output waits for the
  /// index (a second run may replace it).
  bool Collect = false;
  /// Which run of the files this is: each has its own temporary files (a
  /// child's output redirection does not truncate).
  unsigned Phase = 0;
  double Start = 0;

  void runAll() {
    size_t Next = 0;
    while (Next < Files.size() || !Running.empty()) {
      while (Next < Files.size() && Running.size() < Jobs)
        launch(Next++);
      if (!reapFinished())
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  /// Finishes the children that ended; whether any did.
  bool reapFinished() {
    bool Any = false;
    for (size_t I = 0; I < Running.size();) {
      llvm::sys::ProcessInfo PI = llvm::sys::Wait(Running[I].Process, 0);
      if (PI.Pid == 0) { // still running
        ++I;
        continue;
      }
      finish(Running[I], PI.Pid == Running[I].Process.Pid ? PI.ReturnCode : -1);
      Running.erase(Running.begin() + I);
      Any = true;
    }
    return Any;
  }

  void printReady() {
    for (; Printed < Outputs.size() && Outputs[Printed]; ++Printed) {
      llvm::outs() << Outputs[Printed]->first;
      llvm::outs().flush();
      llvm::errs() << Outputs[Printed]->second;
      Outputs[Printed].reset();
    }
  }

  /// The temporary file of file \p I's child with \p Suffix.
  llvm::SmallString<128> tempFile(size_t I, llvm::StringRef Suffix) const {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, std::to_string(Phase) + "-" +
                                   std::to_string(I) + Suffix);
    return P;
  }

  /// The command line of file \p I's child, which writes its exports to
  /// \p C's files.
  std::vector<std::string> childArgv(size_t I, Child &C) const {
    std::vector<std::string> Argv = {O.Self};
    Argv.insert(Argv.end(), Args.begin(), Args.end());
    if (!O.Findings.empty()) {
      C.Findings = tempFile(I, ".findings.json");
      Argv.push_back("--export-findings=" + C.Findings.str().str());
    }
    if (!O.Sarif.empty()) {
      C.Sarif = tempFile(I, ".sarif");
      Argv.push_back("--export-sarif=" + C.Sarif.str().str());
      if (!O.SarifRoot.empty())
        Argv.push_back("--sarif-root=" + O.SarifRoot);
    }
    if (Collect)
      Argv.push_back("--collect-facts=" + tempFile(I, ".facts").str().str());
    Argv.insert(Argv.end(), {"-p", O.BuildDir, Files[I]});
    return Argv;
  }

  void launch(size_t I) {
    Child C;
    C.File = I;
    C.Out = tempFile(I, ".out");
    C.Err = tempFile(I, ".err");
    std::vector<std::string> Argv = childArgv(I, C);
    std::vector<llvm::StringRef> Refs(Argv.begin(), Argv.end());
    std::optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""),
                                                  C.Out.str(), C.Err.str()};
    std::string ExecError;
    bool Failed = false;
    C.Process = llvm::sys::ExecuteNoWait(O.Self, Refs, std::nullopt, Redirects,
                                         0, &ExecError, &Failed);
    if (Failed || !C.Process.Pid) {
      Outputs[I] = {"",
                    "error: cannot run " + O.Self + ": " + ExecError + "\n"};
      printReady();
      ++ToolErrors;
      ++Done;
      return;
    }
    Running.push_back(std::move(C));
  }

  /// A child's stderr without the chatter; warnings about the run (an
  /// unknown check), said by every child, printed once, at once.
  std::string filterStderr(llvm::StringRef Err) {
    std::string Said;
    llvm::SmallVector<llvm::StringRef, 16> Lines;
    Err.split(Lines, '\n');
    for (llvm::StringRef Line : Lines) {
      if (isChatter(Line))
        continue;
      if (!Line.starts_with("libtorch-tidy: warning: ")) {
        Said += (Line + "\n").str();
        continue;
      }
      if (!RunWarnings.insert(Line).second)
        continue;
      if (Progress)
        llvm::errs() << "\r\033[K";
      llvm::errs() << Line << "\n";
    }
    return Said;
  }

  /// Counts the torch-* findings in a child's stdout; whether it shows a
  /// compiler error.
  bool countFindings(llvm::StringRef Out) {
    llvm::SmallVector<llvm::StringRef, 16> Lines;
    Out.split(Lines, '\n');
    bool CompileError = false;
    for (llvm::StringRef Line : Lines) {
      llvm::SmallVector<llvm::StringRef, 4> M;
      if (Finding.match(Line, &M)) {
        ++ByCheck[M[2].str()];
        ++Total;
      }
      CompileError |= Line.contains("[clang-diagnostic-error]");
    }
    return CompileError;
  }

  void finish(Child &C, int RC) {
    ++Done;
    std::string Out = readText(C.Out);
    std::string Said = filterStderr(readText(C.Err));
    if (countFindings(Out))
      CompileErrors.push_back(Files[C.File]);
    // 3: --fix left a read-only or changed file alone (the child said
    // which); the run goes on and ends with 3.
    if (RC == 3) {
      ++LeftAlone;
    } else if (RC < 0 || RC > 1) {
      Said += "error: the analysis of " + Files[C.File] +
              " failed (exit code " + std::to_string(RC) + ")\n";
      ++ToolErrors;
    }
    if (!C.Findings.empty())
      ChildFindings[C.File] = readText(C.Findings);
    if (!C.Sarif.empty())
      ChildSarif[C.File] = readText(C.Sarif);
    if (Progress)
      llvm::errs() << "\r\033[K";
    Outputs[C.File] = {std::move(Out), std::move(Said)};
    if (!Collect)
      printReady();
    if (Progress)
      printProgress();
  }

  void printProgress() {
    double Spent = seconds() - Start;
    double Left = Spent / Done * (Files.size() - Done);
    llvm::errs() << llvm::formatv("[{0}/{1}] {2} finding{3}, about {4} s "
                                  "left",
                                  Done, Files.size(), Total,
                                  Total == 1 ? "" : "s",
                                  static_cast<int>(Left + 0.5));
  }

  void writeExports() {
    auto Report = [&](llvm::Error E, llvm::StringRef Option) {
      if (!E)
        return;
      llvm::errs() << "error: " << Option << ": "
                   << llvm::toString(std::move(E)) << "\n";
      ++ToolErrors;
    };
    if (!O.Findings.empty())
      Report(mergeFindings(ChildFindings, O.Findings), "--export-findings");
    if (!O.Sarif.empty())
      Report(mergeSarif(ChildSarif, O.Sarif), "--export-sarif");
  }

  void printSummary() {
    llvm::outs() << llvm::formatv("libtorch-tidy: {0} file{1} in {2} s, {3} "
                                  "finding{4}",
                                  Files.size(), Files.size() == 1 ? "" : "s",
                                  static_cast<int>(seconds() - Start + 0.5),
                                  Total, Total == 1 ? "" : "s");
    llvm::outs() << (Total ? ":\n" : "\n");
    for (const auto &[Check, N] : ByCheck)
      llvm::outs() << llvm::formatv("  {0,-36} {1}\n", Check, N);
    llvm::sort(CompileErrors);
    if (CompileErrors.empty())
      return;
    llvm::outs() << "  with compiler errors (analyzed as far as they parse): "
                 << CompileErrors.size() << "\n";
    for (const std::string &F : CompileErrors)
      llvm::outs() << "    " << F << "\n";
  }
};

} // namespace

int runProject(const ProjectOptions &O) {
  llvm::Expected<std::vector<std::string>> Files = databaseFiles(O.BuildDir);
  if (!Files) {
    llvm::errs() << "error: " << llvm::toString(Files.takeError()) << "\n";
    return 2;
  }
  llvm::SmallString<128> Dir;
  if (std::error_code EC = createRunTempDirectory("project", Dir)) {
    llvm::errs() << "error: cannot create a temporary directory: "
                 << EC.message() << "\n";
    return 2;
  }
  auto RemoveDir = llvm::make_scope_exit([&] { fs::remove_directories(Dir); });
  return ProjectRunner(O, std::move(*Files), Dir).run();
}

} // namespace torchtidy
