//===--- ProjectRun.cpp - libtorch-tidy -----------------------------------===//

#include "project/ProjectRun.h"
#include "project/CudaScan.h"
#include "export/MergeExports.h"
#include "support/TempFiles.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
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

std::string readText(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : "";
}

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// \p Args with what only the whole project knows given to the checks:
/// whether any file selects CUDA (torch-host-sync-in-loop's
/// DetectedProjectSelectsCuda). As a --config that inherits the .clang-tidy
/// files; left out when the command line has its own --config or
/// --config-file, which it would replace.
std::vector<std::string>
withProjectFacts(std::vector<std::string> Args,
                 const std::vector<std::string> &Files) {
  for (llvm::StringRef A : Args)
    if (A.ltrim('-').starts_with("config"))
      return Args;
  llvm::Expected<bool> Cuda = projectSelectsCuda(Files);
  if (!Cuda) {
    llvm::consumeError(Cuda.takeError());
    return Args;
  }
  Args.push_back(std::string("--config={InheritParentConfig: true, "
                             "CheckOptions: {torch-host-sync-in-loop."
                             "DetectedProjectSelectsCuda: ") +
                 (*Cuda ? "true" : "false") + "}}");
  return Args;
}

} // namespace

int runProject(const ProjectOptions &O) {
  std::string Error;
  llvm::SmallString<256> DBPath(O.BuildDir);
  llvm::sys::path::append(DBPath, "compile_commands.json");
  if (!fs::exists(DBPath)) {
    llvm::errs() << "error: -p " << O.BuildDir
                 << ": no compile_commands.json there\n";
    return 2;
  }
  auto DB = tooling::JSONCompilationDatabase::loadFromFile(
      DBPath, Error, tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB) {
    llvm::errs() << "error: " << DBPath << ": "
                 << llvm::StringRef(Error).split('\n').first << "\n";
    return 2;
  }
  // In path order, whatever the database's: the output is the same from
  // run to run, whichever file finishes first.
  std::vector<std::string> Files = DB->getAllFiles();
  llvm::sort(Files);
  if (Files.empty()) {
    llvm::errs() << "error: -p " << O.BuildDir
                 << ": the compilation database lists no files\n";
    return 2;
  }
  std::vector<std::string> Args = withProjectFacts(O.Args, Files);
  unsigned Jobs = O.Jobs ? O.Jobs : std::thread::hardware_concurrency();
  // --fix in two processes at once could rewrite a shared header twice.
  if (O.Fix || Jobs == 0)
    Jobs = 1;
  bool Progress = llvm::sys::Process::StandardErrIsDisplayed();

  llvm::SmallString<128> Dir;
  if (std::error_code EC = createRunTempDirectory("project", Dir)) {
    llvm::errs() << "error: cannot create a temporary directory: "
                 << EC.message() << "\n";
    return 2;
  }

  llvm::Regex Finding(
      ": (warning|error|remark): .* \\[(torch-[a-z0-9-]+)(,.*)?\\]$");
  std::map<std::string, unsigned> ByCheck;
  unsigned Total = 0, Done = 0, ToolErrors = 0, LeftAlone = 0;
  std::vector<std::string> CompileErrors;
  std::vector<Child> Running;
  std::vector<std::string> ChildFindings(Files.size()),
      ChildSarif(Files.size());
  size_t Next = 0;
  double Start = seconds();

  // Each file's output in one piece, never interleaved with another's, and
  // in file order: a file's waits for those before it.
  std::vector<std::optional<std::pair<std::string, std::string>>> Outputs(
      Files.size());
  size_t Printed = 0;
  auto PrintReady = [&] {
    for (; Printed < Outputs.size() && Outputs[Printed]; ++Printed) {
      llvm::outs() << Outputs[Printed]->first;
      llvm::outs().flush();
      llvm::errs() << Outputs[Printed]->second;
      Outputs[Printed].reset();
    }
  };
  auto Launch = [&](size_t I) {
    Child C;
    C.File = I;
    std::string N = std::to_string(I);
    C.Out = Dir;
    llvm::sys::path::append(C.Out, N + ".out");
    C.Err = Dir;
    llvm::sys::path::append(C.Err, N + ".err");
    std::vector<std::string> Argv = {O.Self};
    Argv.insert(Argv.end(), Args.begin(), Args.end());
    if (!O.Findings.empty()) {
      C.Findings = Dir;
      llvm::sys::path::append(C.Findings, N + ".findings.json");
      Argv.push_back("--export-findings=" + C.Findings.str().str());
    }
    if (!O.Sarif.empty()) {
      C.Sarif = Dir;
      llvm::sys::path::append(C.Sarif, N + ".sarif");
      Argv.push_back("--export-sarif=" + C.Sarif.str().str());
      if (!O.SarifRoot.empty())
        Argv.push_back("--sarif-root=" + O.SarifRoot);
    }
    Argv.insert(Argv.end(), {"-p", O.BuildDir, Files[I]});
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
      PrintReady();
      ++ToolErrors;
      ++Done;
      return;
    }
    Running.push_back(std::move(C));
  };

  llvm::StringSet<> RunWarnings;
  auto Finish = [&](Child &C, int RC) {
    ++Done;
    std::string Out = readText(C.Out), Err = readText(C.Err);
    std::string Said;
    llvm::StringRef Rest(Err);
    while (!Rest.empty()) {
      auto [Line, Tail] = Rest.split('\n');
      Rest = Tail;
      // clang-tidy's per-file chatter says nothing a summary does not.
      if (Line.ends_with(" generated.") || Line.starts_with("Suppressed ") ||
          Line.starts_with("Use -header-filter") ||
          Line.starts_with("Found compiler error") || Line.trim().empty())
        continue;
      // Warnings about the run (an unknown check), said by every child:
      // once, at once, not with a file's output.
      if (Line.starts_with("libtorch-tidy: warning: ")) {
        if (RunWarnings.insert(Line).second) {
          if (Progress)
            llvm::errs() << "\r\033[K";
          llvm::errs() << Line << "\n";
        }
        continue;
      }
      Said += (Line + "\n").str();
    }
    llvm::StringRef Lines(Out);
    bool CompileError = false;
    while (!Lines.empty()) {
      auto [Line, Tail] = Lines.split('\n');
      Lines = Tail;
      llvm::SmallVector<llvm::StringRef, 4> M;
      if (Finding.match(Line, &M)) {
        ++ByCheck[M[2].str()];
        ++Total;
      }
      CompileError |= Line.contains("[clang-diagnostic-error]");
    }
    if (CompileError)
      CompileErrors.push_back(Files[C.File]);
    // 3: --fix left a read-only or changed file alone (the child said
    // which); the run goes on and ends with 3.
    if (RC == 3)
      ++LeftAlone;
    else if (RC < 0 || RC > 1) {
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
    PrintReady();
    if (Progress) {
      double Spent = seconds() - Start;
      double Left = Spent / Done * (Files.size() - Done);
      llvm::errs() << llvm::formatv("[{0}/{1}] {2} finding{3}, about {4} s "
                                    "left",
                                    Done, Files.size(), Total,
                                    Total == 1 ? "" : "s",
                                    static_cast<int>(Left + 0.5));
    }
  };

  while (Next < Files.size() || !Running.empty()) {
    while (Next < Files.size() && Running.size() < Jobs)
      Launch(Next++);
    bool Any = false;
    for (size_t I = 0; I < Running.size();) {
      llvm::sys::ProcessInfo PI = llvm::sys::Wait(Running[I].Process, 0);
      if (PI.Pid == 0) { // still running
        ++I;
        continue;
      }
      Finish(Running[I], PI.Pid == Running[I].Process.Pid ? PI.ReturnCode : -1);
      Running.erase(Running.begin() + I);
      Any = true;
    }
    if (!Any)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (Progress)
    llvm::errs() << "\r\033[K";

  // The children's exports, merged in file order.
  if (!O.Findings.empty())
    if (llvm::Error E = mergeFindings(ChildFindings, O.Findings)) {
      llvm::errs() << "error: --export-findings: "
                   << llvm::toString(std::move(E)) << "\n";
      ++ToolErrors;
    }
  if (!O.Sarif.empty())
    if (llvm::Error E = mergeSarif(ChildSarif, O.Sarif)) {
      llvm::errs() << "error: --export-sarif: " << llvm::toString(std::move(E))
                   << "\n";
      ++ToolErrors;
    }
  fs::remove_directories(Dir);

  llvm::outs() << llvm::formatv("libtorch-tidy: {0} file{1} in {2} s, {3} "
                                "finding{4}",
                                Files.size(), Files.size() == 1 ? "" : "s",
                                static_cast<int>(seconds() - Start + 0.5),
                                Total, Total == 1 ? "" : "s");
  llvm::outs() << (Total ? ":\n" : "\n");
  for (const auto &[Check, N] : ByCheck)
    llvm::outs() << llvm::formatv("  {0,-36} {1}\n", Check, N);
  llvm::sort(CompileErrors);
  if (!CompileErrors.empty()) {
    llvm::outs() << "  with compiler errors (analyzed as far as they parse): "
                 << CompileErrors.size() << "\n";
    for (const std::string &F : CompileErrors)
      llvm::outs() << "    " << F << "\n";
  }
  if (ToolErrors)
    return 2;
  if (LeftAlone)
    return 3;
  return Total && O.FailOnFindings ? 1 : 0;
}

} // namespace torchtidy
