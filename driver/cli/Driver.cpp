//===--- Driver.cpp - libtorch-tidy ---------------------------------------===//
//
// clang-tidy's own command line (-p, -checks, -config, -fix, -export-fixes,
// -line-filter, -list-checks, ...) with the torch checks linked in, plus
// --export-findings=FILE for the runtime verifier, --export-sarif=FILE
// (--sarif-root=DIR) for code scanning, and --verify (--verify-html=FILE,
// --verify-json=FILE) to run the verifier on the findings right after the
// analysis: one command that analyzes and verifies.
//
//===----------------------------------------------------------------------===//

#include "cli/Driver.h"
#include "ProjectFactsCollector.h"
#include "TorchTidyModule.h"
#include "cache/AnalysisCache.h"
#include "cache/CacheTrim.h"
#include "cli/CommandLine.h"
#include "cli/IndexUse.h"
#include "cli/InputCheck.h"
#include "cli/TorchFlags.h"
#include "export/FindingsExport.h"
#include "export/SarifExport.h"
#include "project/ProjectRun.h"
#include "support/AtomicWrite.h"
#include "support/FixCheck.h"
#include "support/FixitApply.h"
#include "support/PayloadIO.h"
#include "support/SafeFix.h"
#include "support/TempFiles.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/tool/ClangTidyMain.h"
#include "utils/FindingPayload.h"
#include "utils/ProjectIndex.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <csignal>
#include <cstdlib>
#include <string>
#include <sys/prctl.h>
#include <unistd.h>
#include <vector>

namespace torchtidy {

// The driver is linked with the check module: no plugin to load.
static clang::tidy::ClangTidyModuleRegistry::Add<clang::tidy::torch::TorchModule>
    Registration(clang::tidy::torch::ModuleName,
                 clang::tidy::torch::ModuleDescription);

namespace {

namespace fs = llvm::sys::fs;

/// One run of the driver: the command line and what it resolves to.
struct DriverRun {
  CommandLine CL;
  std::string Self;     ///< this program, for the children
  std::string CacheDir; ///< --cache-dir, else the default
  uint64_t CacheMaxBytes = 0;
  std::string Verifier; ///< libtorch-tidy-verify, with --verify
  std::string IndexPath; ///< the project index the checks read, or ""
  /// The findings file --verify reads when no --export-findings names one.
  llvm::SmallString<128> TempFindings;
  /// The verifier's JSON report --fix-only reads when no --verify-json
  /// names one.
  llvm::SmallString<128> TempReport;

  ~DriverRun() {
    if (!TempFindings.empty())
      fs::remove(TempFindings);
    if (!TempReport.empty())
      fs::remove(TempReport);
  }
};

/// Prints \p E as "error: MESSAGE"; returns the exit code it asks for, 1
/// unless a UsageError says otherwise.
int reportError(llvm::Error E) {
  int ExitCode = 1;
  llvm::handleAllErrors(
      std::move(E),
      [&](const UsageError &U) {
        ExitCode = U.exitCode();
        llvm::errs() << "error: " << U.message() << "\n";
      },
      [&](const llvm::ErrorInfoBase &Info) {
        llvm::errs() << "error: " << Info.message() << "\n";
      });
  return ExitCode;
}

/// BadInputExitCode for InputsRejected, whose problems are already printed;
/// any other error is printed as reportError does.
int inputsRejectedExitCode(llvm::Error E) {
  int ExitCode = BadInputExitCode;
  llvm::handleAllErrors(
      std::move(E), [](const InputsRejected &) {},
      [&](std::unique_ptr<llvm::ErrorInfoBase> Other) {
        ExitCode = reportError(llvm::Error(std::move(Other)));
      });
  return ExitCode;
}

/// An error carrying \p Message.
llvm::Error failure(const llvm::Twine &Message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Message);
}

std::string selfPath(const std::string &Argv0) {
  static int Anchor;
  return fs::getMainExecutable(Argv0.c_str(), &Anchor);
}

/// libtorch-tidy-verify: $LIBTORCH_TIDY_VERIFY, next to this program (an
/// install), in the build tree beside it, or on PATH.
llvm::Expected<std::string> findVerifier(llvm::StringRef Self) {
  if (const char *Env = std::getenv("LIBTORCH_TIDY_VERIFY"); Env && *Env)
    return Env;
  llvm::StringRef Dir = llvm::sys::path::parent_path(Self);
  llvm::SmallString<256> Installed(Dir), BuildTree(Dir);
  llvm::sys::path::append(Installed, "libtorch-tidy-verify");
  llvm::sys::path::append(BuildTree, "..", "runtime-verify",
                          "libtorch-tidy-verify");
  for (const llvm::SmallString<256> &P : {Installed, BuildTree})
    if (fs::can_execute(P))
      return P.str().str();
  if (auto OnPath = llvm::sys::findProgramByName("libtorch-tidy-verify"))
    return *OnPath;
  return failure("--verify: libtorch-tidy-verify not found (it is built "
                 "with LibTorch; set LIBTORCH_TIDY_VERIFY)");
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

/// clang-tidy itself on \p Args (argv[0] excluded).
int callClangTidy(const std::string &Program,
                  const std::vector<std::string> &Args) {
  std::vector<const char *> Argv = {Program.c_str()};
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  return clang::tidy::clangTidyMain(static_cast<int>(Argv.size()),
                                    Argv.data());
}

/// What clang-tidy writes besides its diagnostics: the payloads for
/// --export-findings, the facts for the project index, the index answers
/// the checks got. A file name "" is not wanted.
struct RunOutputs {
  std::string Payloads, Facts, Answers;
  bool FactsOnly = false;
};

/// clang-tidy on \p Args with \p Out's recording turned on; its exit code,
/// or 2 when an output cannot be written.
int runRecording(const std::string &Program,
                 const std::vector<std::string> &Args, const RunOutputs &Out) {
  namespace ct = clang::tidy::torch;
  if (!Out.Payloads.empty())
    ct::utils::enablePayloads();
  if (!Out.Facts.empty())
    ct::enableProjectFacts(/*Alone=*/Out.FactsOnly);
  if (!Out.Answers.empty())
    ct::utils::enableIndexAnswers();
  int RC = callClangTidy(Program, Args);
  std::pair<const std::string *, std::string> Writes[] = {
      {&Out.Payloads, Out.Payloads.empty() ? "" : serializePayloads()},
      {&Out.Facts, Out.Facts.empty() ? "" : ct::collectedFacts()},
      {&Out.Answers, Out.Answers.empty() ? "" : ct::utils::takeIndexAnswers()}};
  for (auto &[File, Text] : Writes) {
    if (File->empty())
      continue;
    if (llvm::Error Error = writeFileAtomically(*File, Text)) {
      llvm::errs() << "error: " << llvm::toString(std::move(Error)) << "\n";
      return 2;
    }
  }
  return RC;
}

/// The analysis child of a cached run: plain clang-tidy, with the outputs
/// the parent asked for.
int runChild(const CommandLine &CL) {
  return runRecording(CL.Program, CL.clangTidyArgs(),
                      {CL.PayloadFile, CL.FactsFile, CL.AnswersFile,
                       CL.FactsOnly});
}

/// --cache-max-size, else $LIBTORCH_TIDY_CACHE_MAX_SIZE, else the default.
llvm::Expected<uint64_t> cacheMaxBytes(const TorchOptions &T) {
  llvm::Expected<uint64_t> Max = T.CacheMaxSize
                                     ? parseByteSize(*T.CacheMaxSize)
                                     : defaultCacheMaxBytes();
  if (Max)
    return *Max;
  // Only a value that was set can be malformed.
  std::string Where = T.CacheMaxSize ? "--cache-max-size: "
                                     : "$LIBTORCH_TIDY_CACHE_MAX_SIZE: ";
  return llvm::make_error<UsageError>(Where + llvm::toString(Max.takeError()),
                                      2);
}

/// No compile database and no flags after "--": C++17 and LibTorch's
/// headers, found as CMake and pip users have them, rather than clang-tidy's
/// bare defaults.
void addDefaultFlags(CommandLine &CL) {
  if (CL.isProjectRun() || !needsDefaultFlags(CL))
    return;
  std::string From;
  std::vector<std::string> Flags = defaultTorchFlags(From);
  if (From == "none found")
    llvm::errs() << "libtorch-tidy: note: no compile database and no "
                    "LibTorch found (Torch_DIR, CMAKE_PREFIX_PATH, python3 "
                    "torch, libtorch-dev); analyzing with -std=c++17\n";
  CL.addCompilerArgs(Flags);
}

/// What the safety net of the fix-its parses the named files with: their
/// compile commands as clang-tidy gets them, and the automatic PCH.
FixCheckOptions fixCheckOptions(const DriverRun &R) {
  const CommandLine &CL = R.CL;
  FixCheckOptions O;
  O.Compile.BuildPath = CL.BuildPath;
  if (CL.DashDash)
    O.Compile.Fixed = CL.FixedArgs;
  O.Compile.Before = CL.ExtraArgsBefore;
  O.Compile.After = CL.ExtraArgs;
  O.Sources = CL.Sources;
  O.CacheDir = R.CacheDir;
  O.Pch = CL.Torch.Pch;
  return O;
}

/// Without --fix, the fixes clang-tidy exported to \p FixesYaml are
/// checked and the unsafe ones marked there, before the findings and SARIF
/// are made from them. (With --fix, support/ClangTidyHooks.cpp did it.)
llvm::Error markExportedFixes(const DriverRun &R, llvm::StringRef FixesYaml) {
  if (R.CL.Fix || !R.CL.Torch.FixCheck)
    return llvm::Error::success();
  return markUnsafeFixesInExport(FixesYaml, fixCheckOptions(R));
}

/// The analysis of the named files: one file through the result cache and
/// the automatic PCH (AnalysisCache.h), else clang-tidy in this process.
int analyze(const DriverRun &R, bool Payloads) {
  const CommandLine &CL = R.CL;
  const bool Facts = !CL.Torch.IndexFacts.empty();
  std::vector<std::string> Args =
      Facts ? factsChildArgs(CL) : CL.clangTidyArgs();
  if (!R.IndexPath.empty())
    Args.push_back(indexConfigArg(R.IndexPath));
  std::string FactsFile = Facts ? CL.Torch.IndexFacts : CL.Torch.CollectFacts;
  if (!isCacheable(CL) && !CL.Torch.PreparePch)
    return fixExitCode(runRecording(
        CL.Program,
        CL.Torch.CollectFacts.empty() ? Args : withFactsCollector(Args),
        {"", FactsFile, "", Facts}));
  CacheOptions O;
  O.Self = R.Self;
  O.Args = std::move(Args);
  O.FactsFile = FactsFile;
  O.FactsOnly = Facts;
  O.IndexPath = R.IndexPath;
  O.Source = CL.Sources.front();
  O.FixesFile = CL.ExportFixes.value_or("");
  O.Dir = R.CacheDir;
  O.Payloads = Payloads && !Facts;
  O.Cache = CL.Torch.Cache;
  O.Pch = CL.Torch.Pch;
  O.Explain = CL.Torch.ExplainCache;
  O.MaxBytes = R.CacheMaxBytes;
  O.UserSetColor = CL.UseColor;
  O.Compile.BuildPath = CL.BuildPath;
  if (CL.DashDash)
    O.Compile.Fixed = CL.FixedArgs;
  O.Compile.Before = CL.ExtraArgsBefore;
  O.Compile.After = CL.ExtraArgs;
  if (CL.ConfigFile)
    O.ConfigFiles.push_back(*CL.ConfigFile);
  if (CL.Torch.PreparePch)
    return preparePchOnly(O);
  return runCachedAnalysis(O);
}

/// With --verify: the verifier, and a temporary findings file when no
/// --export-findings names one.
llvm::Error prepareVerify(DriverRun &R) {
  if (!R.CL.Torch.Verify)
    return llvm::Error::success();
  llvm::Expected<std::string> Verifier = findVerifier(R.Self);
  if (!Verifier)
    return Verifier.takeError();
  R.Verifier = *Verifier;
  if (!R.CL.Torch.FixOnly.empty() && R.CL.Torch.VerifyJson.empty()) {
    if (std::error_code EC =
            createRunTempFile("verify-report", "json", R.TempReport))
      return failure("cannot create a temporary file: " + EC.message());
    R.CL.Torch.VerifyJson = R.TempReport.str().str();
  }
  if (!R.CL.Torch.Findings.empty())
    return llvm::Error::success();
  if (std::error_code EC =
          createRunTempFile("findings", "json", R.TempFindings))
    return failure("cannot create a temporary file: " + EC.message());
  R.CL.Torch.Findings = R.TempFindings.str().str();
  return llvm::Error::success();
}

/// Program mode's arguments of the verifier: -p's project, the command,
/// and this program to apply the fix-its.
void addProgramArgs(const DriverRun &R, std::vector<std::string> &VArgs) {
  const TorchOptions &T = R.CL.Torch;
  if (T.Run.empty())
    return;
  VArgs.insert(VArgs.end(), {"--project", *R.CL.BuildPath, "--run", T.Run,
                             "--fix-tool", R.Self});
  std::pair<const char *, const std::string *> Passed[] = {
      {"--build-command", &T.BuildCommand},
      {"--metric", &T.Metric},
      {"--runs", &T.Runs},
      {"--timing", &T.Timing},
      {"--compare", &T.Compare}};
  for (auto &[Option, Value] : Passed)
    if (!Value->empty())
      VArgs.insert(VArgs.end(), {Option, *Value});
}

/// Runs libtorch-tidy-verify on the findings; its exit code, else \p RC.
/// With --fix-only, then applies the fixes that paid.
int runVerifier(const DriverRun &R, int RC) {
  const TorchOptions &T = R.CL.Torch;
  // The analysis output comes first; the verifier's table after it.
  llvm::outs().flush();
  std::vector<std::string> VArgs = {R.Verifier, T.Findings};
  addProgramArgs(R, VArgs);
  if (!T.VerifyHtml.empty())
    VArgs.insert(VArgs.end(), {"--html", T.VerifyHtml});
  if (!T.VerifyJson.empty())
    VArgs.insert(VArgs.end(), {"--json", T.VerifyJson});
  // The verdicts go into the SARIF log too, as result properties.
  if (!T.Sarif.empty())
    VArgs.insert(VArgs.end(), {"--merge-into", T.Sarif});
  std::vector<llvm::StringRef> Refs(VArgs.begin(), VArgs.end());
  std::string ExecError;
  int VRC = llvm::sys::ExecuteAndWait(R.Verifier, Refs, std::nullopt, {}, 0,
                                      0, &ExecError);
  if (VRC < 0) {
    llvm::errs() << "error: --verify: cannot run " << R.Verifier << ": "
                 << ExecError << "\n";
    return 1;
  }
  if (VRC || T.FixOnly.empty())
    return VRC ? VRC : RC;
  int FRC = applyVerifiedFixes(T.Findings, T.VerifyJson, T.FixOnly);
  return FRC ? FRC : RC;
}

/// --fix-only: the analysis fixes nothing; the fixes that paid are applied
/// after the verifier, with --fix's checks from the start of the analysis.
void takeOverFixes(CommandLine &CL) {
  CommandLine Started = CL;
  Started.Fix = true;
  beginFixes(Started);
  llvm::erase_if(CL.Args, [](const Argument &A) {
    llvm::StringRef Name = llvm::StringRef(A.Text).ltrim('-');
    return A.Role == ArgRole::Option &&
           (Name.starts_with("fix=") || Name == "fix" ||
            Name.starts_with("fix-errors") || Name.starts_with("fix-notes"));
  });
  CL.Fix = false;
}

/// The whole-project run: every file in a child of its own.
int runWholeProject(const DriverRun &R) {
  const CommandLine &CL = R.CL;
  const TorchOptions &T = CL.Torch;
  ProjectOptions P;
  P.Self = R.Self;
  P.BuildDir = *CL.BuildPath;
  P.Jobs = T.Jobs;
  P.FailOnFindings = T.FailOnFindings;
  P.Fix = CL.Fix;
  P.Pch = T.Pch;
  P.Explain = T.ExplainCache;
  P.OwnConfig = CL.Config || CL.ConfigFile;
  P.Findings = T.Findings;
  P.Sarif = T.Sarif;
  P.SarifRoot = T.SarifRoot;
  // Each file's child uses the same cache.
  P.Args = {"--cache-max-size=" + std::to_string(R.CacheMaxBytes),
            "--cache-dir=" + R.CacheDir};
  if (T.ExplainCache)
    P.Args.push_back("--cache-explain");
  if (!T.Pch)
    P.Args.push_back("--no-pch");
  if (!T.Cache)
    P.Args.push_back("--no-cache");
  if (!T.UseIndex)
    P.Args.push_back("--no-project-index");
  if (!T.FixCheck)
    P.Args.push_back("--no-fix-check");
  for (std::string &A : CL.clangTidyArgs(/*WithBuildPath=*/false))
    P.Args.push_back(std::move(A));
  if (!P.OwnConfig && T.UseIndex)
    P.Index = indexOptions(CL, R.Self, R.CacheDir, R.CacheMaxBytes);
  int RC = runProject(P);
  if (RC == 2 || !T.Verify)
    return RC;
  return runVerifier(R, RC);
}

/// The source files as they are before --fix rewrites them: the exports
/// read the diagnostics' offsets into the originals.
llvm::StringMap<std::string> readOriginals(const CommandLine &CL) {
  llvm::StringMap<std::string> Originals;
  for (const std::string &File : CL.Sources) {
    if (!fs::is_regular_file(File))
      continue;
    llvm::SmallString<256> Abs(File);
    fs::make_absolute(Abs);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    if (auto Buffer = llvm::MemoryBuffer::getFile(File))
      Originals[Abs] = (*Buffer)->getBuffer().str();
  }
  return Originals;
}

/// Writes --export-findings and --export-sarif from clang-tidy's fixes file
/// \p Fixes; the failures of both, each named by its option.
llvm::Error writeExports(const TorchOptions &T, llvm::StringRef Fixes,
                         const llvm::StringMap<std::string> &Originals) {
  llvm::Error Result = llvm::Error::success();
  if (!T.Findings.empty())
    if (llvm::Error E = exportFindings(Fixes, T.Findings, Originals))
      Result = llvm::joinErrors(
          std::move(Result),
          failure("--export-findings: " + llvm::toString(std::move(E))));
  if (!T.Sarif.empty())
    if (llvm::Error E = exportSarif(Fixes, T.Sarif, T.SarifRoot, Originals))
      Result = llvm::joinErrors(
          std::move(Result),
          failure("--export-sarif: " + llvm::toString(std::move(E))));
  return Result;
}

/// The named files analyzed with exports: clang-tidy exports its
/// diagnostics (to a temporary file unless --export-fixes names one), the
/// findings and SARIF are read from them, then --verify runs.
int analyzeAndExport(DriverRun &R) {
  CommandLine &CL = R.CL;
  if (!CL.Torch.Findings.empty())
    clang::tidy::torch::utils::enablePayloads();
  llvm::SmallString<128> TempFixes;
  auto RemoveFixes = llvm::make_scope_exit([&] {
    if (!TempFixes.empty())
      fs::remove(TempFixes);
  });
  if (!CL.ExportFixes) {
    if (std::error_code EC = createRunTempFile("fixes", "yaml", TempFixes))
      return reportError(
          failure("cannot create a temporary file: " + EC.message()));
    // clang-tidy writes the file only when there are diagnostics.
    fs::remove(TempFixes);
    CL.ExportFixes = TempFixes.str().str();
    CL.Args.insert(CL.Args.begin(),
                   {"--export-fixes=" + *CL.ExportFixes, ArgRole::Option});
  }
  llvm::StringMap<std::string> Originals = readOriginals(CL);
  int RC = inputExitCode(analyze(R, !CL.Torch.Findings.empty()));
  // A failed export ends the run before the verifier.
  llvm::Error E = markExportedFixes(R, *CL.ExportFixes);
  if (!E)
    E = writeExports(CL.Torch, *CL.ExportFixes, Originals);
  if (E) {
    reportError(std::move(E));
    return RC ? RC : 1;
  }
  return CL.Torch.Verify ? runVerifier(R, RC) : RC;
}

/// The analysis of the named files, with exports and the verifier when
/// asked for.
int runOnFiles(DriverRun &R) {
  const TorchOptions &T = R.CL.Torch;
  if (!T.Findings.empty() || !T.Sarif.empty() || T.Verify)
    return analyzeAndExport(R);
  int RC = inputExitCode(analyze(R, false));
  if (!R.CL.ExportFixes)
    return RC;
  if (llvm::Error E = markExportedFixes(R, *R.CL.ExportFixes)) {
    reportError(std::move(E));
    return RC ? RC : 1;
  }
  return RC;
}

/// Everything but the analysis child.
int runAnalysis(CommandLine CL) {
  llvm::Expected<uint64_t> CacheMax = cacheMaxBytes(CL.Torch);
  if (!CacheMax)
    return reportError(CacheMax.takeError());
  if (llvm::Error E = checkUsage(CL))
    return reportError(std::move(E));
  // Files that cannot be analyzed are named and left out.
  bool Project = CL.isProjectRun();
  llvm::Expected<std::vector<std::string>> Refused =
      checkInputs(CL, Project ? *CL.BuildPath : "");
  if (!Refused)
    return inputsRejectedExitCode(Refused.takeError());
  CL.dropSources(*Refused);
  if (!CL.Torch.FixOnly.empty())
    takeOverFixes(CL);
  if (!Project)
    beginFixes(CL);
  addDefaultFlags(CL);
  DriverRun R;
  R.Self = selfPath(CL.Program);
  R.CacheDir = CL.Torch.CacheDir.value_or(defaultCacheDir());
  R.CacheMaxBytes = *CacheMax;
  R.CL = std::move(CL);
  if (llvm::Error E = prepareVerify(R))
    return reportError(std::move(E));
  if (R.CL.Torch.UpdateIndex)
    return runUpdateIndex(
        indexOptions(R.CL, R.Self, R.CacheDir, R.CacheMaxBytes));
  if (Project)
    return runWholeProject(R);
  R.IndexPath = indexForFiles(
      R.CL, indexOptions(R.CL, R.Self, R.CacheDir, R.CacheMaxBytes));
  if (R.CL.Fix && R.CL.Torch.FixCheck)
    setFixCheck(fixCheckOptions(R));
  return runOnFiles(R);
}

} // namespace

int runDriver(int Argc, const char **Argv) {
  if (!bindToParent())
    return 128 + SIGTERM;
  if (Argc == 2 && llvm::StringRef(Argv[1]).starts_with(ApplyFixitsFlag))
    return runApplyFixits(
        llvm::StringRef(Argv[1]).drop_front(ApplyFixitsFlag.size()));
  llvm::Expected<CommandLine> CL =
      parseCommandLine(llvm::ArrayRef(Argv, static_cast<size_t>(Argc)));
  if (!CL)
    return reportError(CL.takeError());
  if (CL->Child)
    return runChild(*CL);
  return runAnalysis(std::move(*CL));
}

} // namespace torchtidy
