//===--- CudaScan.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// Whether a project selects a CUDA device anywhere, and whether it has a
// program of its own, from a token scan of its sources: cheap enough to run
// once per whole-project run, before the analysis. torch-host-sync-in-loop
// uses the answer for device-generic code.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_PROJECT_CUDASCAN_H
#define LIBTORCH_TIDY_DRIVER_PROJECT_CUDASCAN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace torchtidy {

/// Whether \p Text, C++ source, selects a CUDA device: the token kCUDA,
/// `::CUDA` (DeviceType::CUDA), `cuda::is_available`, `.cuda(` or `->cuda(`,
/// or a string literal starting with "cuda" ("cuda", "cuda:0") that is not an
/// #include's file name. Comments do not count.
bool selectsCuda(llvm::StringRef Text);

/// Whether \p Text defines a program's main() at file scope: one whose body
/// names no test or benchmark framework (doctest, Catch, testing, benchmark,
/// RUN_ALL_TESTS, Boost's unit_test).
bool definesProgram(llvm::StringRef Text);

struct ProjectScan {
  /// Some file selects CUDA.
  bool SelectsCuda = false;
  /// Some file defines a program's main(): without one the project is a
  /// library, whose users pick the device.
  bool HasProgram = false;
};

/// What \p Files, and the headers they include with quotes found next to
/// the including file, show (regular files only: a named pipe is not read);
/// an error when a file of \p Files cannot be read.
llvm::Expected<ProjectScan> scanProject(const std::vector<std::string> &Files);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_PROJECT_CUDASCAN_H
