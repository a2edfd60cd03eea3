//===--- ConvBiasFixes.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// The findings of torch-conv-bias-before-batchnorm: the message for each
// candidate, the fix-its that turn its bias off where that is safe (at the
// options, in a helper all of whose calls a BatchNorm follows, at a call
// that takes a parameter's default, or with the negated flag of a BatchNorm
// added under a condition), and why there is no fix-it otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_CONVBIASFIXES_H
#define LIBTORCH_TIDY_CHECKS_CONVBIASFIXES_H

#include "ConvBiasModuleAnalysis.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/LangOptions.h"
#include <string>
#include <vector>

namespace clang::tidy::torch::convbias {

struct Note {
  SourceLocation Loc;
  DiagMessage Message;
};

struct Finding {
  DiagMessage Message;
  std::vector<FixItHint> Fixes;
  std::vector<Note> Notes;
};

/// One finding per candidate, in the candidates' order: a helper's fix is
/// made once, with its first call.
std::vector<Finding> planFindings(const TUState &S,
                                  const std::vector<Candidate> &Candidates,
                                  const LangOptions &LangOpts);

} // namespace clang::tidy::torch::convbias

#endif // LIBTORCH_TIDY_CHECKS_CONVBIASFIXES_H
