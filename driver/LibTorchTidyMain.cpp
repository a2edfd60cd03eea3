//===--- LibTorchTidyMain.cpp - the libtorch-tidy driver ------------------===//
//
// The standalone host: clang-tidy with the torch checks built in, plus the
// driver's own options (cli/CommandLine.cpp). The flow is in the library
// (cli/Driver.cpp), as clang-tidy's tool/ClangTidyToolMain.cpp is over
// ClangTidyMain.cpp.
//
//===----------------------------------------------------------------------===//

#include "cli/Driver.h"

int main(int argc, const char **argv) {
  return torchtidy::runDriver(argc, argv);
}
