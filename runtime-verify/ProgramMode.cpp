//===--- ProgramMode.cpp - libtorch-tidy-verify ---------------------------===//

#include "ProgramMode.h"
#include "ProgramRun.h"
#include "ProjectTree.h"

#include "CheckTable.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>
#include <unistd.h>

using nlohmann::json;
namespace fs = std::filesystem;

namespace torchtidy {
namespace {

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       Start)
      .count();
}

/// libtorch-tidy, which applies the fix-its: --fix-tool, $LIBTORCH_TIDY,
/// next to this program (an install), in the build tree beside it, or on
/// PATH.
std::string findFixTool(const VerifyOptions &O) {
  if (!O.FixTool.empty())
    return O.FixTool;
  if (const char *Env = std::getenv("LIBTORCH_TIDY"); Env && *Env)
    return Env;
  std::error_code EC;
  fs::path Self = fs::read_symlink("/proc/self/exe", EC);
  for (const fs::path &Candidate :
       {Self.parent_path() / "libtorch-tidy",
        Self.parent_path() / ".." / "driver" / "libtorch-tidy"})
    if (!EC && ::access(Candidate.c_str(), X_OK) == 0)
      return Candidate.string();
  return "libtorch-tidy";
}

/// Where and how the project is built.
ErrorOr<BuildSetup> buildSetup(const VerifyOptions &O) {
  BuildSetup S;
  S.BuildCommand = O.BuildCommand;
  S.FixTool = findFixTool(O);
  S.PrecompileTorch = !O.NoPrecompiledHeaders;
  std::error_code EC;
  bool HasCache = fs::exists(fs::path(O.Project) / "CMakeCache.txt", EC);
  if (HasCache || O.BuildCommand.empty()) {
    ErrorOr<CMakeProject> P = readCMakeCache(O.Project);
    if (!P)
      return Failure{P.error()};
    S.Project = *P;
    return S;
  }
  if (!fs::is_directory(O.Project, EC))
    return Failure{"--project: '" + O.Project + "' is not a directory"};
  S.Project.SourceDir = fs::weakly_canonical(fs::absolute(O.Project)).string();
  return S;
}

/// One program the verifier builds and runs: the baseline (K = 0), one
/// finding's fix, or all fixes.
struct Variant {
  int K = 0;
  VerifyResult *Result = nullptr; ///< none for the baseline
  std::vector<Edit> Edits;
  double Tolerance = 0;
  std::vector<double> Samples;
  bool Active = true;
};

/// A result for finding \p Index of the findings file.
VerifyResult resultFor(const json &F, size_t Index, const VerifyOptions &O) {
  VerifyResult R;
  R.Index = static_cast<long long>(Index);
  R.Check = F.value("check", "");
  R.File = F.value("file", "");
  R.Line = F.value("line", 0LL);
  R.Column = F.value("column", 0LL);
  R.Message = F.value("message", "");
  R.Kind = "program";
  R.Command = O.Run;
  R.Variant = "finding " + std::to_string(Index);
  return R;
}

std::vector<Edit> editsOf(const json &F) {
  std::vector<Edit> Edits;
  for (const json &X : F.value("fixits", json::array()))
    Edits.push_back({X.value("file", ""), X.value("offset", 0LL),
                     X.value("length", 0LL), X.value("replacement", "")});
  return Edits;
}

void notVerifiable(VerifyResult &R, const std::string &Why,
                   const std::string &Kind) {
  R.Verdict = Outcome::NotVerifiable;
  R.Reason = Why;
  R.FailureKind = Kind;
}

class ProgramVerifier {
public:
  ProgramVerifier(const json &Findings, const VerifyOptions &O, bool Cuda,
                  VerifyReport &Report)
      : Findings(Findings), O(O), Cuda(Cuda), Report(Report) {}

  int run();

private:
  const json &Findings;
  const VerifyOptions &O;
  bool Cuda;
  VerifyReport &Report;
  std::unique_ptr<ScratchTree> Tree;
  Sandbox Box;
  Limits L;
  std::optional<std::regex> Metric;
  std::vector<Variant> Variants; ///< the baseline first
  Comparison Compare;
  VerifyResult AllFixes;
  int Rounds = 0;
  std::string Stop;

  const std::regex *metric() const { return Metric ? &*Metric : nullptr; }
  void planResults();
  int failAll(const std::string &Why, const std::string &Kind);
  void buildVariants();
  bool warmUpBaseline();
  void warmUp(Variant &V);
  void addAllFixes();
  ProgramRunResult runVariant(const Variant &V);
  void runRounds();
  /// Why the rounds stop now, or nothing while they go on.
  std::optional<std::string> roundsStop(double Seconds) const;
  void judge();
  json programSection(double BaselineBuild, double Wall) const;
};

void ProgramVerifier::planResults() {
  Variants.push_back(Variant{});
  Report.Results.reserve(Findings.size());
  for (size_t I = 0; I < Findings.size(); ++I) {
    const json &F = Findings[I];
    Report.Results.push_back(resultFor(F, I, O));
    VerifyResult &R = Report.Results.back();
    std::vector<Edit> Edits = editsOf(F);
    // The analysis found the fix-it not to compile: nothing to build.
    if (F.contains("unsafe_fix")) {
      notVerifiable(R,
                    "its fix-it does not compile: " +
                        F.value("unsafe_fix", std::string()),
                    "compile-error");
      continue;
    }
    if (Edits.empty()) {
      notVerifiable(R, "the finding has no fix-it to measure", "");
      R.Kind.clear(); // nothing was built or run for it
      R.Variant.clear();
      continue;
    }
    const CheckInfo *Info = findCheck(R.Check);
    Variant V;
    V.K = static_cast<int>(Variants.size());
    V.Result = &R;
    V.Edits = std::move(Edits);
    V.Tolerance = Info ? Info->Tolerance : 0;
    if (Info && Info->DeviceOnly && !Cuda)
      R.Reason = "no CUDA device: measured on the CPU, where the program "
                 "runs here";
    Variants.push_back(std::move(V));
  }
}

int ProgramVerifier::failAll(const std::string &Why, const std::string &Kind) {
  std::fprintf(stderr, "error: %s\n", Why.c_str());
  for (Variant &V : Variants) {
    if (V.Result)
      notVerifiable(*V.Result, Why, Kind);
    V.Active = false;
  }
  return 2;
}

void ProgramVerifier::buildVariants() {
  for (Variant &V : Variants) {
    if (!V.Result)
      continue;
    ErrorOr<double> Built = Tree->buildVariant(V.K, V.Edits);
    if (!Built) {
      notVerifiable(*V.Result, "the variant does not build: " + Built.error(),
                    Tree->lastFailureCompiled() ? "compile-error"
                                                : "fix-error");
      V.Active = false;
      continue;
    }
    V.Result->BuildSeconds = *Built;
    V.Result->BuildMethod = Tree->buildMethod(true);
  }
}

ProgramRunResult ProgramVerifier::runVariant(const Variant &V) {
  std::string Command =
      withPlaceholders(O.Run, Tree->buildDir(V.K), Tree->sourceDir(V.K));
  return runProgram(Command, Tree->variantDir(V.K), Tree->sourceDir(V.K), L,
                    metric());
}

/// Two untimed runs of the baseline: whether it runs, and what it prints
/// the same every time.
bool ProgramVerifier::warmUpBaseline() {
  ProgramRunResult First = runVariant(Variants[0]);
  if (!First.Ok) {
    failAll("the command fails on the baseline: " + First.Why,
            First.FailureKind);
    return false;
  }
  ProgramRunResult Second = runVariant(Variants[0]);
  if (!Second.Ok) {
    failAll("the command fails on the baseline: " + Second.Why,
            Second.FailureKind);
    return false;
  }
  Compare = baselineComparison(O.Compare, First.Output, Second.Output,
                               metric(), 0);
  if (Compare.Mode == "none")
    std::fprintf(stderr, "note: results not compared: %s\n",
                 Compare.Reason.c_str());
  return true;
}

/// The untimed run of a variant, whose numbers are compared with the
/// baseline's; a variant that fails or changes the results is not timed.
void ProgramVerifier::warmUp(Variant &V) {
  if (!V.Active)
    return;
  ProgramRunResult Run = runVariant(V);
  VerifyResult &R = *V.Result;
  R.Compare = Compare.Mode;
  if (!Run.Ok) {
    notVerifiable(R, Run.Why, Run.FailureKind);
    V.Active = false;
    return;
  }
  std::optional<NumberDifference> D =
      firstDifference(Compare, Run.Output, metric(), V.Tolerance);
  if (!D)
    return;
  R.Verdict = Outcome::ChangesResults;
  R.FirstDifference = D;
  const char *What = Compare.Mode == "exact" ? "line" : "number";
  R.Reason = std::string("the ") + What + " at position " +
             std::to_string(D->Position) + " is '" +
             (D->Variant.empty() ? "(missing)" : D->Variant) +
             "', the baseline prints '" +
             (D->Baseline.empty() ? "(missing)" : D->Baseline) + "'";
  V.Active = false;
}

/// All fixes that built, ran and kept the results, in one more variant.
void ProgramVerifier::addAllFixes() {
  AllFixes.Check = "(all fixes)";
  AllFixes.Kind = "program";
  AllFixes.Command = O.Run;
  AllFixes.Variant = "all fixes";
  Variant All;
  All.K = static_cast<int>(Variants.size());
  All.Result = &AllFixes;
  std::vector<std::string> Parts;
  for (const Variant &V : Variants)
    if (V.Result && V.Active) {
      All.Edits.insert(All.Edits.end(), V.Edits.begin(), V.Edits.end());
      All.Tolerance = std::max(All.Tolerance, V.Tolerance);
      Parts.push_back(std::to_string(*V.Result->Index));
    }
  if (Parts.size() < 2) {
    notVerifiable(AllFixes,
                  Parts.empty() ? "no fix built, ran and kept the results"
                                : "one fix alone kept the results: see its row",
                  "");
    return;
  }
  std::string List;
  for (const std::string &P : Parts)
    List += (List.empty() ? "" : ", ") + P;
  AllFixes.Message = "the fixes of findings " + List + " together";
  AllFixes.Variant = "all fixes: findings " + List;
  ErrorOr<double> Built = Tree->buildVariant(All.K, All.Edits);
  if (!Built) {
    notVerifiable(AllFixes, "the variant does not build: " + Built.error(),
                  Tree->lastFailureCompiled() ? "compile-error" : "fix-error");
    return;
  }
  AllFixes.BuildSeconds = *Built;
  AllFixes.BuildMethod = Tree->buildMethod(true);
  Variants.push_back(std::move(All));
  warmUp(Variants.back());
}

std::optional<std::string> ProgramVerifier::roundsStop(double Seconds) const {
  if (O.Runs > 0)
    return Rounds >= O.Runs ? std::optional<std::string>("rounds")
                            : std::nullopt;
  if (Rounds >= 200)
    return "samples";
  if (Rounds < MinProgramRounds)
    return std::nullopt;
  size_t Timed = 0;
  for (const Variant &V : Variants)
    Timed += V.Active;
  double Cap =
      O.TimeCapSet ? O.TimeCap : O.TimeCap * static_cast<double>(Timed);
  if (Seconds >= Cap)
    return "time";
  // The noise rule of the snippets: every variant's samples tight.
  StopRule Rule;
  for (const Variant &V : Variants)
    if (V.Active && (Rounds < static_cast<int>(Rule.MinSamples) ||
                     relativeSpread(V.Samples) >= Rule.NoiseTarget))
      return std::nullopt;
  return "noise";
}

/// Rounds of one run of every variant, in a new random order each round.
void ProgramVerifier::runRounds() {
  std::mt19937 Shuffle(std::random_device{}());
  auto Start = std::chrono::steady_clock::now();
  std::vector<size_t> Order;
  for (size_t I = 0; I < Variants.size(); ++I)
    if (Variants[I].Active)
      Order.push_back(I);
  if (Order.size() < 2)
    return;
  for (;;) {
    if (std::optional<std::string> Why = roundsStop(secondsSince(Start))) {
      Stop = *Why;
      break;
    }
    std::shuffle(Order.begin(), Order.end(), Shuffle);
    for (size_t I : Order) {
      Variant &V = Variants[I];
      if (!V.Active)
        continue;
      ProgramRunResult Run = runVariant(V);
      if (!Run.Ok && V.Result) {
        notVerifiable(*V.Result, Run.Why + " (in round " +
                                     std::to_string(Rounds + 1) + ")",
                      Run.FailureKind);
        V.Active = false;
        continue;
      }
      if (!Run.Ok) {
        failAll("the command failed on the baseline in round " +
                    std::to_string(Rounds + 1) + ": " + Run.Why,
                Run.FailureKind);
        return;
      }
      V.Samples.push_back(Run.Value);
    }
    ++Rounds;
  }
}

/// The verdict of every variant still timed, on the pairs of its runs with
/// the baseline's of the same round.
void ProgramVerifier::judge() {
  const std::vector<double> &Base = Variants[0].Samples;
  for (Variant &V : Variants) {
    if (!V.Result || !V.Active || V.Samples.size() != Base.size())
      continue;
    std::string Note = V.Result->Reason;
    recordJudgement(*V.Result, Base, V.Samples);
    V.Result->Runs = static_cast<long long>(V.Samples.size());
    V.Result->Stop = Stop;
    V.Result->Reason = Note;
  }
}

/// What the scratch builds precompiled, and for which targets and sources.
json pchSection(const PchState &Pch) {
  json Targets = json::array(), Skipped = json::array();
  for (const PchTarget &T : Pch.Targets)
    Targets.push_back({{"target", T.Name},
                       {"headers", T.Headers},
                       {"sources", T.Sources},
                       {"sources_without", T.Skipped}});
  for (const PchSkip &S : Pch.Skipped)
    Skipped.push_back({{"file", S.File}, {"why", S.Why}});
  json P = {{"used", Pch.Used}, {"targets", Targets}};
  if (!Pch.Note.empty())
    P["note"] = Pch.Note;
  if (!Skipped.empty())
    P["sources_without"] = Skipped;
  return P;
}

json ProgramVerifier::programSection(double BaselineBuild, double Wall) const {
  json P = {{"project", O.Project},
            {"command", O.Run},
            {"compare", Compare.Mode},
            {"baseline_build_seconds", BaselineBuild},
            {"variants", Variants.size()},
            {"rounds", Rounds},
            {"wall_seconds", Wall},
            {"sandbox", Box.Describe},
            {"time", O.Metric.empty() ? "wall time of the command, in "
                                        "microseconds"
                                      : "the number --metric captures"}};
  if (!Compare.Reason.empty())
    P["compare_reason"] = Compare.Reason;
  if (!O.Metric.empty())
    P["metric"] = O.Metric;
  if (!O.BuildCommand.empty())
    P["build_command"] = O.BuildCommand;
  if (!Cuda)
    P["note"] = "no CUDA device: every variant, device-only fixes too, ran "
                "on the CPU";
  if (Tree) {
    P["baseline_build_method"] = Tree->buildMethod(false);
    P["build_method"] = Tree->buildMethod(true);
    P["precompiled_headers"] = pchSection(Tree->pch());
  }
  return P;
}

int ProgramVerifier::run() {
  auto Start = std::chrono::steady_clock::now();
  planResults();
  Report.Program = programSection(0, 0);
  if (!O.Metric.empty()) {
    try {
      Metric.emplace(O.Metric);
    } catch (const std::regex_error &E) {
      return failAll("--metric: not a regular expression: " + O.Metric, "");
    }
  }
  ErrorOr<BuildSetup> Setup = buildSetup(O);
  if (!Setup)
    return failAll(Setup.error(), "");
  TempDir Temp;
  if (!Temp.ok())
    return failAll("cannot create a temporary directory", "");
  Setup->BuildBox = probeBuildNamespace();
  Tree = std::make_unique<ScratchTree>(Temp.path(), *Setup);
  ErrorOr<double> Baseline = Tree->buildBaseline();
  if (!Baseline)
    return failAll("the baseline does not build: " + Baseline.error(),
                   "compile-error");
  buildVariants();
  Box = probeSandbox(O.NoSandbox);
  if (!Box.Note.empty())
    std::fprintf(stderr, "%s\n", Box.Note.c_str());
  L.Seconds = O.Timeout;
  L.MemoryMiB = Cuda ? 0 : O.MemoryMiB;
  L.MaxTasks = O.MaxTasks;
  L.Confine = &Box;
  if (!warmUpBaseline())
    return 2;
  for (Variant &V : Variants)
    if (V.Result)
      warmUp(V);
  addAllFixes();
  runRounds();
  judge();
  Report.Program = programSection(*Baseline, secondsSince(Start));
  Report.AllFixes = AllFixes;
  return 0;
}

} // namespace

int verifyProgram(const json &Findings, const VerifyOptions &O, bool Cuda,
                  VerifyReport &Report) {
  ProgramVerifier V(Findings, O, Cuda, Report);
  return V.run();
}

} // namespace torchtidy
