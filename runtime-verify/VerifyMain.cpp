//===--- VerifyMain.cpp - libtorch-tidy-verify ----------------------------===//
//
//   libtorch-tidy-verify FINDINGS.json [--json REPORT.json]
//       [--html REPORT.html] [--merge-into FILE] [options]
//
// Gives each finding of `libtorch-tidy --export-findings` a verdict on this
// machine. A finding whose snippet can be bound (see Harness.h) is rebuilt
// before and after its fix in one generated translation unit and run in a
// child process: outputs compared first, then both variants timed
// interleaved (kind `snippet`). The child runs sandboxed where bubblewrap or
// unshare works, with time, memory and process-count limits (Process.h;
// docs/verifier.md, "Safety"). Findings whose gain lies outside their
// statement (a mode switched on, zero_grad, a conv bias) or whose snippet
// cannot be bound use the check's reference benchmark (kind `reference`).
//
// Exit codes: 0 verified (whatever the verdicts); 2 bad input (command line,
// findings file, config, --torch-dir); 3 snippets needed a LibTorch to build
// against and none was found (the report is still written). One line on
// stderr for each.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "Process.h"
#include "Reference.h"
#include "Report.h"
#include "Stats.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#ifndef LIBTORCH_TIDY_VERIFY_SUPPORT_DIR
#define LIBTORCH_TIDY_VERIFY_SUPPORT_DIR ""
#endif

using nlohmann::json;
using namespace torchtidy;
namespace fs = std::filesystem;

namespace {

constexpr int FindingsVersion = 1;
constexpr int ReportVersion = 1;

const char *Usage =
    "usage: libtorch-tidy-verify FINDINGS.json [--json REPORT.json] "
    "[--html REPORT.html] [--merge-into FINDINGS-or-SARIF] [--time-cap S] "
    "[--timeout S] [--memory-limit MIB] [--torch-dir DIR] [--cxx COMPILER] "
    "[--shape NAME=DIMS]... [--value NAME=V]... [--config FILE] "
    "[--cache-dir DIR | --no-cache] [--measure-on-cpu] [--no-sandbox] "
    "[--max-processes N]";

int fail(const std::string &Message) {
  std::fprintf(stderr, "error: %s\n", Message.c_str());
  return 2;
}

/// The findings file, checked field by field; std::nullopt and \p Error on
/// anything unexpected.
std::optional<json> readFindings(const std::string &Path, std::string &Error) {
  std::ifstream In(Path);
  if (!In) {
    Error = "cannot read '" + Path + "'";
    return std::nullopt;
  }
  json Doc = json::parse(In, nullptr, /*allow_exceptions=*/false);
  if (Doc.is_discarded()) {
    Error = "'" + Path + "' is not valid JSON";
    return std::nullopt;
  }
  if (!Doc.is_object() || Doc.value("format", "") != "libtorch-tidy-findings" ||
      !Doc.contains("version") || !Doc["version"].is_number_integer()) {
    Error = "'" + Path + "' is not a libtorch-tidy findings file";
    return std::nullopt;
  }
  int Version = Doc["version"].get<int>();
  if (Version != FindingsVersion) {
    Error = "'" + Path + "' has findings format version " +
            std::to_string(Version) + "; this verifier reads version " +
            std::to_string(FindingsVersion);
    return std::nullopt;
  }
  if (!Doc.contains("findings") || !Doc["findings"].is_array()) {
    Error = "'" + Path + "' has no findings list";
    return std::nullopt;
  }
  for (const json &F : Doc["findings"]) {
    if (!F.is_object() || !F.contains("check") || !F["check"].is_string() ||
        !F.contains("message") || !F["message"].is_string() ||
        !F.contains("line") || !F["line"].is_number_integer()) {
      Error = "'" + Path + "' has a finding without check, message or line";
      return std::nullopt;
    }
    if (F.contains("code") && (!F["code"].is_object() ||
                               !F["code"].value("before", json()).is_string() ||
                               !F["code"].value("after", json()).is_string())) {
      Error =
          "'" + Path + "' has a finding whose code has no before/after text";
      return std::nullopt;
    }
  }
  return Doc;
}

std::string today() {
  std::time_t Now = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%d", std::gmtime(&Now));
  return Buf;
}

/// The first line a program prints; run from its argv, never by a shell.
std::string firstLineOf(const std::vector<std::string> &Argv) {
  ProcessResult R = runProcess(Argv, "", Limits{30, 0});
  if (!R.Started || R.ExitCode != 0)
    return "";
  std::string Line = R.Output.substr(0, R.Output.find('\n'));
  while (!Line.empty() && (Line.back() == '\r' || Line.back() == ' '))
    Line.pop_back();
  return Line;
}

/// What this machine is, for every report (measurement.md rule 10).
json environment(bool Cuda) {
  json Env = {{"device", Cuda ? "cuda" : "cpu"},
              {"libtorch", TORCH_VERSION},
              {"threads", torch::get_num_threads()},
              {"date", today()}};
  std::ifstream CpuInfo("/proc/cpuinfo");
  for (std::string L; std::getline(CpuInfo, L);)
    if (L.rfind("model name", 0) == 0) {
      Env["cpu"] = L.substr(L.find(':') + 2);
      break;
    }
  // LibTorch's build configuration names its CUDA runtime and cuDNN.
  std::string Config = at::show_config();
  std::smatch M;
  if (std::regex_search(Config, M, std::regex("CUDA Runtime ([0-9.]+)")))
    Env["cuda"] = M[1].str();
  if (std::regex_search(Config, M, std::regex("CuDNN ([0-9.]+)")))
    Env["cudnn"] = M[1].str();
  if (Cuda) {
    std::string Smi =
        firstLineOf({"nvidia-smi", "--query-gpu=name,driver_version",
                     "--format=csv,noheader"});
    if (size_t Comma = Smi.find(", "); Comma != std::string::npos) {
      Env["device_name"] = Smi.substr(0, Comma);
      Env["driver"] = Smi.substr(Comma + 2);
    }
  }
  return Env;
}

struct Options {
  std::string Findings, Json, Html, MergeInto, TorchDir, Cxx, CacheDir;
  double TimeCap = 10, Timeout = 120;
  long MemoryMiB = 8192;
  /// LibTorch runs about three thread pools of one thread per core.
  long MaxTasks =
      64 +
      4 * static_cast<long>(std::max(1u, std::thread::hardware_concurrency()));
  bool NoCache = false, MeasureOnCpu = false, NoSandbox = false;
  BindingConfig Config;
};

/// Speedup, interval, test and verdict of interleaved samples, into \p R.
/// Before[I] and After[I] ran back to back, so the statistics are paired:
/// the ratio of each pair cancels the drifts of a shared machine, which
/// would otherwise blur both variants alike (measured: a 62% IQR/median of
/// raw samples during a busy spell, 4.5% for their pair ratios).
void judge(const std::vector<double> &Before, const std::vector<double> &After,
           json &R) {
  bool Paired = Before.size() == After.size();
  Interval Speedup = Paired ? pairedBootstrapSpeedup(Before, After)
                            : bootstrapSpeedup(Before, After);
  RankTest Test =
      Paired ? wilcoxonSignedRank(Before, After) : mannWhitneyU(Before, After);
  double Spread = relativeSpread(pairRatios(Before, After));
  Verdict V = Paired ? decide(Speedup, Test, Spread, Spread)
                     : decide(Speedup, Test, relativeSpread(Before),
                              relativeSpread(After));
  R["verdict"] = verdictName(V);
  R["test"] =
      Paired ? "Wilcoxon signed-rank on the pair ratios" : "Mann-Whitney U";
  if (Paired)
    R["ratio_spread"] = Spread;
  R["speedup"] = {
      {"point", Speedup.Point}, {"low", Speedup.Low}, {"high", Speedup.High}};
  R["p_value"] = Test.P;
  R["before_us"] = {{"median", median(Before)}, {"iqr", iqr(Before)}};
  R["after_us"] = {{"median", median(After)}, {"iqr", iqr(After)}};
  R["samples"] = Before.size();
  // In measuring order (before and after interleaved), for the user's own
  // analysis.
  R["samples_us"] = {{"before", Before}, {"after", After}};
}

bool isDeviceOnly(const std::string &Check) {
  return Check == "torch-host-sync-in-loop" ||
         Check == "torch-blocking-host-to-device-copy" ||
         Check == "torch-host-tensor-to-device";
}

bool isAnomaly(const json &F) {
  return F["check"] == "torch-debug-api-enabled" &&
         F["message"].get<std::string>().find("anomaly detection") !=
             std::string::npos;
}

/// Why a finding's own statement cannot show its gain, for the checks whose
/// fix pays off in code around it; empty for the others.
std::string referenceOnlyReason(const json &F) {
  std::string Check = F["check"];
  if (isAnomaly(F))
    return "anomaly mode costs in every later backward(), not in the "
           "statement that switches it on";
  if (Check == "torch-zero-grad")
    return "zero_grad's cost shows in the training step around it "
           "(backward() then accumulates into zeros or writes fresh "
           "gradients)";
  if (Check == "torch-conv-bias-before-batchnorm")
    return "the bias costs in every forward and backward of the model, not "
           "in the statement that builds the convolution";
  return "";
}

std::vector<int64_t> literalSizes(const std::string &Braced) {
  std::vector<int64_t> Out;
  std::regex Num("[0-9]+");
  for (auto It = std::sregex_iterator(Braced.begin(), Braced.end(), Num);
       It != std::sregex_iterator(); ++It)
    Out.push_back(std::stoll(It->str()));
  return Out;
}

/// Runs the check's reference benchmark for \p F, parameterized by what its
/// payload knows; false when the check has none.
bool runReference(const json &F, const Options &O, json &R) {
  StopRule Rule;
  Rule.TimeCapSeconds = O.TimeCap;
  std::string Check = F["check"];
  const json Code = F.value("code", json::object());
  std::string Before = Code.value("before", "");
  // Findings with the same workload share one measurement.
  static std::map<std::string, Samples> Measured;
  std::function<Samples()> Measure;
  std::string Key = Check;
  if (isAnomaly(F)) {
    Measure = [&] {
      return measureAnomalyMode(/*Batch=*/16, /*StepsPerSample=*/1,
                                /*FixedRounds=*/0, Rule);
    };
  } else if (Check == "torch-zero-grad") {
    Measure = [&] { return measureZeroGrad(/*FixedRounds=*/0, Rule); };
  } else if (Check == "torch-conv-bias-before-batchnorm") {
    ConvBiasParams P;
    std::smatch M;
    // Conv2dOptions(3, 16, 3) or Conv2d(3, 16, 3): the sizes in the code.
    if (std::regex_search(
            Before, M,
            std::regex(
                R"(Conv([123])d(Options)?\(\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*[,)])"))) {
      P.Dim = std::stoi(M[1].str());
      P.InChannels = std::stoll(M[3].str());
      P.OutChannels = std::stoll(M[4].str());
      P.Kernel = std::stoll(M[5].str());
    }
    Key += ":" + std::to_string(P.Dim) + "," + std::to_string(P.InChannels) +
           "," + std::to_string(P.OutChannels) + "," + std::to_string(P.Kernel);
    Measure = [&Rule, P] { return measureConvBias(P, 0, Rule); };
  } else if (Check == "torch-host-tensor-to-device") {
    HostTensorParams P;
    for (const json &Shape : Code.value("shapes", json::array()))
      if (Shape.is_string() && !literalSizes(Shape).empty()) {
        P.Shape = literalSizes(Shape);
        Key += ":" + Shape.get<std::string>();
        break;
      }
    Measure = [&Rule, P] { return measureHostTensorToDevice(P, 0, Rule); };
  } else if (Check == "torch-host-sync-in-loop") {
    Measure = [&] { return measureHostSyncInLoop(HostSyncParams(), 0, Rule); };
  } else if (Check == "torch-blocking-host-to-device-copy") {
    Measure = [&] {
      return measureBlockingCopy(BlockingCopyParams(), 0, Rule);
    };
  } else {
    return false;
  }
  auto It = Measured.find(Key);
  if (It == Measured.end())
    It = Measured.emplace(Key, Measure()).first;
  const Samples &S = It->second;
  R["kind"] = "reference";
  if (S.Before.empty() || S.After.empty()) {
    R["verdict"] =
        S.StopReason == "no CUDA device" ? "not-applicable" : "not-verifiable";
    R["reason"] = "reference benchmark: " + S.StopReason;
    return true;
  }
  judge(S.Before, S.After, R);
  R["stop"] = S.StopReason;
  R["workload"] = S.Workload;
  if (S.MaxAbsDiff >= 0)
    R["difference"] = {{"max_abs", S.MaxAbsDiff}, {"equal", true}};
  return true;
}

struct PendingSnippet {
  size_t Result; ///< index in Results
  HarnessEntry Entry;
};

json readJsonFile(const fs::path &P) {
  std::ifstream In(P);
  if (!In)
    return json();
  json J = json::parse(In, nullptr, false);
  return J.is_discarded() ? json() : J;
}

std::string signalName(int Sig) {
  const char *Name = ::strsignal(Sig);
  return Name ? std::string(Name) + " (signal " + std::to_string(Sig) + ")"
              : "signal " + std::to_string(Sig);
}

/// The run of one harness child failed: say how, in \p R.
void childFailure(const ProcessResult &P, const Options &O, json &R) {
  R["verdict"] = "not-verifiable";
  if (!P.Started) {
    R["failure"] = "not-started";
    R["reason"] = "the snippet could not be started" +
                  (P.Output.empty() ? "" : ": " + P.Output);
    return;
  }
  if (P.TaskLimit) {
    R["failure"] = "process-limit";
    R["reason"] = "the snippet reached its limit of " +
                  std::to_string(O.MaxTasks) +
                  " processes and threads and was stopped";
    return;
  }
  if (P.TimedOut) {
    R["failure"] = "timeout";
    R["reason"] = "the snippet ran past the " +
                  std::to_string(static_cast<int>(O.Timeout)) +
                  " s limit and was killed";
    return;
  }
  std::string Out = P.Output;
  bool OutOfMemory = Out.find("can't allocate memory") != std::string::npos ||
                     Out.find("bad_alloc") != std::string::npos;
  if (OutOfMemory && O.MemoryMiB > 0) {
    R["failure"] = "memory-limit";
    R["reason"] = "the snippet ran out of its " + std::to_string(O.MemoryMiB) +
                  " MiB memory limit";
  } else if (P.Signal) {
    R["failure"] = "crash";
    R["reason"] = "the snippet crashed: " + signalName(P.Signal);
  } else if (size_t At = Out.find("ltt-exception: ");
             P.ExitCode == 3 && At != std::string::npos) {
    R["failure"] = "exception";
    std::string What = Out.substr(At + 15);
    R["reason"] = "the snippet threw: " + What.substr(0, What.find('\n'));
  } else {
    R["failure"] = "crash";
    R["reason"] =
        "the snippet exited with status " + std::to_string(P.ExitCode);
  }
}

/// Builds and runs the bound snippets, filling their results.
int runSnippets(std::vector<PendingSnippet> &Pending, const Options &O,
                bool Cuda, json &Results, json &Env) {
  std::vector<std::string> Tried;
  std::optional<TorchInstall> Torch = locateTorch(O.TorchDir, Tried);
  if (!Torch) {
    std::string Looked;
    for (const std::string &T : Tried)
      Looked += (Looked.empty() ? "" : "; ") + T;
    std::string Why =
        "no LibTorch found to build the snippets (looked at: " + Looked +
        "); give one with --torch-dir";
    for (PendingSnippet &P : Pending) {
      Results[P.Result]["verdict"] = "not-verifiable";
      Results[P.Result]["failure"] = "no-libtorch";
      Results[P.Result]["reason"] = Why;
    }
    std::fprintf(stderr, "error: %s\n", Why.c_str());
    return O.TorchDir.empty() ? 3 : 2;
  }
  Toolchain T;
  T.Torch = *Torch;
  T.Cxx = O.Cxx;
  if (T.Cxx.empty() && std::getenv("CXX") && *std::getenv("CXX"))
    T.Cxx = std::getenv("CXX");
  // clang++-19 precompiles the support header; GPU machines may have only
  // g++ (then it is included, not precompiled).
  if (T.Cxx.empty())
    T.Cxx = compilerVersion("clang++-19").empty() ? "c++" : "clang++-19";
  const char *Support = std::getenv("LIBTORCH_TIDY_VERIFY_SUPPORT");
  T.SupportDir =
      Support && *Support ? Support : LIBTORCH_TIDY_VERIFY_SUPPORT_DIR;
  if (!O.NoCache) {
    // Absolute: the compiler runs in the temporary directory.
    T.CacheDir = O.CacheDir.empty() ? "" : fs::absolute(O.CacheDir).string();
    if (T.CacheDir.empty()) {
      const char *Xdg = std::getenv("XDG_CACHE_HOME");
      const char *Home = std::getenv("HOME");
      if (Xdg && *Xdg)
        T.CacheDir = std::string(Xdg) + "/libtorch-tidy";
      else if (Home && *Home)
        T.CacheDir = std::string(Home) + "/.cache/libtorch-tidy";
    }
  }
  T.CxxVersion = compilerVersion(T.Cxx);
  Env["compiler"] = T.CxxVersion;
  Env["torch_dir"] = T.Torch.CMakeDir + " (" + T.Torch.From + ")";

  // The probe starts a sandbox once.
  Sandbox Box = probeSandbox(O.NoSandbox);
  Env["sandbox"] = Box.Describe;
  if (!Box.Note.empty())
    std::fprintf(stderr, "%s\n", Box.Note.c_str());
  std::string TaskLimit = taskLimitMechanism();
  Env["process_limit"] = TaskLimit.rfind("none", 0) == 0
                             ? TaskLimit
                             : std::to_string(O.MaxTasks) +
                                   " processes and threads (" + TaskLimit + ")";
  if (TaskLimit.rfind("none", 0) == 0)
    std::fprintf(stderr, "note: no process-count limit (%s)\n",
                 TaskLimit.c_str() + 6);
  TempDir Work;
  if (!Work.ok()) {
    std::fprintf(stderr, "error: cannot create a temporary directory\n");
    return 2;
  }
  // One translation unit for all; when it does not build, one per finding,
  // so that one snippet's error is reported for that finding alone.
  std::vector<HarnessEntry> All;
  for (const PendingSnippet &P : Pending)
    All.push_back(P.Entry);
  std::vector<std::string> Binary(Pending.size());
  std::vector<int> EntryOf(Pending.size());
  BuildResult Combined =
      buildHarness(T, generateHarness(All), Work.path(), "harness");
  if (Combined.Ok) {
    for (size_t I = 0; I < Pending.size(); ++I) {
      Binary[I] = Combined.Binary;
      EntryOf[I] = static_cast<int>(I);
    }
  } else {
    for (size_t I = 0; I < Pending.size(); ++I) {
      BuildResult One =
          Pending.size() == 1
              ? Combined
              : buildHarness(T, generateHarness({Pending[I].Entry}),
                             Work.path(), "harness" + std::to_string(I));
      if (One.Ok) {
        Binary[I] = One.Binary;
        EntryOf[I] = 0;
        continue;
      }
      json &R = Results[Pending[I].Result];
      R["verdict"] = "not-verifiable";
      R["failure"] = "compile-error";
      R["reason"] = "the snippet does not compile here: " + One.Errors;
    }
  }

  Limits L;
  L.Seconds = O.Timeout;
  L.MemoryMiB = Cuda ? 0 : O.MemoryMiB;
  L.MaxTasks = O.MaxTasks;
  // LibTorch's libraries (and pip's CUDA libraries beside them) under /tmp
  // would be hidden by the sandbox's own /tmp.
  Sandbox Confine = Box;
  Confine.ReadOnly.push_back(
      fs::path(T.Torch.LibDir).parent_path().parent_path().string());
  L.Confine = &Confine;
  for (size_t I = 0; I < Pending.size(); ++I) {
    if (Binary[I].empty())
      continue;
    json &R = Results[Pending[I].Result];
    R["kind"] = "snippet";
    std::string Entry = std::to_string(EntryOf[I]);
    fs::path CheckOut = fs::path(Work.path()) / ("check" + std::to_string(I));
    ProcessResult P = runProcess({Binary[I], "--entry", Entry, "--mode",
                                  "check", "--out", CheckOut.string()},
                                 Work.path(), L);
    json Diff = readJsonFile(CheckOut);
    if (P.TimedOut || P.Signal || P.ExitCode != 0 || !Diff.is_object()) {
      childFailure(P, O, R);
      continue;
    }
    R["difference"] = {{"max_abs", Diff["max_abs"]},
                       {"max_rel", Diff["max_rel"]},
                       {"compared", Diff["compared"]},
                       {"equal", Diff["equal"]}};
    if (!Diff["equal"].get<bool>()) {
      R["verdict"] = "changes-results";
      R["reason"] = "the code after the fix leaves different values: " +
                    Diff["first"].get<std::string>();
      continue;
    }
    fs::path TimeOut = fs::path(Work.path()) / ("time" + std::to_string(I));
    P = runProcess({Binary[I], "--entry", Entry, "--mode", "time", "--out",
                    TimeOut.string(), "--time-cap", std::to_string(O.TimeCap),
                    // Samples are short (10 ms): take enough that the
                    // interval can also show "same".
                    "--min-samples", "30"},
                   Work.path(), L);
    json Times = readJsonFile(TimeOut);
    if (P.TimedOut || P.Signal || P.ExitCode != 0 || !Times.is_object()) {
      childFailure(P, O, R);
      continue;
    }
    auto Before = Times["before_us"].get<std::vector<double>>();
    auto After = Times["after_us"].get<std::vector<double>>();
    judge(Before, After, R);
    R["stop"] = Times["stop"];
    if (Times.contains("gpu_before_us")) {
      auto GB = Times["gpu_before_us"].get<std::vector<double>>();
      auto GA = Times["gpu_after_us"].get<std::vector<double>>();
      R["gpu_before_us"] = {{"median", median(GB)}, {"iqr", iqr(GB)}};
      R["gpu_after_us"] = {{"median", median(GA)}, {"iqr", iqr(GA)}};
    }
    if (Diff["skipped"].size()) {
      std::string Names;
      for (const json &N : Diff["skipped"])
        Names += (Names.empty() ? "" : ", ") + N.get<std::string>();
      R["reason"] = "not compared (the harness reads no state of their "
                    "type): " +
                    Names;
    }
  }
  return 0;
}

void onSignal(int Sig) {
  killRunningChild();
  // Only ever one of ours, even if the handler caught it half-written.
  if (const char *Dir = liveTempDir();
      Dir && std::strstr(Dir, "/libtorch-tidy-verify.")) {
    std::error_code EC;
    fs::remove_all(Dir, EC);
  }
  ::_exit(128 + Sig);
}

} // namespace

int main(int argc, char **argv) {
  Options O;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Value = [&](std::string &To) {
      if (I + 1 >= argc)
        return false;
      To = argv[++I];
      return true;
    };
    std::string V, Error;
    if (A == "--help" || A == "-h") {
      std::printf("%s\n", Usage);
      return 0;
    }
    if (A == "--no-cache") {
      O.NoCache = true;
    } else if (A == "--no-sandbox") {
      O.NoSandbox = true;
    } else if (A == "--measure-on-cpu") {
      O.MeasureOnCpu = true;
    } else if (A == "--json" || A == "--html" || A == "--merge-into" ||
               A == "--torch-dir" || A == "--cxx" || A == "--cache-dir" ||
               A == "--time-cap" || A == "--timeout" || A == "--memory-limit" ||
               A == "--max-processes" || A == "--shape" || A == "--value" ||
               A == "--config") {
      if (!Value(V))
        return fail(A + " needs a value");
      if (A == "--json")
        O.Json = V;
      else if (A == "--html")
        O.Html = V;
      else if (A == "--merge-into")
        O.MergeInto = V;
      else if (A == "--torch-dir")
        O.TorchDir = V;
      else if (A == "--cxx")
        O.Cxx = V;
      else if (A == "--cache-dir")
        O.CacheDir = V;
      else if (A == "--shape" && !parseShapeOption(V, O.Config, Error))
        return fail(Error);
      else if (A == "--value" && !parseValueOption(V, O.Config, Error))
        return fail(Error);
      else if (A == "--config" && !readConfigFile(V, O.Config, Error))
        return fail(Error);
      else if (A == "--time-cap" || A == "--timeout" || A == "--memory-limit" ||
               A == "--max-processes") {
        char *End = nullptr;
        double N = std::strtod(V.c_str(), &End);
        if (End == V.c_str() || *End || N < 0 ||
            (N == 0 && A != "--memory-limit") ||
            (N < 1 && A == "--max-processes"))
          return fail(A + " needs a positive number");
        if (A == "--time-cap")
          O.TimeCap = N;
        else if (A == "--timeout")
          O.Timeout = N;
        else if (A == "--max-processes")
          O.MaxTasks = static_cast<long>(N);
        else
          O.MemoryMiB = static_cast<long>(N);
      }
    } else if (!A.empty() && A[0] == '-') {
      return fail("unknown option " + A + "\n" + Usage);
    } else if (O.Findings.empty()) {
      O.Findings = A;
    } else {
      return fail("one findings file at a time");
    }
  }
  if (O.Findings.empty())
    return fail(Usage);
  std::string Error;
  std::optional<json> Doc = readFindings(O.Findings, Error);
  if (!Doc)
    return fail(Error);
  std::optional<json> MergeTarget;
  if (!O.MergeInto.empty()) {
    std::ifstream In(O.MergeInto);
    json Target = In ? json::parse(In, nullptr, false) : json();
    if (!In || Target.is_discarded())
      return fail("--merge-into: cannot read JSON from '" + O.MergeInto + "'");
    MergeTarget = Target;
  }
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  if (!dieWithParentIfAsked())
    return 128 + SIGTERM;
  // What verifiers killed with SIGKILL left behind: their temporary
  // directories, and their cgroups (removed when the mechanism is probed).
  removeStaleTempDirs();
  taskLimitMechanism();

  bool Cuda = torch::cuda::is_available();
  json Results = json::array();
  std::vector<PendingSnippet> Pending;
  std::vector<size_t> References;
  const json &Findings = (*Doc)["findings"];
  for (size_t I = 0; I < Findings.size(); ++I) {
    const json &F = Findings[I];
    std::string Check = F["check"];
    json R = {{"index", I},
              {"check", Check},
              {"file", F.value("file", "")},
              {"line", F["line"]},
              {"column", F.value("column", 0)},
              {"message", F["message"]}};
    json Code = F.value("code", json::object());
    bool HasFix = Code.value("before", "") != Code.value("after", "");
    if (!HasFix) {
      R["verdict"] = "not-verifiable";
      R["reason"] = "the finding has no fix-it to measure";
    } else if (isDeviceOnly(Check) && !Cuda && !O.MeasureOnCpu) {
      R["verdict"] = "not-applicable";
      R["reason"] = "no CUDA device: on the CPU a host-device "
                    "synchronization or copy has nothing to overlap with "
                    "(--measure-on-cpu measures it anyway)";
    } else if (!referenceOnlyReason(F).empty()) {
      R["reason"] = referenceOnlyReason(F);
      References.push_back(Results.size());
    } else {
      Binding B = bindSnippet(Code, O.Config);
      std::vector<std::string> Devices =
          Code.value("devices", std::vector<std::string>());
      bool NamesCuda =
          std::find(Devices.begin(), Devices.end(), "kCUDA") != Devices.end();
      if (NamesCuda && !Cuda) {
        R["verdict"] = "not-applicable";
        R["reason"] = "the code names kCUDA and this machine has no CUDA "
                      "device";
      } else if (B.Bound) {
        Pending.push_back(
            {Results.size(),
             {static_cast<int>(I), B, Code, F.value("file", "")}});
      } else {
        R["reason"] = "snippet not bound: " + B.Reason;
        References.push_back(Results.size());
      }
    }
    Results.push_back(R);
  }

  json Env = environment(Cuda);
  int Exit = 0;
  if (!Pending.empty())
    Exit = runSnippets(Pending, O, Cuda, Results, Env);
  for (size_t Index : References) {
    json &R = Results[Index];
    std::string Why = R.value("reason", "");
    if (!runReference(Findings[R["index"].get<size_t>()], O, R)) {
      R["verdict"] = "not-verifiable";
      R["reason"] = Why + "; and " + R["check"].get<std::string>() +
                    " has no reference benchmark";
    } else if (!R.contains("reason")) {
      R["reason"] = Why;
    } else if (R["reason"] != Why) {
      R["reason"] = Why + "; " + R["reason"].get<std::string>();
    }
  }

  json Report = {{"format", "libtorch-tidy-verify-report"},
                 {"version", ReportVersion},
                 {"environment", Env},
                 {"results", Results}};
  std::fputs(renderTable(Report).c_str(), stdout);
  std::fflush(stdout);
  if (!O.Json.empty() &&
      !writeFileAtomically(O.Json, Report.dump(2) + "\n", Error))
    return fail(Error);
  if (!O.Html.empty() &&
      !writeFileAtomically(O.Html, renderHtml(Report), Error))
    return fail(Error);
  if (MergeTarget) {
    if (!mergeVerdicts(Report, *MergeTarget, Error))
      return fail("--merge-into: " + Error);
    if (!writeFileAtomically(O.MergeInto, MergeTarget->dump(2) + "\n", Error))
      return fail(Error);
  }
  return Exit;
}
