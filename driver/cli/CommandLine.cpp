//===--- CommandLine.cpp - libtorch-tidy ----------------------------------===//

#include "cli/CommandLine.h"
#include "cache/AnalysisCache.h"
#include "cli/TorchFlags.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace torchtidy {

char UsageError::ID;

void UsageError::log(llvm::raw_ostream &OS) const { OS << Message; }

namespace {

/// Sets one of our options from its value ("" for a flag).
using Setter = llvm::Error (*)(TorchOptions &, llvm::StringRef);

/// One option of libtorch-tidy: every part of the driver learns it from
/// here, and --help lists it from here.
struct OptionSpec {
  llvm::StringLiteral Name;
  llvm::StringLiteral ValueName; ///< "" for a flag
  llvm::StringLiteral Help;
  Setter Set;
};

llvm::Error usage(const llvm::Twine &Message, int ExitCode) {
  return llvm::make_error<UsageError>(Message.str(), ExitCode);
}

/// A file or directory name that must not be empty.
llvm::Error setPath(std::string &Out, llvm::StringRef Value,
                    llvm::StringRef Option, llvm::StringRef What) {
  if (Value.empty())
    return usage("--" + Option + " needs a " + What, 1);
  Out = Value.str();
  return llvm::Error::success();
}

/// A value of program-mode --verify, which implies --verify.
llvm::Error setVerifyText(std::string &Out, llvm::StringRef Value,
                          llvm::StringRef Option, TorchOptions &O) {
  O.Verify = true;
  return setPath(Out, Value, Option, "value");
}

llvm::Error setJobs(TorchOptions &O, llvm::StringRef Value) {
  if (Value.getAsInteger(10, O.Jobs) || !O.Jobs)
    return usage("-j needs a positive number of jobs", 2);
  return llvm::Error::success();
}

const OptionSpec Options[] = {
    {"export-findings", "FILE",
     "Write the torch-* findings as JSON for libtorch-tidy-verify",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setPath(O.Findings, V, "export-findings", "file name");
     }},
    {"export-sarif", "FILE", "Write the findings as a SARIF 2.1.0 log",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setPath(O.Sarif, V, "export-sarif", "file name");
     }},
    {"sarif-root", "DIR", "Make the SARIF log's file names relative to DIR",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setPath(O.SarifRoot, V, "sarif-root", "directory");
     }},
    {"jobs", "N",
     "Files analyzed in parallel in a whole-project run (also -j N, -jN)",
     setJobs},
    {"fail-on-findings", "",
     "Exit code 1 when a whole-project run finds anything",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.FailOnFindings = true;
       return llvm::Error::success();
     }},
    {"no-cache", "", "Neither replay nor store analysis results",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.Cache = false;
       return llvm::Error::success();
     }},
    {"no-pch", "", "Do not precompile the LibTorch headers",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.Pch = false;
       return llvm::Error::success();
     }},
    {"cache-explain", "", "Say on stderr what the cache did",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.ExplainCache = true;
       return llvm::Error::success();
     }},
    {"cache-max-size", "SIZE",
     "Trim the cache to SIZE (5G, 500M, 0 for no limit)",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       O.CacheMaxSize = V.str();
       return llvm::Error::success();
     }},
    {"cache-dir", "DIR", "Keep the result cache and the PCHs in DIR",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       if (V.empty())
         return usage("--cache-dir needs a directory", 2);
       O.CacheDir = V.str();
       return llvm::Error::success();
     }},
    {"update-index", "",
     "Build or refresh the project index of -p's build directory (only the "
     "files that changed), without reporting",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.UpdateIndex = true;
       return llvm::Error::success();
     }},
    {"project-index", "FILE",
     "Read this project index instead of the build directory's",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setPath(O.ProjectIndex, V, "project-index", "file");
     }},
    {"no-project-index", "",
     "Neither build nor read a project index: the checks see one file "
     "at a time",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.UseIndex = false;
       return llvm::Error::success();
     }},
    {"index-facts", "FILE",
     "Write the file's facts for the project index to FILE (what "
     "--update-index runs per file)",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setPath(O.IndexFacts, V, "index-facts", "file");
     }},
    {"prepare-pch", "",
     "Only precompile the file's LibTorch includes into the cache, without "
     "analysing it (what a whole-project run does for each file first); "
     "prints one line: built, reused, busy or none, and why",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.PreparePch = true;
       return llvm::Error::success();
     }},
    {"collect-facts", "FILE",
     "Also write the file's facts for the project index to FILE (what a "
     "whole-project run's analysis of each file does)",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setPath(O.CollectFacts, V, "collect-facts", "file");
     }},
    {"no-fix-check", "",
     "Apply and export fix-its without parsing the fixed code again (by "
     "default, a fix-it that would not compile is dropped with a note)",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.FixCheck = false;
       return llvm::Error::success();
     }},
    {"verify", "", "Run libtorch-tidy-verify on the findings",
     [](TorchOptions &O, llvm::StringRef) -> llvm::Error {
       O.Verify = true;
       return llvm::Error::success();
     }},
    {"verify-html", "FILE", "--verify, and write its report as HTML",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       O.Verify = true;
       O.VerifyHtml = V.str();
       return llvm::Error::success();
     }},
    {"verify-json", "FILE", "--verify, and write its verdicts as JSON",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       O.Verify = true;
       O.VerifyJson = V.str();
       return llvm::Error::success();
     }},
    {"run", "COMMAND",
     "--verify on the program: build each fix into a scratch copy of -p's "
     "project and time COMMAND ({build}, {source}: the copy's directories)",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setVerifyText(O.Run, V, "run", O);
     }},
    {"build-command", "CMD",
     "With --run: build the scratch copies with CMD instead of CMake",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setVerifyText(O.BuildCommand, V, "build-command", O);
     }},
    {"metric", "REGEX",
     "With --run: time the number REGEX's first group captures in the "
     "output instead of the command's wall time",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setVerifyText(O.Metric, V, "metric", O);
     }},
    {"runs", "N",
     "With --run: timed rounds (default: until every fix is decided or the "
     "time cap)",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setVerifyText(O.Runs, V, "runs", O);
     }},
    {"timing", "WHAT",
     "With --run: time the command's CPU time (cpu), its wall time (wall), "
     "or CPU time on the CPU and wall time on a CUDA device (auto, default)",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setVerifyText(O.Timing, V, "timing", O);
     }},
    {"compare", "MODE",
     "With --run: compare the variants' printed results as numbers "
     "(default), exact lines, or none",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       return setVerifyText(O.Compare, V, "compare", O);
     }},
    {"fix-only", "WHICH",
     "With --run: apply only the fixes measured faster (WHICH faster) or "
     "not slower (not-slower), never one that changes the results",
     [](TorchOptions &O, llvm::StringRef V) -> llvm::Error {
       if (V != "faster" && V != "not-slower")
         return usage("--fix-only needs faster or not-slower", 2);
       O.Verify = true;
       O.FixOnly = V.str();
       return llvm::Error::success();
     }},
};

const OptionSpec *findOption(llvm::StringRef Name) {
  for (const OptionSpec &Spec : Options)
    if (Spec.Name == Name)
      return &Spec;
  return nullptr;
}

// In --help, after clang-tidy's options (extrahelp keeps a reference).
const std::string OptionsHelpText = torchOptionsHelp();
llvm::cl::extrahelp OptionsHelp(OptionsHelpText);

// In --help, after our options.
llvm::cl::extrahelp ExitCodesHelp(R"(
Exit codes of libtorch-tidy (docs/exit-codes.md); the highest that applies:
  0  the analysis ran (findings are warnings unless -warnings-as-errors)
  1  compiler errors, findings promoted by -warnings-as-errors, a bad
     clang-tidy option, an export that cannot be written; with
     --fail-on-findings, findings in a whole-project run
  2  input refused, each named in one line: a missing, non-C/C++ or binary
     file (left out; the others are analyzed), a broken or missing
     compilation database, an unknown torch-* check (nothing is analyzed);
     usage and tool errors of a whole-project run
  3  --fix left a file alone: read-only, or changed during the analysis
)");

/// Whether clang-tidy's option \p Name takes a value (the next argument
/// when it has no "=VALUE").
bool takesValue(llvm::StringRef Name) {
  // CommonOptionsParser registers -p and -extra-arg only while it parses.
  if (llvm::is_contained(
          {"p", "extra-arg", "extra-arg-before", "checks",
           "warnings-as-errors", "header-filter", "exclude-header-filter",
           "line-filter", "format-style", "export-fixes", "config",
           "config-file", "vfsoverlay", "store-check-profile"},
          Name))
    return true;
  llvm::StringMap<llvm::cl::Option *> &Registered =
      llvm::cl::getRegisteredOptions();
  auto It = Registered.find(Name);
  return It != Registered.end() &&
         It->second->getValueExpectedFlag() == llvm::cl::ValueRequired;
}

bool isTrue(llvm::StringRef Value) {
  return Value.empty() || Value.equals_insensitive("true") || Value == "1";
}

/// Walks argv once, after argv[0] and any child flags.
class Parser {
public:
  Parser(llvm::ArrayRef<const char *> Argv, CommandLine &CL)
      : Argv(Argv), CL(CL) {}

  llvm::Error parse(size_t First) {
    for (I = First; I < Argv.size(); ++I)
      if (llvm::Error E = parseOne(Argv[I]))
        return E;
    return llvm::Error::success();
  }

private:
  llvm::ArrayRef<const char *> Argv;
  CommandLine &CL;
  size_t I = 0;

  void pass(llvm::StringRef Text, ArgRole Role) {
    CL.Args.push_back({Text.str(), Role});
  }

  /// The value of an option without "=VALUE": the next argument, passed on
  /// to clang-tidy with \p Role unless it is ours.
  std::string nextValue(std::optional<ArgRole> Role) {
    if (I + 1 >= Argv.size())
      return "";
    ++I;
    if (Role)
      pass(Argv[I], *Role);
    return Argv[I];
  }

  llvm::Error parseOne(llvm::StringRef A) {
    if (CL.DashDash) {
      CL.CompilerArgs.push_back(A.str());
      CL.FixedArgs.push_back(A.str());
      pass(A, ArgRole::CompilerArg);
      return llvm::Error::success();
    }
    if (A == "--") {
      CL.DashDash = true;
      pass(A, ArgRole::DashDash);
      return llvm::Error::success();
    }
    if (!A.starts_with("-")) {
      // @FILE: a response file, expanded by clang-tidy.
      if (!A.starts_with("@"))
        CL.Sources.push_back(A.str());
      pass(A, A.starts_with("@") ? ArgRole::Option : ArgRole::Source);
      return llvm::Error::success();
    }
    llvm::StringRef Name = A.drop_front(A.starts_with("--") ? 2 : 1);
    if (std::optional<llvm::Error> E = parseOurs(Name))
      return std::move(*E);
    parseClangTidy(A, Name);
    return llvm::Error::success();
  }

  /// One of our options, or std::nullopt when \p Flag is clang-tidy's.
  std::optional<llvm::Error> parseOurs(llvm::StringRef Flag) {
    auto [Name, Value] = Flag.split('=');
    bool HasValue = Flag.contains('=');
    if (const OptionSpec *Spec = findOption(Name)) {
      if (Spec->ValueName.empty())
        return Spec->Set(CL.Torch, "");
      return Spec->Set(CL.Torch,
                       HasValue ? Value.str() : nextValue(std::nullopt));
    }
    // -j N, -jN, -j=N: clang-tidy has no option that starts with j.
    if (!Flag.starts_with("j"))
      return std::nullopt;
    if (Name == "j")
      return setJobs(CL.Torch,
                     HasValue ? Value.str() : nextValue(std::nullopt));
    return setJobs(CL.Torch, Flag.drop_front());
  }

  void parseClangTidy(llvm::StringRef A, llvm::StringRef Flag) {
    auto [Name, Value] = Flag.split('=');
    ArgRole Role = Name == "p" ? ArgRole::BuildPath : ArgRole::Option;
    pass(A, Role);
    std::string V = Value.str();
    if (!Flag.contains('=') && takesValue(Name)) {
      // Without its value: clang-tidy refuses it.
      if (I + 1 >= Argv.size())
        return;
      V = nextValue(Role);
    }
    noteFact(Name, V);
  }

  void addExtraArg(llvm::StringRef Name, const std::string &V) {
    CL.CompilerArgs.push_back(V);
    (Name == "extra-arg" ? CL.ExtraArgs : CL.ExtraArgsBefore).push_back(V);
  }

  void noteFact(llvm::StringRef Name, const std::string &V) {
    if (Name == "p")
      CL.BuildPath = V;
    else if (Name == "checks")
      CL.Checks = V;
    else if (Name == "config")
      CL.Config = V;
    else if (Name == "config-file")
      CL.ConfigFile = V;
    else if (Name == "export-fixes")
      CL.ExportFixes = V;
    else if (Name == "extra-arg" || Name == "extra-arg-before")
      addExtraArg(Name, V);
    else if (Name == "fix" || Name == "fix-errors" || Name == "fix-notes")
      CL.Fix |= isTrue(V);
    else if (Name == "use-color")
      CL.UseColor = true;
    else if (Name == "enable-check-profile" || Name == "store-check-profile")
      CL.CheckProfile = true;
    else if (llvm::is_contained({"list-checks", "dump-config", "verify-config",
                                 "explain-config", "help", "help-hidden",
                                 "help-list", "help-list-hidden", "version",
                                 "print-options", "print-all-options"},
                                Name))
      CL.Analyzes = false;
  }
};

} // namespace

llvm::Expected<CommandLine>
parseCommandLine(llvm::ArrayRef<const char *> Argv) {
  CommandLine CL;
  if (Argv.empty())
    return CL;
  CL.Program = Argv.front();
  size_t First = 1;
  if (Argv.size() > 1 && llvm::StringRef(Argv[1]) == ChildFlag) {
    CL.Child = true;
    First = 2;
    for (; First < Argv.size(); ++First) {
      llvm::StringRef Output = Argv[First];
      if (Output.consume_front("--payloads="))
        CL.PayloadFile = Output.str();
      else if (Output.consume_front("--facts="))
        CL.FactsFile = Output.str();
      else if (Output.consume_front("--facts-only=")) {
        CL.FactsFile = Output.str();
        CL.FactsOnly = true;
      } else if (Output.consume_front("--answers="))
        CL.AnswersFile = Output.str();
      else
        break;
    }
    for (const char *A : Argv.drop_front(First))
      CL.Args.push_back({A, ArgRole::Option});
    return CL;
  }
  if (llvm::Error E = Parser(Argv, CL).parse(First))
    return std::move(E);
  return CL;
}

bool CommandLine::isProjectRun() const {
  return BuildPath && Sources.empty() && !DashDash && Analyzes;
}

std::vector<std::string> CommandLine::clangTidyArgs(bool WithBuildPath) const {
  std::vector<std::string> Out;
  for (const Argument &A : Args)
    if (WithBuildPath || A.Role != ArgRole::BuildPath)
      Out.push_back(A.Text);
  return Out;
}

void CommandLine::dropSources(llvm::ArrayRef<std::string> Files) {
  llvm::erase_if(Args, [&](const Argument &A) {
    return A.Role == ArgRole::Source && llvm::is_contained(Files, A.Text);
  });
  llvm::erase_if(Sources, [&](const std::string &S) {
    return llvm::is_contained(Files, S);
  });
}

void CommandLine::addCompilerArgs(llvm::ArrayRef<std::string> Flags) {
  if (!DashDash)
    Args.push_back({"--", ArgRole::DashDash});
  DashDash = true;
  for (const std::string &F : Flags) {
    Args.push_back({F, ArgRole::CompilerArg});
    CompilerArgs.push_back(F);
    FixedArgs.push_back(F);
  }
}

llvm::Error checkUsage(const CommandLine &CL) {
  const TorchOptions &T = CL.Torch;
  if (!T.SarifRoot.empty() && T.Sarif.empty())
    return usage("--sarif-root needs --export-sarif", 1);
  if (!T.SarifRoot.empty() && !llvm::sys::fs::is_directory(T.SarifRoot))
    return usage("--sarif-root: '" + T.SarifRoot + "' is not a directory", 1);
  if (T.UpdateIndex && !CL.isProjectRun())
    return usage("--update-index is for -p BUILD_DIR without source files",
                 2);
  if (!T.UseIndex && (T.UpdateIndex || !T.ProjectIndex.empty()))
    return usage("--no-project-index contradicts --update-index and "
                 "--project-index",
                 2);
  if (T.PreparePch && (CL.Sources.size() != 1 || !T.Pch))
    return usage("--prepare-pch needs one source file and the PCH "
                 "(not --no-pch)",
                 2);
  if (!T.IndexFacts.empty() && (!CL.BuildPath || CL.Sources.size() != 1))
    return usage("--index-facts needs -p BUILD_DIR and one source file", 2);
  bool ProgramOnly = !T.BuildCommand.empty() || !T.Metric.empty() ||
                     !T.Runs.empty() || !T.Compare.empty() ||
                     !T.FixOnly.empty() || !T.Timing.empty();
  if (ProgramOnly && T.Run.empty())
    return usage("--build-command, --metric, --runs, --timing, --compare "
                 "and --fix-only need --run 'COMMAND'",
                 2);
  if (!T.Run.empty() && !CL.BuildPath)
    return usage("--run needs -p BUILD_DIR: the project to build", 2);
  if (!CL.isProjectRun() && (T.Jobs || T.FailOnFindings))
    return usage("-j and --fail-on-findings are for whole-project runs: -p "
                 "BUILD_DIR without source files",
                 2);
  return llvm::Error::success();
}

bool needsDefaultFlags(const CommandLine &CL) {
  if (!CL.Analyzes || CL.BuildPath || CL.DashDash)
    return false;
  bool Sources = false;
  for (const std::string &File : CL.Sources) {
    if (!llvm::sys::fs::is_regular_file(File))
      continue;
    if (hasCompilationDatabase(File))
      return false;
    Sources = true;
  }
  return Sources;
}

bool isCacheable(const CommandLine &CL) {
  return !CL.isProjectRun() && CL.Sources.size() == 1 && !CL.Fix &&
         CL.Analyzes && !CL.CheckProfile &&
         (CL.Torch.Cache || CL.Torch.Pch);
}

std::string torchOptionsHelp() {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << "\nlibtorch-tidy's own options (docs/ in the source tree):\n";
  for (const OptionSpec &Spec : Options) {
    std::string Usage = ("--" + Spec.Name).str();
    if (!Spec.ValueName.empty())
      Usage += ("=" + Spec.ValueName).str();
    OS << llvm::formatv("  {0,-26} {1}\n", Usage, Spec.Help);
  }
  return Text;
}

} // namespace torchtidy
