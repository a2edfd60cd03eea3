//===--- LibTorchTidyMain.cpp - the libtorch-tidy driver ------------------===//
//
// clang-tidy's own command line (-p, -checks, -config, -fix, -export-fixes,
// -line-filter, -list-checks, ...) with the torch checks linked in, plus
// --export-findings=FILE for the runtime verifier, --export-sarif=FILE
// (--sarif-root=DIR) for code scanning, and --verify (--verify-html=FILE,
// --verify-json=FILE) to run the verifier on the findings right after the
// analysis: one command that analyzes and verifies.
//
//===----------------------------------------------------------------------===//

#include "cache/AnalysisCache.h"
#include "cache/CacheTrim.h"
#include "export/FindingsExport.h"
#include "cli/InputCheck.h"
#include "project/ProjectRun.h"
#include "support/AtomicWrite.h"
#include "support/PayloadIO.h"
#include "support/SafeFix.h"
#include "export/SarifExport.h"
#include "support/TempFiles.h"
#include "cli/TorchFlags.h"
#include "TorchTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include "utils/FindingPayload.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <csignal>
#include <cstdlib>
#include <optional>
#include <string>
#include <sys/prctl.h>
#include <unistd.h>
#include <vector>

namespace torchtidy {
static clang::tidy::ClangTidyModuleRegistry::Add<clang::tidy::torch::TorchModule>
    Registration(clang::tidy::torch::ModuleName,
                 clang::tidy::torch::ModuleDescription);
} // namespace torchtidy

namespace {

/// libtorch-tidy-verify: $LIBTORCH_TIDY_VERIFY, next to this program (an
/// install), in the build tree beside it, or on PATH.
std::string findVerifier(const char *Argv0) {
  if (const char *Env = std::getenv("LIBTORCH_TIDY_VERIFY"); Env && *Env)
    return Env;
  static int Anchor;
  std::string Self = llvm::sys::fs::getMainExecutable(Argv0, &Anchor);
  llvm::StringRef Dir = llvm::sys::path::parent_path(Self);
  llvm::SmallString<256> Installed(Dir), BuildTree(Dir);
  llvm::sys::path::append(Installed, "libtorch-tidy-verify");
  llvm::sys::path::append(BuildTree, "..", "runtime-verify",
                          "libtorch-tidy-verify");
  for (const llvm::SmallString<256> &P : {Installed, BuildTree})
    if (llvm::sys::fs::can_execute(P))
      return P.str().str();
  auto OnPath = llvm::sys::findProgramByName("libtorch-tidy-verify");
  return OnPath ? *OnPath : "";
}

/// Whether the command line analyzes source files (not --list-checks and
/// the like) without -p and none of them has a compilation database.
bool needsDefaultFlags(const std::vector<const char *> &Args) {
  bool Sources = false;
  for (const char *Arg : llvm::ArrayRef(Args).drop_front()) {
    llvm::StringRef A(Arg);
    if (A.starts_with("-")) {
      llvm::StringRef Name = A.ltrim('-');
      if (Name == "p" || Name.starts_with("p=") ||
          Name.starts_with("list-checks") || Name.starts_with("dump-config") ||
          Name == "help" || Name == "version")
        return false;
      continue;
    }
    if (!llvm::sys::fs::is_regular_file(A))
      continue;
    if (torchtidy::hasCompilationDatabase(A))
      return false;
    Sources = true;
  }
  return Sources;
}

/// The -p directory of a whole-project run: -p without source files (and
/// not --list-checks and the like).
std::optional<std::string>
projectBuildDir(const std::vector<const char *> &Args) {
  std::optional<std::string> Dir;
  for (size_t I = 1; I < Args.size(); ++I) {
    llvm::StringRef A(Args[I]);
    if (A.starts_with("-")) {
      llvm::StringRef Name = A.ltrim('-');
      if ((Name == "p") && I + 1 < Args.size())
        Dir = Args[++I];
      else if (Name.consume_front("p="))
        Dir = Name.str();
      else if (Name.starts_with("list-checks") ||
               Name.starts_with("dump-config") || Name == "help" ||
               Name == "version")
        return std::nullopt;
      continue;
    }
    if (llvm::sys::fs::is_regular_file(A))
      return std::nullopt;
  }
  return Dir;
}

/// Started by another libtorch-tidy ($LIBTORCH_TIDY_PARENT names it): get
/// SIGTERM when it dies, even by SIGKILL. Then name ourselves to our own
/// children (analysis children, the verifier), so that a killed run leaves
/// nothing running. False when the parent is already gone.
bool bindToParent() {
  if (const char *Parent = std::getenv("LIBTORCH_TIDY_PARENT")) {
    pid_t Expected = static_cast<pid_t>(std::atol(Parent));
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != Expected)
      return false;
  }
  ::setenv("LIBTORCH_TIDY_PARENT", std::to_string(::getpid()).c_str(), 1);
  return true;
}

} // namespace

int main(int argc, const char **argv) {
  namespace torch = torchtidy;
  if (!bindToParent())
    return 128 + SIGTERM;
  // The analysis child of a cached run: plain clang-tidy.
  if (argc > 1 && llvm::StringRef(argv[1]) == torch::ChildFlag) {
    // --payloads=FILE: the payloads for --export-findings go there.
    std::vector<const char *> Child = {argv[0]};
    int First = 2;
    llvm::StringRef PayloadFile;
    if (argc > 2 && llvm::StringRef(argv[2]).starts_with("--payloads=")) {
      clang::tidy::torch::utils::enablePayloads();
      PayloadFile = llvm::StringRef(argv[2]).drop_front(11);
      First = 3;
    }
    Child.insert(Child.end(), argv + First, argv + argc);
    int RC = clang::tidy::clangTidyMain(static_cast<int>(Child.size()),
                                        Child.data());
    if (!PayloadFile.empty()) {
      if (llvm::Error Error = torch::writeFileAtomically(
              PayloadFile, torch::serializePayloads())) {
        llvm::errs() << "error: " << llvm::toString(std::move(Error)) << "\n";
        return 2;
      }
    }
    return RC;
  }
  // Take our options out of the command line (before any "--"), and have
  // clang-tidy export its diagnostics for them.
  std::vector<const char *> Args;
  std::string Findings, Sarif, SarifRoot, Fixes, VerifyHtml, VerifyJson;
  bool Verify = false, FailOnFindings = false;
  bool UseCache = true, UsePch = true, ExplainCache = false;
  std::string CacheDir = torch::defaultCacheDir();
  std::string CacheMaxText;
  bool CacheMaxGiven = false;
  unsigned Jobs = 0;
  bool CompilerArgs = false;
  for (int I = 0; I < argc; ++I) {
    llvm::StringRef A(argv[I]);
    CompilerArgs |= A == "--";
    llvm::StringRef Flag = A;
    if (!CompilerArgs && I > 0 && Flag.consume_front("-")) {
      Flag.consume_front("-");
      // --NAME=VALUE or --NAME VALUE; false when Flag is another option.
      std::string Error;
      auto Value = [&](llvm::StringRef Name, std::string &Out) {
        llvm::StringRef Rest = Flag;
        if (!Rest.consume_front(Name) || (!Rest.empty() && Rest[0] != '='))
          return false;
        if (Rest.consume_front("="))
          Out = Rest.str();
        else if (I + 1 < argc)
          Out = argv[++I];
        if (Out.empty())
          Error = ("--" + Name + " needs a " +
                   (Name == "sarif-root" ? "directory" : "file name"))
                      .str();
        return true;
      };
      if (Value("export-findings", Findings) || Value("export-sarif", Sarif) ||
          Value("sarif-root", SarifRoot)) {
        if (!Error.empty()) {
          llvm::errs() << "error: " << Error << "\n";
          return 1;
        }
        continue;
      }
      // -j N, -jN, --jobs=N: files in parallel in a whole-project run.
      std::string JobsText;
      if ((Flag.starts_with("j") && Flag != "j" &&
           Flag.drop_front().find_first_not_of("0123456789") ==
               llvm::StringRef::npos) ||
          Flag == "j" || Value("jobs", JobsText)) {
        if (Flag.starts_with("j") && Flag != "j")
          JobsText = Flag.drop_front().str();
        else if (Flag == "j" && I + 1 < argc)
          JobsText = argv[++I];
        if (llvm::StringRef(JobsText).getAsInteger(10, Jobs) || !Jobs) {
          llvm::errs() << "error: -j needs a positive number of jobs\n";
          return 2;
        }
        continue;
      }
      if (Flag == "fail-on-findings") {
        FailOnFindings = true;
        continue;
      }
      if (Flag == "no-cache" || Flag == "no-pch" || Flag == "cache-explain") {
        UseCache &= Flag != "no-cache";
        UsePch &= Flag != "no-pch";
        ExplainCache |= Flag == "cache-explain";
        continue;
      }
      if (Value("cache-max-size", CacheMaxText)) {
        CacheMaxGiven = true;
        continue;
      }
      if (Value("cache-dir", CacheDir)) {
        if (CacheDir.empty()) {
          llvm::errs() << "error: --cache-dir needs a directory\n";
          return 2;
        }
        continue;
      }
      if (Flag == "verify" || Flag.starts_with("verify-html=") ||
          Flag.starts_with("verify-json=")) {
        Verify = true;
        if (Flag.consume_front("verify-html="))
          VerifyHtml = Flag.str();
        else if (Flag.consume_front("verify-json="))
          VerifyJson = Flag.str();
        continue;
      }
      if (Flag.consume_front("export-fixes="))
        Fixes = Flag.str();
    }
    Args.push_back(argv[I]);
  }
  llvm::Expected<uint64_t> CacheMax = CacheMaxGiven
                                          ? torch::parseByteSize(CacheMaxText)
                                          : torch::defaultCacheMaxBytes();
  if (!CacheMax) {
    // Only a value that was set can be malformed.
    llvm::errs() << (CacheMaxGiven ? "error: --cache-max-size: "
                                   : "error: $LIBTORCH_TIDY_CACHE_MAX_SIZE: ")
                 << llvm::toString(CacheMax.takeError()) << "\n";
    return 2;
  }
  if (!SarifRoot.empty() && Sarif.empty()) {
    llvm::errs() << "error: --sarif-root needs --export-sarif\n";
    return 1;
  }
  if (!SarifRoot.empty() && !llvm::sys::fs::is_directory(SarifRoot)) {
    llvm::errs() << "error: --sarif-root: '" << SarifRoot
                 << "' is not a directory\n";
    return 1;
  }
  // A source file on the command line, even a missing one, makes it a run on
  // that file and not on the whole project.
  torchtidy::CommandLine CL =
      torchtidy::parseCommandLine(Args);
  std::optional<std::string> ProjectDir =
      CompilerArgs || !CL.Sources.empty() ? std::nullopt
                                          : projectBuildDir(Args);
  if (!ProjectDir && (Jobs || FailOnFindings)) {
    llvm::errs() << "error: -j and --fail-on-findings are for whole-project "
                    "runs: -p BUILD_DIR without source files\n";
    return 2;
  }
  // Files that cannot be analyzed are named and left out.
  std::vector<std::string> Refused;
  if (int RC = torchtidy::checkInputs(CL, ProjectDir.value_or(""),
                                               Refused))
    return RC;
  torchtidy::dropSources(Args, Refused);
  if (!ProjectDir)
    torchtidy::beginFixes(Args);
  // No compile database and no flags after "--": C++17 and LibTorch's
  // headers, found as CMake and pip users have them, rather than clang-tidy's
  // bare defaults.
  std::vector<std::string> DefaultFlags;
  if (!ProjectDir && !CompilerArgs && needsDefaultFlags(Args)) {
    std::string From;
    DefaultFlags = torchtidy::defaultTorchFlags(From);
    if (From == "none found")
      llvm::errs() << "libtorch-tidy: note: no compile database and no "
                      "LibTorch found (Torch_DIR, CMAKE_PREFIX_PATH, python3 "
                      "torch, libtorch-dev); analyzing with -std=c++17\n";
    Args.push_back("--");
    for (const std::string &F : DefaultFlags)
      Args.push_back(F.c_str());
  }
  // One file, analyzed and not fixed, goes through the result cache and the
  // automatic PCH (AnalysisCache.h).
  bool Cacheable = !ProjectDir && CL.Sources.size() == 1 && !CL.Fix &&
                   CL.Analyzes && (UseCache || UsePch);
  for (const char *A : llvm::ArrayRef(Args).drop_front()) {
    llvm::StringRef Name = llvm::StringRef(A).ltrim('-');
    if (llvm::StringRef(A) == "--")
      break;
    Cacheable &= !Name.contains("check-profile") &&
                 !(Name.starts_with("export-fixes") && Fixes.empty());
  }
  auto Analyze = [&](bool Payloads) {
    if (!Cacheable)
      return torch::fixExitCode(clang::tidy::clangTidyMain(
          static_cast<int>(Args.size()), Args.data()));
    torch::CacheOptions O;
    static int Anchor;
    O.Self = llvm::sys::fs::getMainExecutable(argv[0], &Anchor);
    O.Args.assign(Args.begin() + 1, Args.end());
    O.Source = CL.Sources.front();
    O.FixesFile = Fixes;
    O.Dir = CacheDir;
    O.Payloads = Payloads;
    O.Cache = UseCache;
    O.Pch = UsePch;
    O.Explain = ExplainCache;
    O.MaxBytes = *CacheMax;
    O.UserSetColor = llvm::any_of(O.Args, [](llvm::StringRef A) {
      return A.ltrim('-').starts_with("use-color");
    });
    return torch::runCachedAnalysis(O);
  };
  if (!ProjectDir && Findings.empty() && Sarif.empty() && !Verify)
    return torch::inputExitCode(Analyze(false));
  std::string Verifier;
  llvm::SmallString<128> TempFindings;
  if (Verify) {
    Verifier = findVerifier(argv[0]);
    if (Verifier.empty()) {
      llvm::errs() << "error: --verify: libtorch-tidy-verify not found (it is "
                      "built with LibTorch; set LIBTORCH_TIDY_VERIFY)\n";
      return 1;
    }
    if (Findings.empty()) {
      if (std::error_code EC =
              torch::createRunTempFile("findings", "json", TempFindings)) {
        llvm::errs() << "error: cannot create a temporary file: "
                     << EC.message() << "\n";
        return 1;
      }
      Findings = TempFindings.str().str();
    }
  }

  int RC = 0;
  if (ProjectDir) {
    torchtidy::ProjectOptions P;
    static int Anchor;
    P.Self = llvm::sys::fs::getMainExecutable(argv[0], &Anchor);
    P.BuildDir = *ProjectDir;
    P.Jobs = Jobs;
    P.FailOnFindings = FailOnFindings;
    P.Findings = Findings;
    P.Sarif = Sarif;
    P.SarifRoot = SarifRoot;
    for (size_t I = 1; I < Args.size(); ++I) {
      llvm::StringRef A(Args[I]);
      if (A == "-p" || A == "--p") {
        ++I;
        continue;
      }
      if (A.starts_with("-p=") || A.starts_with("--p="))
        continue;
      P.Fix |= A.ltrim('-').starts_with("fix");
      P.Args.push_back(A.str());
    }
    // Each file's child uses the same cache.
    if (!UseCache)
      P.Args.insert(P.Args.begin(), "--no-cache");
    if (!UsePch)
      P.Args.insert(P.Args.begin(), "--no-pch");
    if (ExplainCache)
      P.Args.insert(P.Args.begin(), "--cache-explain");
    P.Args.insert(P.Args.begin(), "--cache-dir=" + CacheDir);
    P.Args.insert(P.Args.begin(),
                  "--cache-max-size=" + std::to_string(*CacheMax));
    RC = torchtidy::runProject(P);
    if (RC == 2 || !Verify) {
      if (!TempFindings.empty())
        llvm::sys::fs::remove(TempFindings);
      return RC;
    }
  } else {
    if (!Findings.empty())
      clang::tidy::torch::utils::enablePayloads();
    std::string FixesArg;
    llvm::SmallString<128> TempFixes;
    if (Fixes.empty()) {
      if (std::error_code EC =
              torch::createRunTempFile("fixes", "yaml", TempFixes)) {
        llvm::errs() << "error: cannot create a temporary file: "
                     << EC.message() << "\n";
        return 1;
      }
      // clang-tidy writes the file only when there are diagnostics.
      llvm::sys::fs::remove(TempFixes);
      Fixes = TempFixes.str().str();
      FixesArg = "--export-fixes=" + Fixes;
      Args.insert(Args.begin() + 1, FixesArg.c_str());
    }
    // --fix rewrites the sources before the export reads them, and the
    // diagnostics' offsets are into the originals: keep those of the files on
    // the command line.
    llvm::StringMap<std::string> Originals;
    if (!Sarif.empty() || !Findings.empty())
      for (const char *Arg : llvm::ArrayRef(Args).drop_front()) {
        llvm::StringRef A(Arg);
        if (A == "--")
          break;
        if (A.starts_with("-") || !llvm::sys::fs::is_regular_file(A))
          continue;
        llvm::SmallString<256> Abs(A);
        llvm::sys::fs::make_absolute(Abs);
        llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
        if (auto Buffer = llvm::MemoryBuffer::getFile(A))
          Originals[Abs] = (*Buffer)->getBuffer().str();
      }
    RC = torch::inputExitCode(Analyze(!Findings.empty()));
    std::string Error, SarifError;
    if (!Findings.empty())
      if (llvm::Error E =
              torchtidy::exportFindings(Fixes, Findings, Originals))
        Error = llvm::toString(std::move(E));
    if (!Sarif.empty())
      if (llvm::Error E =
              torchtidy::exportSarif(Fixes, Sarif, SarifRoot, Originals))
        SarifError = llvm::toString(std::move(E));
    if (!TempFixes.empty())
      llvm::sys::fs::remove(TempFixes);
    if (!Error.empty())
      llvm::errs() << "error: --export-findings: " << Error << "\n";
    if (!SarifError.empty())
      llvm::errs() << "error: --export-sarif: " << SarifError << "\n";
    if (!Error.empty() || !SarifError.empty()) {
      if (!TempFindings.empty())
        llvm::sys::fs::remove(TempFindings);
      return RC ? RC : 1;
    }
    if (!Verify)
      return RC;
  }
  // The analysis output comes first; the verifier's table after it.
  llvm::outs().flush();
  std::vector<std::string> VArgs = {Verifier, Findings};
  if (!VerifyHtml.empty())
    VArgs.insert(VArgs.end(), {"--html", VerifyHtml});
  if (!VerifyJson.empty())
    VArgs.insert(VArgs.end(), {"--json", VerifyJson});
  // The verdicts go into the SARIF log too, as result properties.
  if (!Sarif.empty())
    VArgs.insert(VArgs.end(), {"--merge-into", Sarif});
  std::vector<llvm::StringRef> Refs(VArgs.begin(), VArgs.end());
  std::string ExecError;
  int VRC = llvm::sys::ExecuteAndWait(Verifier, Refs, std::nullopt, {}, 0, 0,
                                      &ExecError);
  if (!TempFindings.empty())
    llvm::sys::fs::remove(TempFindings);
  if (VRC < 0) {
    llvm::errs() << "error: --verify: cannot run " << Verifier << ": "
                 << ExecError << "\n";
    return 1;
  }
  return VRC ? VRC : RC;
}
