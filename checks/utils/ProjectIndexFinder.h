//===--- ProjectIndexFinder.h - libtorch-tidy -------------------*- C++ -*-===//
//
// How a host that is not given the global option TorchProjectIndex finds
// the project index of a main file itself: libtorch-clangd looks for the
// index that `libtorch-tidy -p BUILD_DIR --update-index` made for the
// file's build directory. The plugin and the driver set no finder.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_PROJECTINDEXFINDER_H
#define LIBTORCH_TIDY_CHECKS_UTILS_PROJECTINDEXFINDER_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang::tidy::torch::utils {

/// The path of the index of \p MainFile, or "" when it has none.
using ProjectIndexFinder = std::string (*)(llvm::StringRef MainFile);

void setProjectIndexFinder(ProjectIndexFinder Finder);
bool hasProjectIndexFinder();
/// The index the finder names for \p MainFile, or "" (no finder, or none).
std::string findProjectIndex(llvm::StringRef MainFile);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_PROJECTINDEXFINDER_H
