//===--- Dispatch.cpp - libtorch-tidy-verify ------------------------------===//

#include "Dispatch.h"
#include "References.h"

#include "CheckTable.h"

#include <algorithm>

using nlohmann::json;

namespace torchtidy {
namespace {

/// Why a finding's own statement cannot show its fix's gain; empty when it
/// can (or the check is not in the table).
std::string referenceOnlyReason(const CheckInfo *Info) {
  if (!Info)
    return "";
  switch (Info->Gain) {
  case GainShows::Statement:
    return "";
  case GainShows::TrainingStep:
    return "the fix's gain shows in the training step around the statement "
           "(every later step or backward()), not in the statement itself";
  case GainShows::Model:
    return "the fix's gain shows in every forward and backward of the model, "
           "not in the statement that builds it";
  }
  return "";
}

VerifyResult resultFor(const json &F, size_t Index) {
  VerifyResult R;
  R.Index = static_cast<long long>(Index);
  R.Check = F["check"].get<std::string>();
  R.File = F.value("file", "");
  R.Line = F["line"].get<long long>();
  R.Column = F.value("column", 0);
  R.Message = F["message"].get<std::string>();
  return R;
}

/// A verdict that needs no measurement, or Outcome::None.
Outcome judgeUnmeasured(const json &Code, const CheckInfo *Info,
                        const VerifyOptions &O, bool Cuda,
                        std::string &Reason) {
  if (Code.value("before", "") == Code.value("after", "")) {
    Reason = "the finding has no fix-it to measure";
    return Outcome::NotVerifiable;
  }
  if (Info && Info->DeviceOnly && !Cuda && !O.MeasureOnCpu) {
    Reason = "no CUDA device: the fix changes what only a CUDA device does "
             "(a host-device synchronization or copy, cuDNN or cuBLAS "
             "settings); --measure-on-cpu measures it anyway";
    return Outcome::NotApplicable;
  }
  return Outcome::None;
}

bool namesCuda(const json &Code) {
  std::vector<std::string> Devices =
      Code.value("devices", std::vector<std::string>());
  return std::find(Devices.begin(), Devices.end(), "kCUDA") != Devices.end();
}

/// Binds the finding's snippet, or says why it goes to the reference
/// benchmark instead.
void planSnippet(const json &F, size_t Index, const CheckInfo *Info,
                 const VerifyOptions &O, bool Cuda, Plan &P) {
  VerifyResult &R = P.Results.back();
  json Code = F.value("code", json::object());
  Binding B = bindSnippet(Code, O.Config);
  if (namesCuda(Code) && !Cuda) {
    R.Verdict = Outcome::NotApplicable;
    R.Reason = "the code names kCUDA and this machine has no CUDA device";
  } else if (B.Bound) {
    HarnessEntry Entry{static_cast<int>(Index), B, Code, F.value("file", "")};
    P.Snippets.push_back(
        {P.Results.size() - 1, Entry, Info ? Info->Tolerance : 0});
  } else {
    R.Reason = "snippet not bound: " + B.Reason;
    P.References.push_back(P.Results.size() - 1);
  }
}

/// --references-only: the check's reference benchmark, or why there is none.
void planReferenceOnly(const CheckInfo *Info, Plan &P) {
  VerifyResult &R = P.Results.back();
  if (Info && hasReferenceBenchmark(Info->Reference)) {
    R.Reason = "--references-only: measured by the check's reference "
               "benchmark";
    P.References.push_back(P.Results.size() - 1);
    return;
  }
  R.Verdict = Outcome::NotVerifiable;
  R.Reason = "--references-only, and " + R.Check +
             " has no reference benchmark";
}

/// Runs the reference benchmark for result \p R; says so when there is
/// none for its finding.
void runReferenceFor(const json &F, const VerifyOptions &O, VerifyResult &R) {
  const CheckInfo *Info = findCheck(R.Check);
  std::string Why = R.Reason;
  R.Reason.clear();
  if (!Info ||
      !runReference(Info->Reference, F, O.TimeCap, Info->Tolerance, R)) {
    R.Verdict = Outcome::NotVerifiable;
    R.Reason = Why + "; and " + R.Check + " has no reference benchmark" +
               (Info && !Info->Reference.empty() ? " for this finding" : "");
    return;
  }
  if (R.Reason.empty())
    R.Reason = Why;
  else if (R.Reason != Why)
    R.Reason = Why + "; " + R.Reason;
}

} // namespace

Plan planVerification(const json &Findings, const VerifyOptions &O,
                      bool Cuda) {
  Plan P;
  for (size_t I = 0; I < Findings.size(); ++I) {
    const json &F = Findings[I];
    P.Results.push_back(resultFor(F, I));
    VerifyResult &R = P.Results.back();
    const CheckInfo *Info = findCheck(R.Check);
    R.Verdict = judgeUnmeasured(F.value("code", json::object()), Info, O, Cuda,
                                R.Reason);
    // The analysis found the fix-it not to compile: nothing to measure.
    if (F.contains("unsafe_fix")) {
      R.Verdict = Outcome::NotVerifiable;
      R.Reason = "its fix-it does not compile: " +
                 F.value("unsafe_fix", std::string());
    }
    if (R.Verdict != Outcome::None)
      continue;
    if (O.ReferencesOnly) {
      planReferenceOnly(Info, P);
      continue;
    }
    if (std::string Why = referenceOnlyReason(Info); !Why.empty()) {
      R.Reason = Why;
      P.References.push_back(P.Results.size() - 1);
      continue;
    }
    planSnippet(F, I, Info, O, Cuda, P);
  }
  return P;
}

void runReferences(const json &Findings, const VerifyOptions &O, Plan &P) {
  for (size_t Index : P.References) {
    VerifyResult &R = P.Results[Index];
    runReferenceFor(Findings[static_cast<size_t>(*R.Index)], O, R);
  }
}

} // namespace torchtidy
