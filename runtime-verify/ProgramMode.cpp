//===--- ProgramMode.cpp - libtorch-tidy-verify ---------------------------===//

#include "ProgramMode.h"
#include "ProgramRun.h"
#include "ProjectTree.h"
#include "Sequential.h"

#include "CheckTable.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <random>

using nlohmann::json;
namespace fs = std::filesystem;

namespace torchtidy {
namespace {

double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       Start)
      .count();
}

/// Where and how the project is built.
ErrorOr<BuildSetup> buildSetup(const VerifyOptions &O) {
  BuildSetup S;
  S.BuildCommand = O.BuildCommand;
  S.PrecompileTorch = !O.NoPrecompiledHeaders;
  S.PchAnyCompiler = O.PrecompiledHeaders;
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
  Allowance Allowed; ///< what its check lets it change in the results
  /// One per round from the first: microseconds of wall time (or the
  /// --metric number) and of CPU time.
  std::vector<double> Wall, Cpu;
  bool Active = true;  ///< built, runs and keeps the results
  bool Running = true; ///< still run in the rounds: not decided yet
  bool ByWall = false; ///< judged on wall time where CPU time is the rule
  std::optional<LookResult> Look; ///< the look that stopped it
  /// Why its rounds stopped: "decided", "undecidable" (the budget cannot
  /// decide it), or "" for the run's own stop.
  std::string StopWhy;

  const std::vector<double> &samples(bool Cpu) const {
    return Cpu && !ByWall ? this->Cpu : Wall;
  }
};

/// The baseline's samples of the first \p N rounds: those its pairs with a
/// variant run \p N rounds are made of (a variant stops at a look, the
/// baseline goes on).
std::vector<double> firstRounds(const std::vector<double> &Base, size_t N) {
  return std::vector<double>(Base.begin(),
                             Base.begin() + std::min(N, Base.size()));
}

/// Checks whose fix spends more CPU to finish sooner (data loading in
/// worker processes, one process per GPU): CPU time would call a real gain
/// a loss, so their variants are judged on wall time.
bool gainsByParallelism(const std::string &Check) {
  return Check == "torch-dataloader-workers" ||
         Check == "torch-data-parallel";
}

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
  json Probe; ///< what the rounding probe found, for the program section
  VerifyResult AllFixes;
  int Rounds = 0;
  std::string Stop;
  std::string Timing; ///< what the rounds time: cpu, wall or metric
  SequentialRule Rule;
  double Cap = 0; ///< seconds of rounds the budget allows

  bool byCpu() const { return Timing == "cpu"; }
  /// The rounds the budget cannot cut: up to the first look at which the
  /// signed-rank test can say faster or slower.
  int fewestRounds() const {
    return Rule.lookAtOrAfter(Rule.fewestPairsForTest());
  }

  const std::regex *metric() const { return Metric ? &*Metric : nullptr; }
  void planResults();
  int failAll(const std::string &Why, const std::string &Kind);
  void buildVariants();
  bool warmUpBaseline();
  void probeRounding();
  void warmUp(Variant &V);
  void addAllFixes();
  ProgramRunResult runVariant(const Variant &V);
  void runRounds();
  bool runRound(std::vector<size_t> &Order, std::mt19937 &Shuffle);
  /// Why the rounds stop now, or nothing while they go on.
  std::optional<std::string> roundsStop(double Seconds) const;
  /// Judges every variant still timed; those decided stop being run.
  void look(double Seconds, bool Final);
  void chooseTiming(const ProgramRunResult &Baseline);
  void judge();
  void judgeVariant(Variant &V);
  json programSection(double BaselineBuild, double Wall) const;
  std::string timingText() const;
  json noiseOfMeasures() const;
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
    if (Info)
      V.Allowed = {Info->Results, Info->Tolerance};
    V.ByWall = gainsByParallelism(R.Check);
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
  chooseTiming(Second);
  Compare = baselineComparison(O.Compare, First.Output, Second.Output,
                               metric(), 0);
  if (Compare.Mode == "none")
    std::fprintf(stderr, "note: results not compared: %s\n",
                 Compare.Reason.c_str());
  probeRounding();
  return true;
}

/// What the rounds time: the --metric number; else --timing; else (auto)
/// CPU time where the program runs on the CPU and keeps it busy (less
/// noise on a shared machine: waiting for a core is not counted), wall
/// time on a CUDA device, where CPU time is not the cost, or for a program
/// that mostly waits.
void ProgramVerifier::chooseTiming(const ProgramRunResult &Baseline) {
  if (!O.Metric.empty())
    Timing = "metric";
  else if (O.Timing != "auto")
    Timing = O.Timing;
  else
    Timing = !Cuda && Baseline.CpuUs >= 0.5 * Baseline.Value ? "cpu" : "wall";
}

/// One more untimed run of the baseline under the rounding probe, when a
/// fix may change the rounding of the numbers compared: how far rounding
/// alone moves them (ProgramRun.h). Its failure leaves the declared
/// tolerances.
void ProgramVerifier::probeRounding() {
  bool Rounding = std::any_of(Variants.begin(), Variants.end(), [](auto &V) {
    return V.Result && V.Active && V.Allowed.Change == ResultChange::Rounding;
  });
  if (!Rounding || Compare.Mode != "numbers")
    return;
  std::string Command =
      withPlaceholders(O.Run, Tree->buildDir(0), Tree->sourceDir(0));
  ProgramRunResult Run =
      runProgram(withRoundingProbe(Command), Tree->variantDir(0),
                 Tree->sourceDir(0), L, metric());
  Probe = {{"environment", RoundingProbe}, {"factor", ProbeFactor}};
  if (!Run.Ok || !addRoundingProbe(Compare, Run.Output, metric())) {
    Probe["failed"] = Run.Ok ? "it prints another count of numbers" : Run.Why;
    std::fprintf(stderr,
                 "note: the rounding probe (%s) failed: %s; fixes that may "
                 "change the rounding are held to their checks' tolerance\n",
                 RoundingProbe, Probe["failed"].get<std::string>().c_str());
    return;
  }
  Probe["largest_relative"] =
      *std::max_element(Compare.Sensitivity.begin(), Compare.Sensitivity.end());
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
      firstDifference(Compare, Run.Output, metric(), V.Allowed);
  if (!D) {
    // Timed as usual; how far the numbers moved is said, not judged.
    if (V.Allowed.Change == ResultChange::RandomDraws)
      if ((R.Expected = largestDifference(Compare, Run.Output, metric())))
        R.Expected->Cause = "random-draws";
    return;
  }
  R.Verdict = Outcome::ChangesResults;
  R.FirstDifference = D;
  R.Reason = differenceReason(Compare, *D, V.Allowed);
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
      All.Allowed.Change = std::max(All.Allowed.Change, V.Allowed.Change);
      All.Allowed.Tolerance =
          std::max(All.Allowed.Tolerance, V.Allowed.Tolerance);
      All.ByWall = All.ByWall || V.ByWall;
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
  bool Undecided = std::any_of(
      Variants.begin() + 1, Variants.end(),
      [](const Variant &V) { return V.Active && V.Running; });
  if (!Undecided)
    return "decided";
  if (Rounds >= Rule.lastLook())
    return "samples";
  // The budget stops no run before a faster verdict is possible at all.
  if (Rounds >= fewestRounds() && Seconds >= Cap)
    return "time";
  return std::nullopt;
}

void ProgramVerifier::look(double Seconds, bool Final) {
  // The rounds the budget left allows, at the cost of a round so far (an
  // underestimate of what is left: rounds get cheaper as variants stop).
  long long MostRounds = Rounds;
  if (Rounds > 0 && Seconds > 0 && Cap > Seconds)
    MostRounds += static_cast<long long>((Cap - Seconds) / (Seconds / Rounds));
  // The rounds before the first look that can say faster run anyway.
  MostRounds = std::max<long long>(MostRounds, fewestRounds());
  if (Final)
    MostRounds = Rounds;
  const std::vector<double> &Base = Variants[0].samples(byCpu());
  for (size_t I = 1; I < Variants.size(); ++I) {
    Variant &V = Variants[I];
    if (!V.Active || !V.Running)
      continue;
    const std::vector<double> &After = V.samples(byCpu());
    LookResult L = judgeAtLook(firstRounds(Base, After.size()), After,
                               MostRounds, Rule);
    if (!L.Done && !Final)
      continue;
    if (L.J.Decision != Verdict::Ambiguous)
      V.StopWhy = "decided";
    else if (!Final)
      V.StopWhy = "undecidable";
    V.Look = std::move(L);
    V.Running = false;
  }
}

/// One round: every variant still timed runs once, the baseline too, in a
/// new random order. False when the baseline failed (everything stops).
bool ProgramVerifier::runRound(std::vector<size_t> &Order,
                               std::mt19937 &Shuffle) {
  Order.clear();
  for (size_t I = 0; I < Variants.size(); ++I)
    if (Variants[I].Active && (I == 0 || Variants[I].Running))
      Order.push_back(I);
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
      return false;
    }
    V.Wall.push_back(Run.Value);
    V.Cpu.push_back(Run.CpuUs);
  }
  ++Rounds;
  return true;
}

/// Rounds until every variant is decided, the budget is spent or --runs.
void ProgramVerifier::runRounds() {
  std::mt19937 Shuffle(std::random_device{}());
  auto Start = std::chrono::steady_clock::now();
  size_t Timed = 0;
  for (const Variant &V : Variants)
    Timed += V.Active;
  if (Timed < 2)
    return;
  Cap = O.TimeCapSet ? O.TimeCap : O.TimeCap * static_cast<double>(Timed);
  std::vector<size_t> Order;
  for (;;) {
    if (std::optional<std::string> Why = roundsStop(secondsSince(Start))) {
      Stop = *Why;
      break;
    }
    if (!runRound(Order, Shuffle))
      return;
    if (Rule.isLook(Rounds))
      look(secondsSince(Start), false);
  }
  look(secondsSince(Start), true);
}

/// The verdict of a variant on the pairs of its runs with the baseline's of
/// the same rounds, at the look that stopped it.
void ProgramVerifier::judgeVariant(Variant &V) {
  const std::vector<double> &After = V.samples(byCpu());
  const std::vector<double> &Base = Variants[0].samples(byCpu());
  if (After.empty() || After.size() > Base.size())
    return;
  std::vector<double> Before = firstRounds(Base, After.size());
  VerifyResult &R = *V.Result;
  std::string Note = R.Reason;
  bool WallInstead = V.ByWall && byCpu();
  R.Time = WallInstead ? "wall" : Timing;
  R.Runs = static_cast<long long>(After.size());
  if (!V.Look)
    return;
  recordJudgement(R, Before, After, V.Look->J);
  R.Stop = V.StopWhy.empty() ? Stop : V.StopWhy;
  std::string Why =
      V.Look->J.Decision == Verdict::Ambiguous ? V.Look->Why : "";
  R.Reason = Note.empty() ? Why : Why.empty() ? Note : Note + "; " + Why;
  if (WallInstead)
    R.Reason += std::string(R.Reason.empty() ? "" : "; ") +
                "timed by wall time: the fix spends CPU in parallel to "
                "finish sooner";
}

void ProgramVerifier::judge() {
  for (Variant &V : Variants)
    if (V.Result && V.Active)
      judgeVariant(V);
}

/// The noise of both measures on this run, side by side: the median over
/// the variants timed of the IQR/median of their pair ratios, by CPU time
/// and by wall time (with --metric, the metric's in place of wall time).
json ProgramVerifier::noiseOfMeasures() const {
  std::vector<double> ByCpu, ByWall;
  const Variant &Base = Variants[0];
  for (size_t I = 1; I < Variants.size(); ++I) {
    const Variant &V = Variants[I];
    size_t N = V.Wall.size();
    if (N < 2 || N > Base.Wall.size() || V.Cpu.size() != N)
      continue;
    ByWall.push_back(
        relativeSpread(pairRatios(firstRounds(Base.Wall, N), V.Wall)));
    if (Base.Cpu.size() >= N && V.Cpu[0] > 0)
      ByCpu.push_back(
          relativeSpread(pairRatios(firstRounds(Base.Cpu, N), V.Cpu)));
  }
  json Noise = json::object();
  if (!ByCpu.empty())
    Noise["cpu"] = median(ByCpu);
  if (!ByWall.empty())
    Noise[Timing == "metric" ? "metric" : "wall"] = median(ByWall);
  return Noise;
}

std::string ProgramVerifier::timingText() const {
  if (Timing == "metric")
    return "the number --metric captures";
  if (Timing == "cpu")
    return "CPU time of the command (user and system, every process and "
           "thread), in microseconds";
  return "wall time of the command, in microseconds";
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
            {"timing", Timing},
            {"looks", Rule.Looks},
            {"alpha", Rule.Alpha},
            {"noise", noiseOfMeasures()},
            {"wall_seconds", Wall},
            {"sandbox", Box.Describe},
            {"time", timingText()}};
  if (!Compare.Reason.empty())
    P["compare_reason"] = Compare.Reason;
  if (!Probe.is_null())
    P["rounding_probe"] = Probe;
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
  // --runs N: one look, after N rounds.
  if (O.Runs > 0)
    Rule.Looks = {static_cast<int>(O.Runs)};
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
