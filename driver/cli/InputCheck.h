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
#include <string>
#include <vector>

namespace torchtidy {

/// The exit code for input the driver refuses to analyze.
constexpr int BadInputExitCode = 2;

/// Checks what clang-tidy would analyze: the compilation database it would
/// use loads, every check name is known, each source file exists, is a C or
/// C++ file and text. Prints one line per problem. Returns BadInputExitCode
/// when nothing should be analyzed, else 0 with the source files to leave
/// out in \p Refused. \p ProjectDir: the build directory of a
/// whole-project run, whose first file stands for all when looking up
/// .clang-tidy files; empty otherwise.
int checkInputs(const CommandLine &CL, llvm::StringRef ProjectDir,
                std::vector<std::string> &Refused);

/// \p RC, or BadInputExitCode when checkInputs refused a file and that is
/// higher.
int inputExitCode(int RC);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CLI_INPUTCHECK_H
