//===--- CheckTable.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// The check table (CheckTable.def) as data, for every part of the product:
// the hosts, the exports and the verifier. Plain C++, no LLVM, so the
// verifier (which links LibTorch, never LLVM) reads the same table.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_CHECKTABLE_H
#define LIBTORCH_TIDY_CHECKS_CHECKTABLE_H

#include <cstddef>
#include <string_view>

namespace torchtidy {

/// Where the gain of a check's fix shows, which decides how the verifier can
/// measure it.
enum class GainShows {
  Statement,    ///< in the flagged statement: a snippet measures it
  TrainingStep, ///< in the training step around the statement
  Model,        ///< in every forward and backward of the model it builds
};

/// What a check's fix may change in the results of the code it fixes, which
/// decides how the verifier compares them. Ordered by how much may change:
/// several fixes together may change what the most permissive one may.
enum class ResultChange {
  None,        ///< nothing: the values stay equal
  Rounding,    ///< the floating-point rounding, within the Tolerance
  RandomDraws, ///< the numbers a seeded generator draws (fewer weights)
};

/// One row of the check table.
struct CheckInfo {
  std::string_view Name;        ///< "torch-zero-grad"
  std::string_view ClassName;   ///< "ZeroGradCheck"
  std::string_view Summary;     ///< one sentence
  std::string_view Description; ///< the first paragraph of its docs page
  std::string_view DocsPage;    ///< "docs/checks/zero-grad.md"
  bool DeviceOnly;              ///< its fix pays only on a CUDA device
  GainShows Gain;               ///< where its gain shows
  std::string_view Reference;   ///< the verifier's reference benchmark, or ""
  ResultChange Results;         ///< what the fix may change in the results
  double Tolerance;             ///< relative result change allowed; 0: equal
};

inline constexpr CheckInfo CheckTable[] = {
#define TORCH_CHECK(NAME, CLASS, SUMMARY, DESCRIPTION, DOCS, DEVICE_ONLY,      \
                    GAIN, REFERENCE, RESULTS, TOLERANCE)                       \
  {NAME,        #CLASS,          SUMMARY,   DESCRIPTION,           DOCS,       \
   DEVICE_ONLY, GainShows::GAIN, REFERENCE, ResultChange::RESULTS, TOLERANCE},
#include "CheckTable.def"
};

/// The row of the check named \p Name, or null for a name no check has.
constexpr const CheckInfo *findCheck(std::string_view Name) {
  for (const CheckInfo &Info : CheckTable)
    if (Info.Name == Name)
      return &Info;
  return nullptr;
}

/// The readable name of a check: its class without "Check" ("ZeroGrad").
constexpr std::string_view readableName(const CheckInfo &Info) {
  std::string_view Class = Info.ClassName;
  constexpr std::string_view Suffix = "Check";
  if (Class.size() > Suffix.size() &&
      Class.substr(Class.size() - Suffix.size()) == Suffix)
    Class.remove_suffix(Suffix.size());
  return Class;
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_CHECKS_CHECKTABLE_H
