//===--- CudaScan.h - libtorch-tidy -----------------------------*- C++ -*-===//
//
// Whether a project selects a CUDA device anywhere, from a token scan of its
// sources: cheap enough to run once per whole-project run, before the
// analysis. torch-host-sync-in-loop uses the answer for device-generic code.
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

/// Whether any of \p Files, or a header they include with quotes found next
/// to the including file, selects CUDA (regular files only: a named pipe is
/// not read); an error when a file of \p Files cannot be read.
llvm::Expected<bool> projectSelectsCuda(const std::vector<std::string> &Files);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_PROJECT_CUDASCAN_H
