//===--- InputCheck.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// The driver's look at the command line before clang-tidy runs: which
// arguments are source files, and whether they and the compilation database
// can be analyzed at all. Bad input gets one line and exit code 2 instead of
// clang-tidy's pages of errors (a binary file) or a silent run without flags
// (a broken compile_commands.json); unknown check names are named.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CLI_INPUTCHECK_H
#define LIBTORCH_TIDY_DRIVER_CLI_INPUTCHECK_H

#include "cli/CommandLine.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace torchtidy {

/// The exit code for input the driver refuses to analyze.
constexpr int BadInputExitCode = 2;

/// The inputs leave nothing to analyze. Each problem was already printed
/// where it was found, one line each, so the error says nothing more; the
/// run ends with BadInputExitCode.
class InputsRejected : public llvm::ErrorInfo<InputsRejected> {
public:
  static char ID;
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
};

/// Checks what clang-tidy would analyze: the compilation database it would
/// use loads, every check name is known, each source file exists, is a C or
/// C++ file and text. Prints one line per problem. Returns the source files
/// to leave out, or InputsRejected when nothing should be analyzed.
/// \p ProjectDir: the build directory of a whole-project run, whose first
/// file stands for all when looking up .clang-tidy files; empty otherwise.
llvm::Expected<std::vector<std::string>>
checkInputs(const CommandLine &CL, llvm::StringRef ProjectDir);

/// \p RC, or BadInputExitCode when checkInputs refused a file and that is
/// higher.
int inputExitCode(int RC);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CLI_INPUTCHECK_H
