//===--- Driver.h - libtorch-tidy -------------------------------*- C++ -*-===//
//
// libtorch-tidy's flow over the library, as clang-tidy's clangTidyMain is
// over its own: parse the command line once, then the analysis child, the
// analysis of named files (through the result cache), or the whole-project
// run; the exports; the verifier.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CLI_DRIVER_H
#define LIBTORCH_TIDY_DRIVER_CLI_DRIVER_H

namespace torchtidy {

/// The whole of `libtorch-tidy ARGS...`; returns its exit code
/// (docs/exit-codes.md).
int runDriver(int Argc, const char **Argv);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CLI_DRIVER_H
