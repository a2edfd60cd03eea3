//===--- CudnnBenchmarkCheck.cpp - libtorch-tidy --------------------------===//
//
// cuDNN has several algorithms for each convolution; by default LibTorch
// takes the one its heuristics pick. With benchmark mode on, the first call
// of each input shape times them all and keeps the fastest for the rest of
// the run: for a training loop whose shapes do not change, that is a one-time
// cost for a faster step. The switch is global and off by default, so the
// check looks at the whole translation unit: it reports once, at the device
// selection, when the program trains convolutions on a device that can be
// CUDA and never sets the switch (nor asks for deterministic cuDNN).
//
//===----------------------------------------------------------------------===//

#include "CudnnBenchmarkCheck.h"
#include "CudaLibrarySettings.h"
#include "TorchTidyModule.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "utils/LibTorchHeaders.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

void CudnnBenchmarkCheck::checkProgram(const cudalib::ProgramFacts &Program) {
  const auto &Device = Program.device();
  if (!Device || Program.isTestFile() || !Program.trainingLoop() ||
      !Program.hasConvolution() ||
      Program.callsSetting({"setBenchmarkCuDNN"}) ||
      Program.callsSetting({"setDeterministicCuDNN",
                            "setDeterministicAlgorithms"},
                           /*UnlessFalse=*/true) ||
      // Benchmark mode would tune again for every new shape.
      Program.varyingShape())
    return;
  {
    auto Diag = diag(Device->Loc,
                     "convolutions train on a device that can be CUDA with "
                     "cuDNN's autotuner off: each convolution runs the "
                     "algorithm cuDNN's heuristics pick, not the fastest one "
                     "for its shapes; enable it once with "
                     "'at::globalContext().setBenchmarkCuDNN(true)' when the "
                     "input shapes stay the same from step to step");
    for (const FixItHint &Fix : Program.insertSetting(
             "at::globalContext().setBenchmarkCuDNN(true);", getLangOpts()))
      Diag << Fix;
  }
  if (std::optional<SourceLocation> Cuda = Program.cudaNamedElsewhere())
    diag(*Cuda, "the device can be CUDA from here", DiagnosticIDs::Note);
  diag(Program.trainingLoop()->getBeginLoc(), "training loop here",
       DiagnosticIDs::Note);
}

TORCH_TIDY_CHECK_FACTORY(CudnnBenchmarkCheck)

} // namespace clang::tidy::torch
