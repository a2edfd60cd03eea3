//===--- ReportText.h - libtorch-tidy-verify --------------------*- C++ -*-===//
//
// What the console table and the HTML page write alike: numbers, locations,
// the summary line and the verdicts' colours. Internal to the reporters.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_REPORTTEXT_H
#define LIBTORCH_TIDY_VERIFY_REPORTTEXT_H

#include "Result.h"

#include <string>
#include <vector>

namespace torchtidy {

/// "%.2f", or "%.3g" for a value too large for it.
std::string fixed2(double V);
/// "%.3g".
std::string sig3(double V);
/// "%.1e".
std::string sci1(double V);
/// Three significant digits in the unit that keeps them below 1000.
std::string duration(double Micros);
/// "12.20x (11.80 .. 12.50)".
std::string speedupText(const Interval &S);

/// Control characters (newlines in a reason, say) as spaces: they would
/// break a table row or a one-line error.
std::string oneLine(std::string S);
/// The number of UTF-8 code points of \p S.
size_t codePoints(const std::string &S);
/// At most \p Max code points, never cutting one in half.
std::string truncated(const std::string &S, size_t Max);
std::string joined(const std::vector<std::string> &Parts, const char *Sep);

/// What a difference read against a tolerance (a reference benchmark's)
/// says: "difference 1.2e-03 relative, within the tolerance 1.0e-02" or
/// "results differ by 3.1e-02 relative, beyond the tolerance 1.0e-02"; ""
/// without a tolerance.
std::string toleranceText(const Difference &D);

/// What a program variant's expected difference says: "results differ as
/// expected: the fix changes the random initialisation (largest relative
/// difference 3.1e-02, number 4: 1.4961, baseline 1.4512)".
std::string expectedText(const ExpectedDifference &E);

/// "train.cpp:117", or the parts of it the result has.
std::string shortLocation(const VerifyResult &R);
/// "3 findings: 1 faster, 1 not-applicable, 1 not-verifiable".
std::string summaryLine(const std::vector<VerifyResult> &Results);
/// The colour a verdict is drawn in.
const char *colourOf(Outcome O);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_REPORTTEXT_H
