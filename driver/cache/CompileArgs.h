//===--- CompileArgs.h - libtorch-tidy --------------------------*- C++ -*-===//
//
// What of clang-tidy's command line decides a file's compile command, as the
// command-line model (cli/CommandLine.h) parsed it: the result cache's key
// and the automatic PCH need it, and never read the arguments again.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CACHE_COMPILEARGS_H
#define LIBTORCH_TIDY_DRIVER_CACHE_COMPILEARGS_H

#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

/// What of clang-tidy's command line decides a file's compile command, as
/// the command-line model (cli/CommandLine.h) parsed it.
struct CompileArgs {
  std::optional<std::string> BuildPath;          ///< -p
  std::optional<std::vector<std::string>> Fixed; ///< the flags after "--"
  std::vector<std::string> Before;               ///< --extra-arg-before
  std::vector<std::string> After;                ///< --extra-arg
};

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CACHE_COMPILEARGS_H
