//===--- IndexUse.cpp - libtorch-tidy -------------------------------------===//

#include "cli/IndexUse.h"
#include "ProjectFactsCollector.h"
#include "utils/ProjectIndex.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace torchtidy {

namespace {

/// Options of clang-tidy that say what to report or where, not what the
/// code is: the index child leaves them out.
bool isOutputOption(llvm::StringRef Name) {
  return llvm::is_contained({"checks", "fix", "fix-errors", "fix-notes",
                             "export-fixes", "warnings-as-errors",
                             "use-color", "quiet", "header-filter",
                             "exclude-header-filter", "line-filter",
                             "format-style", "store-check-profile",
                             "enable-check-profile", "list-checks",
                             "explain-config", "dump-config"},
                            Name);
}

/// The option name of \p Arg ("-checks=x" -> "checks"), or "".
llvm::StringRef optionName(llvm::StringRef Arg) {
  if (!Arg.starts_with("-"))
    return "";
  return Arg.ltrim('-').split('=').first;
}

std::string quoted(llvm::StringRef S) {
  std::string Out = "'";
  for (char C : S)
    Out += C == '\'' ? std::string("''") : std::string(1, C);
  return Out + "'";
}

} // namespace

IndexOptions indexOptions(const CommandLine &CL, llvm::StringRef Self,
                          llvm::StringRef CacheDir, uint64_t CacheMaxBytes) {
  IndexOptions O;
  O.Self = Self.str();
  O.BuildDir = CL.BuildPath.value_or("");
  O.CacheDir = CacheDir.str();
  O.Jobs = CL.Torch.Jobs;
  O.Explain = CL.Torch.ExplainCache;
  O.CacheArgs = {"--cache-max-size=" + std::to_string(CacheMaxBytes),
                 "--cache-dir=" + CacheDir.str()};
  if (!CL.Torch.Pch)
    O.CacheArgs.push_back("--no-pch");
  if (!CL.Torch.Cache)
    O.CacheArgs.push_back("--no-cache");
  for (const std::string &A : CL.ExtraArgsBefore)
    O.ExtraArgs.push_back("--extra-arg-before=" + A);
  for (const std::string &A : CL.ExtraArgs)
    O.ExtraArgs.push_back("--extra-arg=" + A);
  return O;
}

std::vector<std::string> factsChildArgs(const CommandLine &CL) {
  std::vector<std::string> Out;
  bool SkipValue = false;
  for (const Argument &A : CL.Args) {
    if (SkipValue) {
      SkipValue = false;
      continue;
    }
    llvm::StringRef Name = optionName(A.Text);
    if (A.Role == ArgRole::Option && isOutputOption(Name)) {
      // "-checks x": the value is the next argument.
      SkipValue = !llvm::StringRef(A.Text).contains('=') &&
                  llvm::is_contained({"checks", "export-fixes",
                                      "warnings-as-errors", "header-filter",
                                      "exclude-header-filter", "line-filter",
                                      "format-style", "store-check-profile"},
                                     Name);
      continue;
    }
    Out.push_back(A.Text);
  }
  Out.insert(Out.begin(), std::string("--checks=-*,") +
                              clang::tidy::torch::ProjectFactsCollectorName);
  return Out;
}

std::string indexConfigArg(llvm::StringRef IndexPath) {
  // Only the path: the same argument whatever the index holds, so that a
  // stored result is found again and checked against the index's answers.
  return "--config={InheritParentConfig: true, CheckOptions: "
         "{TorchProjectIndex: " +
         quoted(IndexPath) + "}}";
}

std::string indexForFiles(const CommandLine &CL, const IndexOptions &O) {
  const TorchOptions &T = CL.Torch;
  if (!T.IndexFacts.empty() || !T.UseIndex)
    return "";
  std::string Path = T.ProjectIndex;
  if (Path.empty()) {
    if (O.BuildDir.empty())
      return "";
    Path = indexPathFor(O.CacheDir, O.BuildDir);
    // No whole-project run yet: the single-file rules.
    if (!llvm::sys::fs::exists(Path))
      return "";
  }
  if (CL.Config || CL.ConfigFile) {
    llvm::errs() << "libtorch-tidy: note: the project index was not used: "
                    "the command line has its own --config; put "
                    "TorchProjectIndex: '"
                 << Path << "' in its CheckOptions\n";
    return "";
  }
  if (!T.ProjectIndex.empty())
    return Path;
  // Stale facts are made again before the analysis reads them.
  llvm::Expected<IndexRefresh> R = refreshIndex(O);
  if (!R) {
    llvm::errs() << "libtorch-tidy: note: the project index was not used: "
                 << llvm::toString(R.takeError()) << "\n";
    return "";
  }
  if (!R->Failed.empty()) {
    llvm::errs() << "libtorch-tidy: note: the project index was not used: "
                    "the facts of '"
                 << R->Failed.front() << "' could not be made\n";
    return "";
  }
  return R->Path;
}

int runUpdateIndex(const IndexOptions &O) {
  llvm::Expected<IndexRefresh> R = refreshIndex(O);
  if (!R) {
    llvm::errs() << "error: --update-index: " << llvm::toString(R.takeError())
                 << "\n";
    return 2;
  }
  llvm::outs() << llvm::formatv(
      "libtorch-tidy: project index of {0} file{1} ({2} re-indexed) in "
      "{3:F2} s: {4}\n",
      R->Files, R->Files == 1 ? "" : "s", R->Reindexed, R->Seconds, R->Path);
  for (const std::string &F : R->Failed)
    llvm::errs() << "error: --update-index: the facts of '" << F
                 << "' could not be made\n";
  return R->Failed.empty() ? 0 : 2;
}

} // namespace torchtidy
