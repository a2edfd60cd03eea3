//===--- VerifyMain.cpp - libtorch-tidy-verify ----------------------------===//
//
//   libtorch-tidy-verify FINDINGS.json [--json REPORT.json] [--time-cap S]
//
// Reads the findings of `libtorch-tidy --export-findings` and gives each a
// verdict on this machine. This first version has no snippet harness yet:
// anomaly-mode findings are measured with the check's reference benchmark
// (labeled `reference`), host-device sync and copy findings are
// `not-applicable` without a CUDA device, and every other finding is
// `not-verifiable`, with the reason.
//
// Exit codes: 0 verified (whatever the verdicts), 2 bad input (unreadable,
// malformed or future-version findings, bad command line), one line on
// stderr.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"
#include "Stats.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using nlohmann::json;
using namespace torchverify;

namespace {

constexpr int FindingsVersion = 1;
constexpr int ReportVersion = 1;

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
  for (const json &F : Doc["findings"])
    if (!F.is_object() || !F.contains("check") || !F["check"].is_string() ||
        !F.contains("message") || !F["message"].is_string() ||
        !F.contains("line") || !F["line"].is_number_integer()) {
      Error = "'" + Path + "' has a finding without check, message or line";
      return std::nullopt;
    }
  return Doc;
}

std::string today() {
  std::time_t Now = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%d", std::gmtime(&Now));
  return Buf;
}

} // namespace

int main(int argc, char **argv) {
  std::string FindingsPath, JsonPath;
  double TimeCap = 10;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    if ((A == "--json" || A == "--time-cap") && I + 1 >= argc)
      return fail(A + " needs a value");
    if (A == "--json")
      JsonPath = argv[++I];
    else if (A == "--time-cap") {
      TimeCap = std::atof(argv[++I]);
      if (TimeCap <= 0)
        return fail("--time-cap needs a positive number of seconds");
    } else if (!A.empty() && A[0] == '-')
      return fail("unknown option " + A);
    else if (FindingsPath.empty())
      FindingsPath = A;
    else
      return fail("one findings file at a time");
  }
  if (FindingsPath.empty())
    return fail("usage: libtorch-tidy-verify FINDINGS.json [--json "
                "REPORT.json] [--time-cap SECONDS]");
  std::string Error;
  std::optional<json> Doc = readFindings(FindingsPath, Error);
  if (!Doc)
    return fail(Error);

  bool Cuda = torch::cuda::is_available();
  json Results = json::array();
  std::optional<json> AnomalyResult; // measured once per run
  for (const json &F : (*Doc)["findings"]) {
    std::string Check = F["check"];
    std::string Message = F["message"];
    json R = {{"check", Check},
              {"file", F.value("file", "")},
              {"line", F["line"]},
              {"message", Message}};
    bool Anomaly = Check == "torch-debug-api-enabled" &&
                   Message.find("anomaly detection") != std::string::npos;
    if (Anomaly) {
      if (!AnomalyResult) {
        StopRule Rule;
        Rule.TimeCapSeconds = TimeCap;
        Samples S = measureAnomalyMode(/*Batch=*/16, /*StepsPerSample=*/1,
                                       /*FixedRounds=*/0, Rule);
        Interval Speedup = bootstrapSpeedup(S.Before, S.After);
        RankTest Test = mannWhitneyU(S.Before, S.After);
        Verdict V = decide(Speedup, Test, relativeSpread(S.Before),
                           relativeSpread(S.After));
        AnomalyResult = json{
            {"verdict", verdictName(V)},
            {"kind", "reference"},
            {"speedup",
             {{"point", Speedup.Point},
              {"low", Speedup.Low},
              {"high", Speedup.High}}},
            {"p_value", Test.P},
            {"before_us",
             {{"median", median(S.Before)}, {"iqr", iqr(S.Before)}}},
            {"after_us", {{"median", median(S.After)}, {"iqr", iqr(S.After)}}},
            {"samples", S.Before.size()},
            {"stop", S.StopReason},
            {"reason", "anomaly mode on vs off in the check's reference "
                       "training step (the snippet itself is not rebuilt)"}};
      }
      R.update(*AnomalyResult);
    } else if ((Check == "torch-host-sync-in-loop" ||
                Check == "torch-blocking-host-to-device-copy") &&
               !Cuda) {
      R["verdict"] = "not-applicable";
      R["reason"] = "no CUDA device: on the CPU a host-device "
                    "synchronization or copy has nothing to overlap with";
    } else {
      R["verdict"] = "not-verifiable";
      R["reason"] =
          "no snippet harness or reference benchmark for " + Check + " yet";
    }
    Results.push_back(R);
  }

  json Report = {{"format", "libtorch-tidy-verify-report"},
                 {"version", ReportVersion},
                 {"environment",
                  {{"device", Cuda ? "cuda" : "cpu"},
                   {"libtorch", TORCH_VERSION},
                   {"threads", torch::get_num_threads()},
                   {"date", today()}}},
                 {"results", Results}};

  std::printf("%-34s %-6s %-15s %s\n", "check", "line", "verdict",
              "speedup (95% CI) / reason");
  for (const json &R : Results) {
    std::string Detail;
    if (R.contains("speedup")) {
      char Buf[96];
      std::snprintf(Buf, sizeof(Buf), "%.2fx (%.2f .. %.2f), %s",
                    R["speedup"]["point"].get<double>(),
                    R["speedup"]["low"].get<double>(),
                    R["speedup"]["high"].get<double>(),
                    R["kind"].get<std::string>().c_str());
      Detail = Buf;
    } else {
      Detail = R["reason"];
    }
    std::printf("%-34s %-6d %-15s %s\n", R["check"].get<std::string>().c_str(),
                R["line"].get<int>(), R["verdict"].get<std::string>().c_str(),
                Detail.c_str());
  }
  if (!JsonPath.empty()) {
    std::string Temp = JsonPath + ".tmp";
    {
      std::ofstream Out(Temp);
      Out << Report.dump(2) << "\n";
      if (!Out)
        return fail("cannot write '" + JsonPath + "'");
    }
    if (std::rename(Temp.c_str(), JsonPath.c_str()) != 0) {
      std::remove(Temp.c_str());
      return fail("cannot write '" + JsonPath + "'");
    }
  }
  return 0;
}
