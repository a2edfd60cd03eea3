//===--- ReferenceVerdict.cpp - libtorch-tidy-verify ----------------------===//

#include "ReferenceVerdict.h"
#include "ReportText.h"

#include <algorithm>
#include <cstdio>

namespace torchtidy {
namespace {

/// "%g".
std::string general(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%g", V);
  return Buf;
}

/// What the difference was read against, in words.
std::string toleranceWords(double Tolerance) {
  if (Tolerance >= FloatNoiseRtol)
    return "the check's tolerance of " + general(Tolerance);
  return "float noise (" + general(FloatNoiseRtol) + " relative; " +
         (Tolerance > 0 ? "the check's tolerance is " + general(Tolerance)
                        : std::string("the check allows no difference")) +
         ")";
}

} // namespace

double allowedRelDiff(double Tolerance) {
  return std::max(Tolerance, FloatNoiseRtol);
}

bool withinTolerance(double MaxAbs, double MaxRel, double Tolerance) {
  if (MaxAbs <= FloatNoiseAtol)
    return true;
  double Rel = MaxRel >= 0 ? MaxRel : MaxAbs;
  // Written so that a NaN is beyond.
  return Rel <= allowedRelDiff(Tolerance);
}

std::string beyondToleranceReason(double MaxAbs, double MaxRel,
                                  double Tolerance) {
  std::string Measured =
      MaxRel >= 0 ? sci1(MaxRel) + " relative (max abs " + sci1(MaxAbs) + ")"
                  : sci1(MaxAbs);
  return "the reference benchmark's results differ by " + Measured +
         ", beyond " + toleranceWords(Tolerance);
}

void recordReference(const Samples &S, double Tolerance, VerifyResult &R) {
  R.Kind = "reference";
  if (S.Before.empty() || S.After.empty()) {
    R.Verdict = S.StopReason == "no CUDA device" ? Outcome::NotApplicable
                                                 : Outcome::NotVerifiable;
    R.Reason = "reference benchmark: " + S.StopReason;
    return;
  }
  recordJudgement(R, S.Before, S.After);
  R.Stop = S.StopReason;
  R.Workload = S.Workload;
  if (S.MaxAbsDiff < 0 && S.MaxRelDiff < 0)
    return;
  bool Within = withinTolerance(S.MaxAbsDiff, S.MaxRelDiff, Tolerance);
  Difference D;
  if (S.MaxAbsDiff >= 0)
    D.MaxAbs = S.MaxAbsDiff;
  if (S.MaxRelDiff >= 0)
    D.MaxRel = S.MaxRelDiff;
  D.Equal = Within;
  D.Tolerance = allowedRelDiff(Tolerance);
  R.Diff = D;
  if (Within)
    return;
  R.Verdict = Outcome::ChangesResults;
  R.Reason = beyondToleranceReason(S.MaxAbsDiff, S.MaxRelDiff, Tolerance);
}

} // namespace torchtidy
