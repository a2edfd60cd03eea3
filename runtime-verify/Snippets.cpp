//===--- Snippets.cpp - libtorch-tidy-verify ------------------------------===//

#include "Snippets.h"
#include "Process.h"
#include "ReferenceVerdict.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#ifndef LIBTORCH_TIDY_VERIFY_SUPPORT_DIR
#define LIBTORCH_TIDY_VERIFY_SUPPORT_DIR ""
#endif

using nlohmann::json;
namespace fs = std::filesystem;

namespace torchtidy {
namespace {

std::string envOr(const char *Name, const std::string &Default) {
  const char *V = std::getenv(Name);
  return V && *V ? V : Default;
}

/// Where the precompiled support header is kept; "" for nowhere.
std::string cacheDir(const VerifyOptions &O) {
  if (O.NoCache)
    return "";
  // Absolute: the compiler runs in the temporary directory.
  if (!O.CacheDir.empty())
    return fs::absolute(O.CacheDir).string();
  if (std::string Xdg = envOr("XDG_CACHE_HOME", ""); !Xdg.empty())
    return Xdg + "/libtorch-tidy";
  if (std::string Home = envOr("HOME", ""); !Home.empty())
    return Home + "/.cache/libtorch-tidy";
  return "";
}

/// --cxx, else $CXX, else clang++-19 where installed, else c++.
std::string compilerFor(const VerifyOptions &O) {
  if (!O.Cxx.empty())
    return O.Cxx;
  if (std::string Cxx = envOr("CXX", ""); !Cxx.empty())
    return Cxx;
  // clang++-19 precompiles the support header; GPU machines may have only
  // g++ (then it is included, not precompiled).
  return compilerVersion("clang++-19").empty() ? "c++" : "clang++-19";
}

/// The compiler, LibTorch, support sources and cache for the harnesses, or
/// why no LibTorch was found.
ErrorOr<Toolchain> toolchainFor(const VerifyOptions &O) {
  std::vector<std::string> Tried;
  std::optional<TorchInstall> Torch = locateTorch(O.TorchDir, Tried);
  if (!Torch) {
    std::string Looked;
    for (const std::string &T : Tried)
      Looked += (Looked.empty() ? "" : "; ") + T;
    return Failure{"no LibTorch found to build the snippets (looked at: " +
                   Looked + "); give one with --torch-dir"};
  }
  Toolchain T;
  T.Torch = *Torch;
  T.Cxx = compilerFor(O);
  T.SupportDir =
      envOr("LIBTORCH_TIDY_VERIFY_SUPPORT", LIBTORCH_TIDY_VERIFY_SUPPORT_DIR);
  T.CacheDir = cacheDir(O);
  T.CxxVersion = compilerVersion(T.Cxx);
  return T;
}

/// Probes the sandbox and the process limit, says so on stderr where they
/// fall short, and records both in \p Env.
Sandbox prepareSandbox(const VerifyOptions &O, json &Env) {
  // The probe starts a sandbox once.
  Sandbox Box = probeSandbox(O.NoSandbox);
  Env["sandbox"] = Box.Describe;
  if (!Box.Note.empty())
    std::fprintf(stderr, "%s\n", Box.Note.c_str());
  std::string TaskLimit = taskLimitMechanism();
  bool NoLimit = TaskLimit.rfind("none", 0) == 0;
  Env["process_limit"] = NoLimit ? TaskLimit
                                 : std::to_string(O.MaxTasks) +
                                       " processes and threads (" + TaskLimit +
                                       ")";
  if (NoLimit)
    std::fprintf(stderr, "note: no process-count limit (%s)\n",
                 TaskLimit.c_str() + 6);
  return Box;
}

/// A built harness and the entry of one snippet in it.
struct Built {
  std::string Binary; ///< empty when the snippet does not compile
  int Entry = 0;
};

void markNotCompiling(VerifyResult &R, const std::string &Errors) {
  R.Verdict = Outcome::NotVerifiable;
  R.FailureKind = "compile-error";
  R.Reason = "the snippet does not compile here: " + Errors;
}

/// One translation unit for all; when it does not build, one per finding,
/// so that one snippet's error is reported for that finding alone.
std::vector<Built> buildAll(const Toolchain &T,
                            const std::vector<PendingSnippet> &Pending,
                            const std::string &Dir,
                            std::vector<VerifyResult> &Results) {
  std::vector<HarnessEntry> All;
  for (const PendingSnippet &P : Pending)
    All.push_back(P.Entry);
  std::vector<Built> Out(Pending.size());
  BuildResult Combined = buildHarness(T, generateHarness(All), Dir, "harness");
  for (size_t I = 0; I < Pending.size(); ++I) {
    if (Combined.Ok) {
      Out[I] = {Combined.Binary, static_cast<int>(I)};
      continue;
    }
    BuildResult One = Pending.size() == 1
                          ? Combined
                          : buildHarness(T, generateHarness({Pending[I].Entry}),
                                         Dir, "harness" + std::to_string(I));
    if (One.Ok)
      Out[I] = {One.Binary, 0};
    else
      markNotCompiling(Results[Pending[I].Result], One.Errors);
  }
  return Out;
}

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

/// How a child that ran to its end failed.
void exitFailure(const ProcessResult &P, const VerifyOptions &O,
                 VerifyResult &R) {
  const std::string &Out = P.Output;
  bool OutOfMemory = Out.find("can't allocate memory") != std::string::npos ||
                     Out.find("bad_alloc") != std::string::npos;
  size_t Thrown = Out.find("ltt-exception: ");
  if (OutOfMemory && O.MemoryMiB > 0) {
    R.FailureKind = "memory-limit";
    R.Reason = "the snippet ran out of its " + std::to_string(O.MemoryMiB) +
               " MiB memory limit";
  } else if (P.Signal) {
    R.FailureKind = "crash";
    R.Reason = "the snippet crashed: " + signalName(P.Signal);
  } else if (P.ExitCode == 3 && Thrown != std::string::npos) {
    R.FailureKind = "exception";
    std::string What = Out.substr(Thrown + 15);
    R.Reason = "the snippet threw: " + What.substr(0, What.find('\n'));
  } else {
    R.FailureKind = "crash";
    R.Reason = "the snippet exited with status " + std::to_string(P.ExitCode);
  }
}

/// The run of one harness child failed: say how, in \p R.
void childFailure(const ProcessResult &P, const VerifyOptions &O,
                  VerifyResult &R) {
  R.Verdict = Outcome::NotVerifiable;
  if (!P.Started) {
    R.FailureKind = "not-started";
    R.Reason = "the snippet could not be started" +
               (P.Output.empty() ? "" : ": " + P.Output);
  } else if (P.TaskLimit) {
    R.FailureKind = "process-limit";
    R.Reason = "the snippet reached its limit of " +
               std::to_string(O.MaxTasks) +
               " processes and threads and was stopped";
  } else if (P.TimedOut) {
    R.FailureKind = "timeout";
    R.Reason = "the snippet ran past the " +
               std::to_string(static_cast<int>(O.Timeout)) +
               " s limit and was killed";
  } else {
    exitFailure(P, O, R);
  }
}

bool ranWell(const ProcessResult &P, const json &Out) {
  return !P.TimedOut && !P.Signal && P.ExitCode == 0 && Out.is_object();
}

/// Everything one snippet's runs share.
struct SnippetRun {
  const VerifyOptions &O;
  const Limits &L;
  std::string Dir;
  std::string Binary, Entry;
  size_t Number;

  /// Runs the harness in \p Mode with \p Extra arguments; its JSON output,
  /// or null (and the failure in \p R) when it did not run well.
  json run(const char *Mode, std::vector<std::string> Extra,
           VerifyResult &R) const {
    fs::path Out = fs::path(Dir) / (Mode + std::to_string(Number));
    std::vector<std::string> Argv = {Binary, "--entry", Entry, "--mode",
                                     Mode,   "--out",   Out.string()};
    Argv.insert(Argv.end(), Extra.begin(), Extra.end());
    ProcessResult P = runProcess(Argv, Dir, L);
    json Result = readJsonFile(Out);
    if (ranWell(P, Result))
      return Result;
    childFailure(P, O, R);
    return json();
  }
};

/// The harness counts values equal when |a - b| <= 1e-5 + Rtol |b|, Rtol
/// the check's tolerance but at least the float noise of reordered
/// arithmetic.
std::string toleranceText(double Tolerance) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%g", allowedRelDiff(Tolerance));
  return Buf;
}

/// Records the comparison in \p R; false when the values differ.
bool recordComparison(const json &Diff, VerifyResult &R) {
  R.Diff = Difference{Diff.value("max_abs", 0.0), Diff.value("max_rel", 0.0),
                      Diff.value("compared", std::vector<std::string>()),
                      Diff.value("equal", false)};
  if (*R.Diff->Equal)
    return true;
  R.Verdict = Outcome::ChangesResults;
  R.Reason = "the code after the fix leaves different values: " +
             Diff.value("first", std::string());
  return false;
}

/// Records the timing in \p R, and which values were not compared.
void recordTiming(const json &Times, const json &Diff, VerifyResult &R) {
  auto Before = Times.value("before_us", std::vector<double>());
  auto After = Times.value("after_us", std::vector<double>());
  recordJudgement(R, Before, After);
  R.Stop = Times.value("stop", std::string());
  if (Times.contains("gpu_before_us")) {
    auto GB = Times.value("gpu_before_us", std::vector<double>());
    auto GA = Times.value("gpu_after_us", std::vector<double>());
    R.GpuBeforeUs = TimeSummary{median(GB), iqr(GB)};
    R.GpuAfterUs = TimeSummary{median(GA), iqr(GA)};
  }
  auto Skipped = Diff.value("skipped", std::vector<std::string>());
  std::string Names;
  for (const std::string &N : Skipped)
    Names += (Names.empty() ? "" : ", ") + N;
  if (!Names.empty())
    R.Reason = (R.Reason.empty() ? "" : R.Reason + "; ") +
               "not compared (the harness reads no state of their type): " +
               Names;
}

/// Compares the snippet's variants, then times them.
void runOne(const SnippetRun &Run, double Tolerance, VerifyResult &R) {
  R.Kind = "snippet";
  json Diff = Run.run("check", {"--rtol", toleranceText(Tolerance)}, R);
  if (Diff.is_null() || !recordComparison(Diff, R))
    return;
  json Times = Run.run("time",
                       {"--time-cap", std::to_string(Run.O.TimeCap),
                        // Samples are short (10 ms): take enough that the
                        // interval can also show "same".
                        "--min-samples", "30"},
                       R);
  if (!Times.is_null())
    recordTiming(Times, Diff, R);
}

void markNoLibTorch(const std::vector<PendingSnippet> &Pending,
                    const std::string &Why,
                    std::vector<VerifyResult> &Results) {
  for (const PendingSnippet &P : Pending) {
    VerifyResult &R = Results[P.Result];
    R.Verdict = Outcome::NotVerifiable;
    R.FailureKind = "no-libtorch";
    R.Reason = Why;
  }
}

} // namespace

int runSnippets(const std::vector<PendingSnippet> &Pending,
                const VerifyOptions &O, bool Cuda,
                std::vector<VerifyResult> &Results, json &Env) {
  ErrorOr<Toolchain> T = toolchainFor(O);
  if (!T) {
    markNoLibTorch(Pending, T.error(), Results);
    std::fprintf(stderr, "error: %s\n", T.error().c_str());
    return O.TorchDir.empty() ? 3 : 2;
  }
  Env["compiler"] = T->CxxVersion;
  Env["torch_dir"] = T->Torch.CMakeDir + " (" + T->Torch.From + ")";
  Sandbox Box = prepareSandbox(O, Env);
  TempDir Work;
  if (!Work.ok()) {
    std::fprintf(stderr, "error: cannot create a temporary directory\n");
    return 2;
  }
  std::vector<Built> Binaries = buildAll(*T, Pending, Work.path(), Results);

  // LibTorch's libraries (and pip's CUDA libraries beside them) under /tmp
  // would be hidden by the sandbox's own /tmp.
  Box.ReadOnly.push_back(
      fs::path(T->Torch.LibDir).parent_path().parent_path().string());
  Limits L;
  L.Seconds = O.Timeout;
  L.MemoryMiB = Cuda ? 0 : O.MemoryMiB;
  L.MaxTasks = O.MaxTasks;
  L.Confine = &Box;
  for (size_t I = 0; I < Pending.size(); ++I) {
    if (Binaries[I].Binary.empty())
      continue;
    SnippetRun Run{O, L, Work.path(), Binaries[I].Binary,
                   std::to_string(Binaries[I].Entry), I};
    runOne(Run, Pending[I].Tolerance, Results[Pending[I].Result]);
  }
  return 0;
}

} // namespace torchtidy
