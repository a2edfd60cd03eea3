//===--- MergeReport.cpp - libtorch-tidy-verify ---------------------------===//
//
// The verdicts of a report merged back into the findings file they came
// from, or into the driver's SARIF log.
//
//===----------------------------------------------------------------------===//

#include "JsonFields.h"
#include "Report.h"
#include "ReportText.h"

#include <cctype>
#include <functional>
#include <set>
#include <vector>

using nlohmann::json;

namespace torchtidy {
namespace {

/// "result 3 (torch-debug-api-enabled at /abs/train.cpp:117)".
std::string describe(const VerifyResult &R, long long N) {
  std::string Where = R.File;
  if (R.Line)
    Where += (Where.empty() ? "line " : ":") + std::to_string(*R.Line);
  return oneLine("result " + std::to_string(N) + " (" + R.Check + " at " +
                 Where + ")");
}

bool hasScheme(const std::string &Uri) {
  size_t Colon = Uri.find(':');
  return Colon != std::string::npos && Colon > 1 &&
         Uri.find('/') > Colon; // "C:/x" is a Windows path, not a scheme
}

std::string percentDecoded(const std::string &S) {
  std::string Out;
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] == '%' && I + 2 < S.size() &&
        std::isxdigit(static_cast<unsigned char>(S[I + 1])) &&
        std::isxdigit(static_cast<unsigned char>(S[I + 2]))) {
      Out += static_cast<char>(std::stoi(S.substr(I + 1, 2), nullptr, 16));
      I += 2;
    } else {
      Out += S[I];
    }
  }
  return Out;
}

/// Whether a SARIF artifact URI names \p Path: the same string, a file URI
/// of it, or a relative URI that \p Path ends with.
bool sameFile(const std::string &Uri, const std::string &Path) {
  if (Uri.empty() || Path.empty())
    return false;
  for (std::string U : {Uri, percentDecoded(Uri)}) {
    if (U == Path || U == "file://" + Path)
      return true;
    if (U.rfind("./", 0) == 0)
      U.erase(0, 2);
    if (!U.empty() && U[0] != '/' && !hasScheme(U) && Path.size() > U.size() &&
        Path.compare(Path.size() - U.size() - 1, std::string::npos, "/" + U) ==
            0)
      return true;
  }
  return false;
}

/// The first location's physical location of a SARIF result.
const json *physicalLocation(const json &Result) {
  const json *Locations = field(Result, "locations");
  if (!Locations || !Locations->is_array() || Locations->empty())
    return nullptr;
  return field(Locations->front(), "physicalLocation");
}

std::string artifactUri(const json &Physical, const json &Run) {
  const json *Artifact = field(Physical, "artifactLocation");
  if (!Artifact)
    return "";
  if (std::string Uri = text(*Artifact, "uri"); !Uri.empty())
    return Uri;
  // Or by index into the run's artifacts, as some producers write it.
  std::optional<long long> Index = integer(*Artifact, "index");
  const json *Artifacts = field(Run, "artifacts");
  if (!Index || !Artifacts || !Artifacts->is_array() || *Index < 0 ||
      static_cast<size_t>(*Index) >= Artifacts->size())
    return "";
  const json *Location = field((*Artifacts)[*Index], "location");
  return Location ? text(*Location, "uri") : "";
}

std::string ruleOf(const json &Result) {
  if (std::string Id = text(Result, "ruleId"); !Id.empty())
    return Id;
  const json *Rule = field(Result, "rule");
  return Rule ? text(*Rule, "id") : "";
}

/// Every SARIF result with the check, file and line of \p R.
std::vector<json *> sarifCandidates(json &Log, const VerifyResult &R) {
  std::vector<json *> Found;
  for (json &Run : Log["runs"]) {
    json *Results =
        Run.is_object() && Run.contains("results") ? &Run["results"] : nullptr;
    if (!Results || !Results->is_array())
      continue;
    for (json &Result : *Results) {
      const json *Physical = physicalLocation(Result);
      if (!Physical || ruleOf(Result) != R.Check)
        continue;
      const json *Region = field(*Physical, "region");
      if (Region && integer(*Region, "startLine") == R.Line &&
          sameFile(artifactUri(*Physical, Run), R.File))
        Found.push_back(&Result);
    }
  }
  return Found;
}

/// Keeps the candidates that agree with \p Keep, unless none does: columns
/// and messages are tie-breakers, not requirements, since producers count
/// columns differently.
void narrow(std::vector<json *> &Candidates,
            const std::function<bool(const json &)> &Keep) {
  std::vector<json *> Kept;
  for (json *C : Candidates)
    if (Keep(*C))
      Kept.push_back(C);
  if (!Kept.empty())
    Candidates = Kept;
}


/// The finding of a findings file that \p R verifies.
ErrorOr<json *> findingFor(json &Doc, const VerifyResult &R, long long N) {
  json &List = Doc["findings"];
  if (static_cast<size_t>(N) >= List.size())
    return Failure{describe(R, N) + " refers to finding " + std::to_string(N) +
                   ", but the findings file has " +
                   std::to_string(List.size()) +
                   (List.size() == 1 ? " finding" : " findings")};
  json &F = List[N];
  std::string File = text(F, "file");
  if (text(F, "check") != R.Check || integer(F, "line") != R.Line ||
      (!R.File.empty() && !File.empty() && R.File != File))
    return Failure{describe(R, N) + " does not match finding " +
                   std::to_string(N) + " of the findings file"};
  return &F;
}

/// The result of a SARIF log that \p R verifies, not yet in \p Claimed.
ErrorOr<json *> sarifResultFor(json &Log, const VerifyResult &R, long long N,
                               std::set<const json *> &Claimed) {
  std::vector<json *> Candidates = sarifCandidates(Log, R);
  if (Candidates.empty())
    return Failure{describe(R, N) + " matches no result of the SARIF log"};
  // Several findings on one line: tell them apart by column, then message,
  // then take them in order.
  if (R.Column)
    narrow(Candidates, [&](const json &C) {
      const json *Region = field(*physicalLocation(C), "region");
      return integer(*Region, "startColumn") == R.Column;
    });
  if (!R.Message.empty())
    narrow(Candidates, [&](const json &C) {
      const json *M = field(C, "message");
      return M && text(*M, "text") == R.Message;
    });
  narrow(Candidates, [&](const json &C) { return !Claimed.count(&C); });
  json *Match = Candidates.front();
  Claimed.insert(Match);
  if (const json *Properties = field(*Match, "properties");
      Properties && !Properties->is_object())
    return Failure{describe(R, N) + " matches a SARIF result whose properties "
                                    "are not an object"};
  return Match;
}

/// What \p Target is: a findings file or a SARIF log.
ErrorOr<bool> isSarif(const json &Target) {
  bool Findings = text(Target, "format") == "libtorch-tidy-findings";
  bool Sarif = !Findings && text(Target, "version") == "2.1.0" &&
               field(Target, "runs") && Target["runs"].is_array();
  if (!Findings && !Sarif)
    return Failure{"the target is neither a libtorch-tidy findings file nor a "
                   "SARIF 2.1.0 log"};
  if (Findings &&
      (integer(Target, "version") != 1 || !field(Target, "findings") ||
       !Target["findings"].is_array()))
    return Failure{"the findings file is not version 1 with a findings list"};
  return Sarif;
}

/// The finding number of the result at \p Position: its index, or (from
/// early verifiers, which wrote none) its position.
ErrorOr<long long> findingNumber(const VerifyResult &R, size_t Position) {
  long long N = R.Index.value_or(static_cast<long long>(Position));
  if (N < 0)
    return Failure{"result at position " + std::to_string(Position) +
                   " of the report has an invalid index"};
  if (R.Check.empty() || !R.Line || R.Verdict == Outcome::None)
    return Failure{describe(R, N) + " has no check, line or verdict"};
  return N;
}

} // namespace

ErrorOr<json> mergeVerdicts(const VerifyReport &Report, const json &Target) {
  ErrorOr<bool> Sarif = isSarif(Target);
  if (!Sarif)
    return Failure{Sarif.error()};
  json Out = Target;
  std::set<const json *> Claimed;
  for (size_t Position = 0; Position < Report.Results.size(); ++Position) {
    const VerifyResult &R = Report.Results[Position];
    ErrorOr<long long> N = findingNumber(R, Position);
    if (!N)
      return Failure{N.error()};
    ErrorOr<json *> Holder = *Sarif ? sarifResultFor(Out, R, *N, Claimed)
                                    : findingFor(Out, R, *N);
    if (!Holder)
      return Failure{Holder.error()};
    json &Place = *Sarif ? (**Holder)["properties"]["libtorch-tidy/verification"]
                         : (**Holder)["verification"];
    Place = verificationJson(R);
  }
  return Out;
}

} // namespace torchtidy
