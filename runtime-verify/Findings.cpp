//===--- Findings.cpp - libtorch-tidy-verify ------------------------------===//

#include "Findings.h"
#include "Process.h"

// The few LibTorch headers this needs, not <torch/torch.h>: a quarter of
// the verifier's build time was this file parsing all of LibTorch.
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <torch/version.h>

#include <ctime>
#include <fstream>
#include <regex>

using nlohmann::json;

namespace torchtidy {
namespace {

constexpr int FindingsVersion = 1;

bool hasText(const json &J, const char *Key) {
  return J.contains(Key) && J[Key].is_string();
}

/// Whether \p F has what the verifier needs of a finding.
bool wellFormed(const json &F) {
  return F.is_object() && hasText(F, "check") && hasText(F, "message") &&
         F.contains("line") && F["line"].is_number_integer();
}

/// A finding's code, when there, has its before and after texts.
bool codeWellFormed(const json &F) {
  if (!F.contains("code"))
    return true;
  const json &Code = F["code"];
  return Code.is_object() && Code.value("before", json()).is_string() &&
         Code.value("after", json()).is_string();
}

ErrorOr<json> checkFindings(json Doc, const std::string &Path) {
  std::string Quoted = "'" + Path + "'";
  if (!Doc.is_object() || Doc.value("format", "") != "libtorch-tidy-findings" ||
      !Doc.contains("version") || !Doc["version"].is_number_integer())
    return Failure{Quoted + " is not a libtorch-tidy findings file"};
  int Version = Doc["version"].get<int>();
  if (Version != FindingsVersion)
    return Failure{Quoted + " has findings format version " +
                   std::to_string(Version) + "; this verifier reads version " +
                   std::to_string(FindingsVersion)};
  if (!Doc.contains("findings") || !Doc["findings"].is_array())
    return Failure{Quoted + " has no findings list"};
  for (const json &F : Doc["findings"]) {
    if (!wellFormed(F))
      return Failure{Quoted + " has a finding without check, message or line"};
    if (!codeWellFormed(F))
      return Failure{Quoted +
                     " has a finding whose code has no before/after text"};
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

/// The GPU's name and driver, from nvidia-smi.
void describeGpu(json &Env) {
  std::string Smi = firstLineOf({"nvidia-smi", "--query-gpu=name,driver_version",
                                 "--format=csv,noheader"});
  if (size_t Comma = Smi.find(", "); Comma != std::string::npos) {
    Env["device_name"] = Smi.substr(0, Comma);
    Env["driver"] = Smi.substr(Comma + 2);
  }
}

} // namespace

ErrorOr<json> readJsonDocument(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    return Failure{"cannot read '" + Path + "'"};
  json Doc = json::parse(In, nullptr, /*allow_exceptions=*/false);
  if (Doc.is_discarded())
    return Failure{"'" + Path + "' is not valid JSON"};
  return Doc;
}

ErrorOr<json> readFindings(const std::string &Path) {
  ErrorOr<json> Doc = readJsonDocument(Path);
  if (!Doc)
    return Doc;
  return checkFindings(std::move(*Doc), Path);
}

json describeMachine(bool Cuda) {
  json Env = {{"device", Cuda ? "cuda" : "cpu"},
              {"libtorch", TORCH_VERSION},
              {"threads", at::get_num_threads()},
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
  if (Cuda)
    describeGpu(Env);
  return Env;
}

} // namespace torchtidy
