//===--- RunBasics.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Two small helpers the parts of a whole-project run share: the text of a
// file a child wrote, and the steady clock for the durations it reports.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_RUNBASICS_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_RUNBASICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include <chrono>
#include <string>

namespace torchtidy {

/// The contents of \p Path, or "" when it cannot be read (a child that
/// wrote nothing says the same as one that never ran).
inline std::string readText(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : "";
}

/// Seconds on the steady clock: only differences mean anything.
inline double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_RUNBASICS_H
