//===--- CommandLine.h - libtorch-tidy --------------------------*- C++ -*-===//
//
// The driver's one model of its command line, parsed once. libtorch-tidy's
// own options (--export-findings, -j, --no-cache, --verify, ...) are declared
// in one table in CommandLine.cpp, taken out of argv and parsed into
// TorchOptions; the rest is clang-tidy's, passed on to it unchanged, with the
// facts the driver needs of it (-p, the sources, --fix, --export-fixes,
// --config, whether it analyzes at all) read in the same pass. Every other
// part of the driver reads this struct instead of argv.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CLI_COMMANDLINE_H
#define LIBTORCH_TIDY_DRIVER_CLI_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

/// A command line the driver refuses: the message (printed after
/// "error: ") and the exit code to end with.
class UsageError : public llvm::ErrorInfo<UsageError> {
public:
  static char ID;
  UsageError(std::string Message, int ExitCode)
      : Message(std::move(Message)), ExitCode(ExitCode) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  int exitCode() const { return ExitCode; }

private:
  std::string Message;
  int ExitCode;
};

/// libtorch-tidy's options, beside clang-tidy's.
struct TorchOptions {
  std::string Findings;  ///< --export-findings=FILE
  std::string Sarif;     ///< --export-sarif=FILE
  std::string SarifRoot; ///< --sarif-root=DIR
  unsigned Jobs = 0;     ///< -j N, -jN, --jobs=N; 0: not given
  bool FailOnFindings = false;
  bool Cache = true; ///< not --no-cache
  bool Pch = true;   ///< not --no-pch
  bool ExplainCache = false;
  std::optional<std::string> CacheMaxSize; ///< --cache-max-size, as written
  std::optional<std::string> CacheDir;     ///< --cache-dir
  bool Verify = false; ///< --verify, --verify-html or --verify-json
  std::string VerifyHtml, VerifyJson;
  /// Program mode of --verify (docs/verifier.md): -p's project is built
  /// and --run's command timed, --build-command, --metric, --runs and
  /// --compare passed on to the verifier as written.
  std::string Run, BuildCommand, Metric, Runs, Timing, Compare;
  /// --fix-only=faster|not-slower: apply only the fixes measured to pay.
  std::string FixOnly;
  /// --update-index: build or refresh the project index, report nothing.
  bool UpdateIndex = false;
  /// --no-project-index: the single-file rules even in a project.
  bool UseIndex = true;
  /// --index-facts=FILE: the index child, which writes the file's facts.
  std::string IndexFacts;
  /// --prepare-pch: only build or find the file's PCH (the first phase of
  /// a whole-project run).
  bool PreparePch = false;
  /// --collect-facts=FILE: an analysis that also writes the file's facts
  /// (the children of a whole-project run).
  std::string CollectFacts;
  /// --project-index=FILE: the index the checks read (a whole-project run
  /// gives its children the one it built).
  std::string ProjectIndex;
  /// Not --no-fix-check: fixes that would not compile are neither applied
  /// nor exported unmarked (support/FixCheck).
  bool FixCheck = true;
};

/// What an argument passed on to clang-tidy is.
enum class ArgRole {
  Option,     ///< one of clang-tidy's options, or its value
  BuildPath,  ///< -p, or its value
  Source,     ///< a source file
  DashDash,   ///< "--"
  CompilerArg ///< after "--"
};

struct Argument {
  std::string Text;
  ArgRole Role;
};

struct CommandLine {
  std::string Program; ///< argv[0]
  /// ChildFlag: the analysis child of a cached run, a plain clang-tidy run
  /// whose arguments are all passed on unread.
  bool Child = false;
  std::string PayloadFile; ///< the child's --payloads=FILE, or ""
  std::string FactsFile;   ///< the child's --facts=FILE or --facts-only=FILE
  bool FactsOnly = false;  ///< --facts-only: the facts collector alone
  std::string AnswersFile; ///< the child's --answers=FILE, or ""
  TorchOptions Torch;
  /// The arguments for clang-tidy, in order, without ours and argv[0].
  std::vector<Argument> Args;

  // What the driver needs to know of clang-tidy's options.
  std::vector<std::string> Sources; ///< positional arguments before "--"
  bool DashDash = false;            ///< "--" and compiler arguments follow
  /// The arguments after "--", and those of -extra-arg(-before).
  std::vector<std::string> CompilerArgs;
  std::vector<std::string> FixedArgs;       ///< the arguments after "--"
  std::vector<std::string> ExtraArgsBefore; ///< -extra-arg-before's
  std::vector<std::string> ExtraArgs;       ///< -extra-arg's
  std::optional<std::string> BuildPath; ///< -p
  std::optional<std::string> Checks, Config, ConfigFile;
  std::optional<std::string> ExportFixes; ///< --export-fixes
  bool Fix = false; ///< --fix, --fix-errors or --fix-notes, not =false
  bool UseColor = false;     ///< --use-color, whatever its value
  bool CheckProfile = false; ///< --enable-check-profile, --store-check-profile
  /// False for --list-checks, --dump-config, --verify-config, --help and the
  /// like: clang-tidy prints something and analyzes nothing.
  bool Analyzes = true;

  /// -p BUILD_DIR without source files or "--": every file of the database.
  bool isProjectRun() const;
  /// The arguments for clang-tidy, without argv[0]; \p WithBuildPath: with
  /// -p and its value.
  std::vector<std::string> clangTidyArgs(bool WithBuildPath = true) const;
  /// Leaves the source files \p Files out of the analysis.
  void dropSources(llvm::ArrayRef<std::string> Files);
  /// Appends \p Flags after "--" (added when missing).
  void addCompilerArgs(llvm::ArrayRef<std::string> Flags);
};

/// Parses \p Argv (argv[0] first) once: our options into CommandLine::Torch,
/// clang-tidy's into the rest. A malformed option of ours is a UsageError.
llvm::Expected<CommandLine> parseCommandLine(llvm::ArrayRef<const char *> Argv);

/// The combinations the driver refuses: --sarif-root without --export-sarif
/// or not a directory, -j or --fail-on-findings without a whole-project
/// run. A UsageError or success.
llvm::Error checkUsage(const CommandLine &CL);

/// Whether the run analyzes source files without -p, "--" or a compilation
/// database for any of them: the driver then supplies C++17 and LibTorch's
/// headers instead of clang-tidy's bare defaults.
bool needsDefaultFlags(const CommandLine &CL);

/// Whether the run can go through the result cache: one source file,
/// analyzed and not fixed, no check profile, and the cache or PCH wanted.
bool isCacheable(const CommandLine &CL);

/// The text --help shows for our options, from the table that declares them.
std::string torchOptionsHelp();

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CLI_COMMANDLINE_H
