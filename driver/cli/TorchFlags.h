//===--- TorchFlags.h - libtorch-tidy ---------------------------*- C++ -*-===//
//
// Compiler flags for a file without a compile database: C++17 and LibTorch's
// include directories, found the way CMake users and pip users have them.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CLI_TORCHFLAGS_H
#define LIBTORCH_TIDY_DRIVER_CLI_TORCHFLAGS_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace torchtidy {

/// Whether clang-tidy would find a compilation database for \p File: a
/// compile_commands.json or compile_flags.txt in its directory or a parent.
bool hasCompilationDatabase(llvm::StringRef File);

/// `-std=c++17` and the `-isystem` directories of the first LibTorch found:
/// $Torch_DIR, each $CMAKE_PREFIX_PATH entry, Python's torch package
/// (torch.utils.cmake_prefix_path), Debian's libtorch-dev. \p From says
/// which, or that none was found (then only `-std=c++17`).
std::vector<std::string> defaultTorchFlags(std::string &From);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CLI_TORCHFLAGS_H
