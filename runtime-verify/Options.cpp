//===--- Options.cpp - libtorch-tidy-verify -------------------------------===//

#include "Options.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <thread>

namespace torchtidy {
namespace {

using Setter = std::function<std::optional<Failure>(const std::string &,
                                                    VerifyOptions &)>;

Setter text(std::string VerifyOptions::*Field) {
  return [Field](const std::string &V, VerifyOptions &O) {
    O.*Field = V;
    return std::optional<Failure>();
  };
}

/// An option whose value is one of \p Values (three: "needs A, B or C").
Setter oneOf(const char *Name, std::string VerifyOptions::*Field,
             std::array<const char *, 3> Values) {
  return [=](const std::string &V, VerifyOptions &O) {
    if (std::find(Values.begin(), Values.end(), V) == Values.end())
      return std::optional<Failure>(
          Failure{std::string(Name) + " needs " + Values[0] + ", " +
                  Values[1] + " or " + Values[2]});
    O.*Field = V;
    return std::optional<Failure>();
  };
}

/// A number option: above zero and at least \p Smallest, or zero where
/// \p ZeroMeansNone.
template <typename T>
Setter positive(const char *Name, T VerifyOptions::*Field, double Smallest,
                bool ZeroMeansNone) {
  return [=](const std::string &V, VerifyOptions &O) {
    char *End = nullptr;
    double N = std::strtod(V.c_str(), &End);
    bool Valid = End != V.c_str() && !*End &&
                 ((N > 0 && N >= Smallest) || (ZeroMeansNone && N == 0));
    if (!Valid)
      return std::optional<Failure>(
          Failure{std::string(Name) + " needs a positive number"});
    O.*Field = static_cast<T>(N);
    return std::optional<Failure>();
  };
}

/// --shape, --value and --config: the harness side parses them.
Setter binding(bool (*Parse)(const std::string &, BindingConfig &,
                             std::string &)) {
  return [Parse](const std::string &V, VerifyOptions &O) {
    std::string Error;
    if (!Parse(V, O.Config, Error))
      return std::optional<Failure>(Failure{Error});
    return std::optional<Failure>();
  };
}

/// The options that take a value, each with what it sets.
const std::map<std::string, Setter> &valuedOptions() {
  static const std::map<std::string, Setter> Options = {
      {"--json", text(&VerifyOptions::Json)},
      {"--html", text(&VerifyOptions::Html)},
      {"--merge-into", text(&VerifyOptions::MergeInto)},
      {"--torch-dir", text(&VerifyOptions::TorchDir)},
      {"--cxx", text(&VerifyOptions::Cxx)},
      {"--cache-dir", text(&VerifyOptions::CacheDir)},
      {"--time-cap",
       [](const std::string &V, VerifyOptions &O) {
         O.TimeCapSet = true;
         return positive("--time-cap", &VerifyOptions::TimeCap, 0, false)(V,
                                                                        O);
       }},
      {"--project", text(&VerifyOptions::Project)},
      {"--run", text(&VerifyOptions::Run)},
      {"--build-command", text(&VerifyOptions::BuildCommand)},
      {"--metric", text(&VerifyOptions::Metric)},
      // Ignored: older drivers name the libtorch-tidy that applied fix-its.
      {"--fix-tool", text(&VerifyOptions::FixTool)},
      {"--runs", positive("--runs", &VerifyOptions::Runs, 2, false)},
      {"--compare", oneOf("--compare", &VerifyOptions::Compare,
                          {"numbers", "exact", "none"})},
      {"--timing",
       oneOf("--timing", &VerifyOptions::Timing, {"auto", "cpu", "wall"})},
      {"--timeout", positive("--timeout", &VerifyOptions::Timeout, 0, false)},
      {"--memory-limit",
       positive("--memory-limit", &VerifyOptions::MemoryMiB, 0, true)},
      {"--max-processes",
       positive("--max-processes", &VerifyOptions::MaxTasks, 1, false)},
      {"--shape", binding(parseShapeOption)},
      {"--value", binding(parseValueOption)},
      {"--config", binding(readConfigFile)},
  };
  return Options;
}

/// The switches, each with the flag it sets.
const std::map<std::string, bool VerifyOptions::*> &switches() {
  static const std::map<std::string, bool VerifyOptions::*> Switches = {
      {"--no-cache", &VerifyOptions::NoCache},
      {"--no-sandbox", &VerifyOptions::NoSandbox},
      {"--measure-on-cpu", &VerifyOptions::MeasureOnCpu},
      {"--references-only", &VerifyOptions::ReferencesOnly},
      {"--no-precompiled-headers", &VerifyOptions::NoPrecompiledHeaders},
      {"--precompiled-headers", &VerifyOptions::PrecompiledHeaders},
      {"--help", &VerifyOptions::Help},
      {"-h", &VerifyOptions::Help},
  };
  return Switches;
}

/// An argument that is no option: the findings file, once.
std::optional<Failure> positional(const std::string &A, VerifyOptions &O) {
  if (!A.empty() && A[0] == '-')
    return Failure{"unknown option " + A + "\n" + usage()};
  if (!O.Findings.empty())
    return Failure{"one findings file at a time"};
  O.Findings = A;
  return std::nullopt;
}

/// Program mode needs a project and a command, and its options need it.
ErrorOr<VerifyOptions> checkProgramOptions(VerifyOptions O) {
  bool ProgramOnly = !O.Run.empty() || !O.BuildCommand.empty() ||
                     !O.Metric.empty() || O.Runs > 0 || O.Timing != "auto";
  if (O.Project.empty() && ProgramOnly)
    return Failure{"--run, --build-command, --metric, --runs and --timing "
                   "need --project BUILD_DIR"};
  if (!O.Project.empty() && O.Run.empty())
    return Failure{"--project needs --run 'COMMAND'"};
  if (!O.Project.empty() && O.ReferencesOnly)
    return Failure{"--references-only measures reference benchmarks, not "
                   "the program of --project"};
  return O;
}

} // namespace

unsigned VerifyOptions::defaultCores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

const char *usage() {
  return "usage: libtorch-tidy-verify FINDINGS.json [--json REPORT.json] "
         "[--html REPORT.html] [--merge-into FINDINGS-or-SARIF] "
         "[--time-cap S] [--timeout S] [--memory-limit MIB] "
         "[--torch-dir DIR] [--cxx COMPILER] [--shape NAME=DIMS]... "
         "[--value NAME=V]... [--config FILE] "
         "[--cache-dir DIR | --no-cache] [--measure-on-cpu] "
         "[--references-only] [--no-sandbox] [--max-processes N] "
         "[--project BUILD_DIR --run COMMAND [--build-command CMD] "
         "[--metric REGEX] [--runs N] [--timing auto|cpu|wall] "
         "[--compare numbers|exact|none] "
         "[--precompiled-headers | --no-precompiled-headers]]";
}

ErrorOr<VerifyOptions> parseOptions(const std::vector<std::string> &Args) {
  VerifyOptions O;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (auto Switch = switches().find(A); Switch != switches().end()) {
      O.*Switch->second = true;
      if (O.Help) // the usage, whatever else the command line says
        return O;
      continue;
    }
    auto Valued = valuedOptions().find(A);
    std::optional<Failure> Error;
    if (Valued == valuedOptions().end())
      Error = positional(A, O);
    else if (I + 1 >= Args.size())
      Error = Failure{A + " needs a value"};
    else
      Error = Valued->second(Args[++I], O);
    if (Error)
      return *Error;
  }
  if (O.Findings.empty())
    return Failure{usage()};
  return checkProgramOptions(O);
}

} // namespace torchtidy
