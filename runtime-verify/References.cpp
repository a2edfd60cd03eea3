//===--- References.cpp - libtorch-tidy-verify ----------------------------===//

#include "References.h"
#include "Reference.h"
#include "ReferenceVerdict.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <string>

using nlohmann::json;

namespace torchtidy {
namespace {

/// One measurement to make, and the key under which findings share it.
struct Workload {
  std::string Key;
  std::function<Samples()> Measure;
};

/// The workload a benchmark runs for a finding; none when the benchmark
/// does not measure that finding.
using Planner = std::optional<Workload> (*)(const json &Finding,
                                            const StopRule &Rule);

std::string codeBefore(const json &Finding) {
  return Finding.value("code", json::object()).value("before", "");
}

std::vector<int64_t> literalSizes(const std::string &Braced) {
  std::vector<int64_t> Out;
  std::regex Num("[0-9]+");
  for (auto It = std::sregex_iterator(Braced.begin(), Braced.end(), Num);
       It != std::sregex_iterator(); ++It)
    Out.push_back(std::stoll(It->str()));
  return Out;
}

/// Anomaly mode on vs off: it measures the findings that are about anomaly
/// detection, not the check's other debugging switches.
std::optional<Workload> planAnomalyMode(const json &Finding,
                                        const StopRule &Rule) {
  if (Finding.value("message", "").find("anomaly detection") ==
      std::string::npos)
    return std::nullopt;
  return Workload{"", [Rule] {
                    return measureAnomalyMode(/*Batch=*/16,
                                              /*StepsPerSample=*/1,
                                              /*FixedRounds=*/0, Rule);
                  }};
}

std::optional<Workload> planZeroGrad(const json &, const StopRule &Rule) {
  return Workload{
      "", [Rule] { return measureZeroGrad(/*FixedRounds=*/0, Rule); }};
}

/// The channels and kernel written in the code: Conv2dOptions(3, 16, 3) or
/// Conv2d(3, 16, 3).
std::optional<Workload> planConvBias(const json &Finding,
                                     const StopRule &Rule) {
  ConvBiasParams P;
  std::string Before = codeBefore(Finding);
  std::smatch M;
  if (std::regex_search(
          Before, M,
          std::regex(
              R"(Conv([123])d(Options)?\(\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*[,)])"))) {
    P.Dim = std::stoi(M[1].str());
    P.InChannels = std::stoll(M[3].str());
    P.OutChannels = std::stoll(M[4].str());
    P.Kernel = std::stoll(M[5].str());
  }
  std::string Key = ":" + std::to_string(P.Dim) + "," +
                    std::to_string(P.InChannels) + "," +
                    std::to_string(P.OutChannels) + "," +
                    std::to_string(P.Kernel);
  return Workload{Key, [Rule, P] { return measureConvBias(P, 0, Rule); }};
}

/// The first shape written in the code.
std::optional<Workload> planHostTensor(const json &Finding,
                                       const StopRule &Rule) {
  HostTensorParams P;
  std::string Key;
  json Code = Finding.value("code", json::object());
  for (const json &Shape : Code.value("shapes", json::array()))
    if (Shape.is_string() && !literalSizes(Shape).empty()) {
      P.Shape = literalSizes(Shape);
      Key = ":" + Shape.get<std::string>();
      break;
    }
  return Workload{Key,
                  [Rule, P] { return measureHostTensorToDevice(P, 0, Rule); }};
}

std::optional<Workload> planHostSync(const json &, const StopRule &Rule) {
  return Workload{
      "", [Rule] { return measureHostSyncInLoop(HostSyncParams(), 0, Rule); }};
}

std::optional<Workload> planBlockingCopy(const json &, const StopRule &Rule) {
  return Workload{"", [Rule] {
                    return measureBlockingCopy(BlockingCopyParams(), 0, Rule);
                  }};
}

/// The fused op the fix writes (`torch::gelu(x, "tanh")` is gelu-tanh).
std::optional<Workload> planUnfusedPointwise(const json &Finding,
                                             const StopRule &Rule) {
  std::string After =
      Finding.value("code", json::object()).value("after", "");
  std::smatch M;
  if (!std::regex_search(
          After, M,
          std::regex(R"(\b(silu|gelu|softplus|log_softmax|softmax|)"
                     R"(log_sigmoid|rsqrt|log1p|expm1|hypot|mish|)"
                     R"(linalg_vector_norm|lerp|addcmul|addcdiv)\()")))
    return std::nullopt;
  UnfusedPointwiseParams P;
  P.Fused = M[1].str();
  if (P.Fused == "gelu" && M.suffix().str().find("\"tanh\"") !=
                               std::string::npos &&
      M.suffix().str().find("\"tanh\"") < M.suffix().str().find(')'))
    P.Fused = "gelu-tanh";
  return Workload{":" + P.Fused, [Rule, P] {
                    return measureUnfusedPointwise(P, 0, Rule);
                  }};
}

std::optional<Workload> planNoGradEval(const json &, const StopRule &Rule) {
  return Workload{"", [Rule] {
                    return measureNoGradEval(NoGradEvalParams(), 0, Rule);
                  }};
}

std::optional<Workload> planLoaderWorkers(const json &,
                                          const StopRule &Rule) {
  return Workload{"", [Rule] {
                    return measureLoaderWorkers(LoaderWorkersParams(), 0, Rule);
                  }};
}

std::optional<Workload> planCudnnBenchmark(const json &,
                                           const StopRule &Rule) {
  return Workload{"", [Rule] {
                    return measureCudnnBenchmark(CudnnBenchmarkParams(), 0,
                                                 Rule);
                  }};
}

std::optional<Workload> planTf32Matmul(const json &, const StopRule &Rule) {
  return Workload{"", [Rule] {
                    return measureTf32Matmul(Tf32MatmulParams(), 0, Rule);
                  }};
}

/// The benchmarks by the names the check table uses.
const std::map<std::string_view, Planner> &benchmarks() {
  static const std::map<std::string_view, Planner> Benchmarks = {
      {"anomaly-mode", planAnomalyMode},
      {"zero-grad", planZeroGrad},
      {"conv-bias", planConvBias},
      {"host-tensor-to-device", planHostTensor},
      {"host-sync", planHostSync},
      {"blocking-copy", planBlockingCopy},
      {"unfused-pointwise", planUnfusedPointwise},
      {"no-grad-eval", planNoGradEval},
      {"loader-workers", planLoaderWorkers},
      {"cudnn-benchmark", planCudnnBenchmark},
      {"tf32-matmul", planTf32Matmul},
  };
  return Benchmarks;
}

} // namespace

bool hasReferenceBenchmark(std::string_view Name) {
  return benchmarks().count(Name) != 0;
}

bool runReference(std::string_view Name, const json &Finding, double TimeCap,
                  double Tolerance, VerifyResult &R) {
  auto It = benchmarks().find(Name);
  if (It == benchmarks().end())
    return false;
  StopRule Rule;
  Rule.TimeCapSeconds = TimeCap;
  std::optional<Workload> W = It->second(Finding, Rule);
  if (!W)
    return false;
  static std::map<std::string, Samples> Measured;
  std::string Key = std::string(Name) + W->Key;
  auto Done = Measured.find(Key);
  if (Done == Measured.end())
    Done = Measured.emplace(Key, W->Measure()).first;
  recordReference(Done->second, Tolerance, R);
  return true;
}

} // namespace torchtidy
