//===--- TrainingCode.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// Whether code trains: it runs backward(), steps an optimizer or asks
// autograd for gradients, directly or through the functions of the
// translation unit it calls.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_TRAININGCODE_H
#define LIBTORCH_TIDY_CHECKS_UTILS_TRAININGCODE_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include <initializer_list>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
class Stmt;
} // namespace clang

namespace clang::tidy::torch::utils {

/// backward() of a tensor, torch::autograd::backward, an optimizer's step().
bool isTrainingCall(const FunctionDecl *FD);

/// A module's forward() or a functor's operator(): per step by convention.
bool isPerStepByConvention(const FunctionDecl *FD);

/// Code that runs within one step: a per-step-by-convention function or
/// another method of a module (a decoder's generate()). A loop of its own
/// that only runs forwards goes over layers or time steps, not over steps.
bool runsWithinAStep(const FunctionDecl *FD);

/// Whether one iteration of \p Loop runs backward() or an optimizer's step()
/// itself, outside the loops inside it (directly or through the functions of
/// the translation unit it calls, \p MaxCallDepth deep): such a loop runs
/// per step, whatever loops of forwards (micro-batches, per-sample passes)
/// run inside it.
bool stepsEachIteration(const Stmt *Loop, ASTContext &Ctx,
                        unsigned MaxCallDepth = 3);

/// A call whose result needs gradients: a training call,
/// torch::autograd::grad, or requires_grad_(true) / set_requires_grad(true).
bool needsGradients(const CallExpr *Call, ASTContext &Ctx);

/// The words of an identifier, lower-cased: "runTestEpoch" and
/// "run_test_epoch" are both {run, test, epoch}.
bool hasWord(llvm::StringRef Identifier,
             std::initializer_list<llvm::StringRef> Words);

class TrainingCode {
public:
  explicit TrainingCode(ASTContext &Ctx, unsigned MaxCallDepth = 3)
      : Ctx(Ctx), MaxCallDepth(MaxCallDepth) {}

  /// \p S makes a call that needs gradients (needsGradients), directly or
  /// through the functions of the translation unit it calls.
  bool needsGradientsIn(const Stmt *S) { return at(S, 0); }
  /// The same for the body of \p FD.
  bool needsGradientsIn(const FunctionDecl *FD);

  /// The first loop in \p S (or in the functions \p S calls) that trains:
  /// calls backward() or an optimizer's step(); null when there is none.
  const Stmt *firstTrainingLoop(const Stmt *S) { return loopAt(S, 0); }

  /// \p S calls backward() or an optimizer's step(), directly or through the
  /// functions of the translation unit it calls.
  bool trains(const Stmt *S) { return S && trainsAt(S, 0); }

  /// Like firstTrainingLoop(), but a loop found in a called function is
  /// judged as trains() judges it: through as many calls again, counted
  /// from the loop.
  const Stmt *firstLoopThatTrains(const Stmt *S) {
    return loopAt(S, 0, /*DepthFromLoop=*/true);
  }

private:
  bool at(const Stmt *S, unsigned Depth);
  const Stmt *loopAt(const Stmt *S, unsigned Depth,
                     bool DepthFromLoop = false);
  bool trainsAt(const Stmt *S, unsigned Depth);
  const Stmt *userBody(const FunctionDecl *FD, unsigned Depth) const;

  ASTContext &Ctx;
  unsigned MaxCallDepth;
  llvm::DenseMap<const Stmt *, bool> Known;
};

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_TRAININGCODE_H
