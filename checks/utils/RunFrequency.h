//===--- RunFrequency.h - libtorch-tidy -------------------------*- C++ -*-===//
//
// How often a statement runs, as far as one translation unit shows it: in a
// loop, in a function called from a loop (a few calls up), in a module's
// forward() or a functor's operator() (per step by convention), or once (a
// function whose callers here all run once, main, a constructor of an object
// never made in a loop). A function nothing here calls is undecided.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_RUNFREQUENCY_H
#define LIBTORCH_TIDY_CHECKS_UTILS_RUNFREQUENCY_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace clang::tidy::torch::utils {

enum class Frequency { Once, Repeated, Unknown };

/// Why a statement repeats: the loop that repeats it (possibly in a caller),
/// and the function it is in when that is not the loop's function.
struct RepeatReason {
  Frequency Freq = Frequency::Unknown;
  const Stmt *Loop = nullptr;
  const FunctionDecl *Through = nullptr;
};

class RunFrequency {
public:
  explicit RunFrequency(ASTContext &Ctx, unsigned MaxCallDepth = 4)
      : Ctx(Ctx), MaxCallDepth(MaxCallDepth) {}

  RepeatReason ofStmt(const Stmt *S) { return ofNode(S, 0); }
  RepeatReason ofFunction(const FunctionDecl *FD) {
    return ofFunctionAt(FD, 0);
  }
  /// Whether an object of \p RD is constructed in code that repeats.
  bool isConstructedRepeatedly(const CXXRecordDecl *RD);
  /// The calls of \p FD in this translation unit (null when its address
  /// escapes, so that the calls cannot all be seen).
  const llvm::SmallVector<const Stmt *, 4> *callsOf(const FunctionDecl *FD);

private:
  void buildIndex();
  RepeatReason ofNode(const Stmt *S, unsigned Depth);
  RepeatReason ofFunctionAt(const FunctionDecl *FD, unsigned Depth);
  RepeatReason ofConstructions(const CXXRecordDecl *RD, unsigned Depth);

  ASTContext &Ctx;
  unsigned MaxCallDepth;
  bool Indexed = false;
  llvm::DenseMap<const Decl *, llvm::SmallVector<const Stmt *, 4>> Calls;
  llvm::DenseMap<const Decl *, unsigned> References;
  llvm::DenseMap<const Decl *, llvm::SmallVector<const Stmt *, 4>>
      Constructions;
  llvm::DenseSet<const Decl *> InProgress;
};

/// "in every iteration of a loop", "in every call of 'f', called in a loop"
/// or "in every call of 'forward', which runs per step". A diagnostic's
/// argument, never part of its format string: it holds the function's name.
/// The loop is shown by a note at R.Loop (RepeatLoopNote), not by its line.
std::string describeRepeat(const RepeatReason &R);

/// The text of the note at the loop that repeats a reported statement.
inline constexpr const char *RepeatLoopNote = "the loop that repeats it";

/// The function as written: the template pattern of an instantiation, its
/// canonical declaration.
const FunctionDecl *writtenFunction(const FunctionDecl *FD);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_RUNFREQUENCY_H
