//===--- CudaLibrarySettings.h - libtorch-tidy ------------------*- C++ -*-===//
//
// What torch-cudnn-benchmark and torch-tf32-disabled need to know of a
// program: where it selects a device that can be CUDA, its training loop,
// the layers it trains, and the global settings of LibTorch's CUDA
// libraries it makes (at::globalContext().set...()).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_CUDALIBRARYSETTINGS_H
#define LIBTORCH_TIDY_CHECKS_CUDALIBRARYSETTINGS_H

#include "utils/TorchCheck.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <initializer_list>
#include <optional>
#include <vector>

namespace clang::tidy::torch::utils {
class ProjectIndex;
} // namespace clang::tidy::torch::utils

namespace clang::tidy::torch::cudalib {

/// \p Decls build or call a convolution (Conv1d..3d, ConvTranspose,
/// torch::conv2d, ...).
bool buildsConvolution(ASTContext &Ctx, const std::vector<Decl *> &Decls);
/// \p Decls build or call a matmul-heavy layer (Linear, attention, matmul,
/// mm, bmm, einsum, ...) of a size worth a tensor core.
bool buildsMatmul(ASTContext &Ctx, const std::vector<Decl *> &Decls);
/// \p Decls build a convolutional network whose matmul layers are a head:
/// at least three convolutions per Linear layer, and no attention,
/// transformer or explicit matmul call.
bool buildsConvolutionalNetwork(ASTContext &Ctx,
                                const std::vector<Decl *> &Decls);

/// The place a program selects a device that can be CUDA: a local or global
/// torch::Device (or DeviceType) variable whose value can name CUDA, else
/// the first expression that names CUDA.
struct DeviceSelection {
  SourceLocation Loc;
  /// The local declaration statement of the device variable, in a block:
  /// the setting is inserted after it.
  const Stmt *Statement = nullptr;
  /// What names CUDA in the variable's value (an assignment under a
  /// torch::cuda::is_available() test, another device variable's value).
  SourceLocation CudaLoc;
};

class ProgramFacts {
public:
  /// With \p Index, settings made in other files of the project and the
  /// layers of module classes built in other files count too.
  explicit ProgramFacts(ASTContext &Ctx,
                        const utils::ProjectIndex *Index = nullptr);

  /// The device selection, when the program can run on CUDA.
  const std::optional<DeviceSelection> &device() const { return Device; }
  /// The first loop that trains (backward() or an optimizer step).
  const Stmt *trainingLoop() const { return TrainingLoop; }
  /// The program calls at::Context::<one of Names>, with an argument that is
  /// not provably false when \p UnlessFalse.
  bool callsSetting(std::initializer_list<llvm::StringRef> Names,
                    bool UnlessFalse = false) const;
  /// It builds or calls a convolution (Conv1d..3d, ConvTranspose,
  /// torch::conv2d, ...).
  bool hasConvolution() const;
  /// It builds or calls a matmul-heavy layer (Linear, attention, matmul,
  /// mm, bmm, einsum, ...).
  bool hasMatmul() const;
  /// Its network is convolutional with a matmul head
  /// (buildsConvolutionalNetwork), and no module class built in another file
  /// adds matmul layers.
  bool isConvolutionalNetwork() const;
  /// It uses autocast, or trains in half or bfloat16: a mention of them
  /// reaches the training loop (reachesTraining).
  bool usesReducedPrecision() const;
  /// The main file is a test (a tests/ folder, *_test.cpp, *_tests.cpp):
  /// short runs that compare numbers, where global speed settings are not
  /// wanted.
  bool isTestFile() const;
  /// The input shapes visibly change from step to step: the training loop
  /// makes tensors whose sizes come from values that change in the loop
  /// (returned as the size expression), or the program pads or packs
  /// variable-length sequences.
  const Expr *varyingShape() const;

  /// The fix-its that insert \p Statement (with its semicolon) once after
  /// the device selection: after the device's declaration statement, else
  /// at the start of main() when this translation unit defines it.
  llvm::SmallVector<FixItHint, 2> insertSetting(llvm::StringRef Statement,
                                                const LangOptions &LO) const;
  /// Where the selected device's value names CUDA, when a reader would not
  /// see it at the selection: on another line of the main file.
  std::optional<SourceLocation> cudaNamedElsewhere() const;

private:
  /// Whether \p Candidate is a better place to report than \p Current.
  bool better(const std::optional<DeviceSelection> &Current,
              const DeviceSelection &Candidate) const;
  /// The index says a module class the program uses (or one of its bases)
  /// builds a convolution (\p Conv) or a matmul layer in another file.
  bool indexedModuleBuilds(bool Conv) const;
  bool inTraining(const Stmt *S, const ValueDecl *D) const;
  bool reachesTraining(const Stmt *Mention, unsigned Depth) const;
  bool usedForTraining(const VarDecl *VD, unsigned Depth) const;

  ASTContext &Ctx;
  const utils::ProjectIndex *Index;
  std::vector<Decl *> Decls;
  std::optional<DeviceSelection> Device;
  const Stmt *TrainingLoop = nullptr;
  const FunctionDecl *Main = nullptr;
};

/// A check of a setting that holds for the whole program: it looks at the
/// translation unit once, at its end, and at the project index when the run
/// has one.
class ProgramSettingCheck : public TorchCheck {
public:
  using TorchCheck::TorchCheck;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus14;
  }
  void registerMatchers(ast_matchers::MatchFinder *Finder) override;
  void check(const ast_matchers::MatchFinder::MatchResult &Result) override;
  void onStartOfTranslationUnit() override { Ctx = nullptr; }
  void onEndOfTranslationUnit() override;

protected:
  /// Reports what \p Program lacks, if anything.
  virtual void checkProgram(const ProgramFacts &Program) = 0;

private:
  ASTContext *Ctx = nullptr;
};

} // namespace clang::tidy::torch::cudalib

#endif // LIBTORCH_TIDY_CHECKS_CUDALIBRARYSETTINGS_H
