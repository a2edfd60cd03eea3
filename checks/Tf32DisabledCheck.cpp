//===--- Tf32DisabledCheck.cpp - libtorch-tidy ----------------------------===//
//
// On Ampere and later GPUs, cuBLAS can run FP32 matmuls on tensor cores in
// TF32: the inputs keep 10 bits of mantissa instead of 23, the accumulation
// stays FP32, and the matmul is several times faster. LibTorch leaves it off
// for matmuls (cuDNN convolutions already use it by default), so a program
// that trains Linear or attention layers in FP32 gets the slow path unless it
// asks. The check reports such a program once, at the device selection;
// programs that set the precision either way, that train in half precision
// or under autocast, that only convolve or whose matmul layers are a
// convolutional network's head (cuDNN already convolves in TF32), and
// programs built against LibTorch before 1.12 (1.7 to 1.11 allow TF32 for
// cuBLAS by default, earlier versions have none), stay silent.
//
//===----------------------------------------------------------------------===//

#include "Tf32DisabledCheck.h"
#include "CudaLibrarySettings.h"
#include "TorchTidyModule.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchVersion.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

void Tf32DisabledCheck::registerPPCallbacks(const SourceManager &SM,
                                            Preprocessor *PP,
                                            Preprocessor *ModuleExpanderPP) {
  ProgramSettingCheck::registerPPCallbacks(SM, PP, ModuleExpanderPP);
  this->PP = PP;
}

void Tf32DisabledCheck::checkProgram(const cudalib::ProgramFacts &Program) {
  const auto &Device = Program.device();
  // Any setting of the matmul precision is a choice, TF32 off included.
  std::optional<utils::TorchVersion> Version =
      PP ? utils::readTorchVersion(*PP) : std::nullopt;
  if (!Device || Program.isTestFile() || !Program.trainingLoop() ||
      (Version && !Version->atLeast(1, 12)) || !Program.hasMatmul() ||
      Program.isConvolutionalNetwork() ||
      Program.usesReducedPrecision() ||
      Program.callsSetting({"setAllowTF32CuBLAS", "setFloat32MatmulPrecision",
                            "setFloat32Precision"}))
    return;
  {
    auto Diag =
        diag(Device->Loc,
             "FP32 matmuls train on a device that can be CUDA with TF32 off "
             "for cuBLAS: Linear, matmul and attention layers miss the tensor "
             "cores of Ampere and later GPUs; allow TF32 once with "
             "'at::globalContext().setFloat32MatmulPrecision(\"high\")', "
             "which keeps about 10 bits of mantissa in matmul inputs");
    for (const FixItHint &Fix : Program.insertSetting(
             "at::globalContext().setFloat32MatmulPrecision(\"high\");",
             getLangOpts()))
      Diag << Fix;
  }
  if (std::optional<SourceLocation> Cuda = Program.cudaNamedElsewhere())
    diag(*Cuda, "the device can be CUDA from here", DiagnosticIDs::Note);
  diag(Program.trainingLoop()->getBeginLoc(), "training loop here",
       DiagnosticIDs::Note);
}

TORCH_TIDY_CHECK_FACTORY(Tf32DisabledCheck)

} // namespace clang::tidy::torch
