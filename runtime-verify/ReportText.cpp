//===--- ReportText.cpp - libtorch-tidy-verify ----------------------------===//

#include "ReportText.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace torchtidy {

std::string fixed2(double V) {
  char Buf[64];
  // %.2f of a huge value would be hundreds of digits.
  std::snprintf(Buf, sizeof(Buf), std::fabs(V) < 1e15 ? "%.2f" : "%.3g", V);
  return Buf;
}

std::string sig3(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.3g", V);
  return Buf;
}

std::string sci1(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.1e", V);
  return Buf;
}

std::string duration(double Micros) {
  if (std::fabs(Micros) < 999.5)
    return sig3(Micros) + " \u00b5s";
  if (std::fabs(Micros) < 999.5e3)
    return sig3(Micros / 1e3) + " ms";
  return sig3(Micros / 1e6) + " s";
}

std::string speedupText(const Interval &S) {
  return fixed2(S.Point) + "x (" + fixed2(S.Low) + " .. " + fixed2(S.High) +
         ")";
}

std::string oneLine(std::string S) {
  for (char &C : S)
    if (static_cast<unsigned char>(C) < 0x20 || C == 0x7f)
      C = ' ';
  return S;
}

size_t codePoints(const std::string &S) {
  size_t N = 0;
  for (char C : S)
    N += (static_cast<unsigned char>(C) & 0xc0) != 0x80;
  return N;
}

std::string truncated(const std::string &S, size_t Max) {
  if (codePoints(S) <= Max)
    return S;
  size_t Kept = 0, I = 0;
  for (; I < S.size(); ++I)
    if ((static_cast<unsigned char>(S[I]) & 0xc0) != 0x80 && Kept++ == Max - 1)
      break;
  return S.substr(0, I) + "\u2026";
}

std::string joined(const std::vector<std::string> &Parts, const char *Sep) {
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : Sep) + P;
  return Out;
}

std::string toleranceText(const Difference &D) {
  if (!D.Tolerance)
    return "";
  std::string Measured = D.MaxRel   ? sci1(*D.MaxRel) + " relative"
                         : D.MaxAbs ? sci1(*D.MaxAbs)
                                    : std::string("not known");
  std::string Tolerance = "the tolerance " + sci1(*D.Tolerance);
  if (D.Equal.value_or(false))
    return "difference " + Measured + ", within " + Tolerance;
  return "results differ by " + Measured + ", beyond " + Tolerance;
}

std::string expectedText(const ExpectedDifference &E) {
  std::string Cause = E.Cause == "random-draws"
                          ? "the fix changes the random initialisation"
                          : "the fix may change them (" + E.Cause + ")";
  const NumberDifference &L = E.Largest;
  std::string Where = "number " + std::to_string(L.Position) + ": " +
                      L.Variant + ", baseline " + L.Baseline;
  std::string Size = E.Relative ? "largest relative difference " +
                                      sci1(*E.Relative) + ", " + Where
                                : "first at line " + std::to_string(L.Position);
  return "results differ as expected: " + Cause + " (" + Size + ")";
}

static std::string basename(const std::string &Path) {
  size_t Slash = Path.find_last_of("/\\");
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

std::string shortLocation(const VerifyResult &R) {
  std::string File = basename(R.File);
  if (!R.Line)
    return File;
  if (File.empty())
    return "line " + std::to_string(*R.Line);
  return File + ":" + std::to_string(*R.Line);
}

std::string summaryLine(const std::vector<VerifyResult> &Results) {
  std::map<Outcome, size_t> Known;
  std::map<std::string, size_t> Others; // verdicts of a newer verifier
  for (const VerifyResult &R : Results) {
    if (R.Verdict == Outcome::Other)
      ++Others[oneLine(R.OtherVerdict)];
    else if (R.Verdict == Outcome::None)
      ++Others["without verdict"];
    else
      ++Known[R.Verdict];
  }
  std::vector<std::string> Parts;
  for (Outcome O : KnownOutcomes)
    if (auto It = Known.find(O); It != Known.end())
      Parts.push_back(std::to_string(It->second) + " " + outcomeName(O));
  for (const auto &[Name, Count] : Others)
    Parts.push_back(std::to_string(Count) + " " + Name);
  size_t N = Results.size();
  std::string Line = std::to_string(N) + (N == 1 ? " finding" : " findings");
  return Parts.empty() ? Line : Line + ": " + joined(Parts, ", ");
}

const char *colourOf(Outcome O) {
  switch (O) {
  case Outcome::Faster:
    return "#2e7d32";
  case Outcome::Same:
    return "#757575";
  case Outcome::Slower:
    return "#c62828";
  case Outcome::Ambiguous:
    return "#ef6c00";
  case Outcome::ChangesResults:
    return "#7b1fa2";
  case Outcome::NotApplicable:
  case Outcome::NotVerifiable:
    return "#546e7a";
  case Outcome::None:
  case Outcome::Other:
    break;
  }
  return "#212121";
}

} // namespace torchtidy
