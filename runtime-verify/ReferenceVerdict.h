//===--- ReferenceVerdict.h - libtorch-tidy-verify --------------*- C++ -*-===//
//
// The verdict on a reference benchmark's samples: the timing's, when what
// the two variants computed agrees within the check's TOLERANCE (the check
// table), else changes-results, with the measured difference either way.
// No LibTorch: the unit tests drive it with synthetic samples.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_REFERENCEVERDICT_H
#define LIBTORCH_TIDY_VERIFY_REFERENCEVERDICT_H

#include "Reference.h"
#include "Result.h"

#include <string>

namespace torchtidy {

/// The relative difference every comparison allows: the float noise of
/// reordered arithmetic (the snippet harness's rtol at the least).
inline constexpr double FloatNoiseRtol = 1e-4;
/// Differences up to this are equal whatever the scale (the harness's atol).
inline constexpr double FloatNoiseAtol = 1e-5;

/// The relative difference allowed for a check whose table TOLERANCE is
/// \p Tolerance: that, but at least FloatNoiseRtol.
double allowedRelDiff(double Tolerance);

/// Whether a largest absolute difference \p MaxAbs, \p MaxRel relative to
/// the values' scale (negative: not known, MaxAbs is read as relative), is
/// within \p Tolerance (allowedRelDiff). A NaN difference is not.
bool withinTolerance(double MaxAbs, double MaxRel, double Tolerance);

/// "the reference benchmark's results differ by 3.1e-02 relative (max abs
/// 1.2e-01), beyond the check's tolerance of 0.01".
std::string beyondToleranceReason(double MaxAbs, double MaxRel,
                                  double Tolerance);

/// What the samples \p S of a reference benchmark say, into \p R (kind
/// `reference`): not-applicable or not-verifiable when nothing was sampled
/// (S.StopReason says why); else the timing's verdict (recordJudgement),
/// and where the benchmark compared what its variants computed, the
/// difference with the tolerance it was read against (Difference::Tolerance)
/// and, beyond it, `changes-results` with the difference and the tolerance
/// in R.Reason. The timing stays in \p R either way.
void recordReference(const Samples &S, double Tolerance, VerifyResult &R);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_REFERENCEVERDICT_H
