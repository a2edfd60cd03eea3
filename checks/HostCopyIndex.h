//===--- HostCopyIndex.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// What the project index adds to torch-host-tensor-to-device and
// torch-blocking-host-to-device-copy: how often the function around a copy
// runs (per step, or once) where its callers are in other files, whether it
// ever sees CUDA tensors, which functions of other files return host data,
// and which members their constructors make on the host. Without an index,
// or without an answer, the single-file rules stay as they are.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTCOPYINDEX_H
#define LIBTORCH_TIDY_CHECKS_HOSTCOPYINDEX_H

#include "clang-tidy/ClangTidyCheck.h"
#include "utils/ProjectIndex.h"
#include "utils/RunFrequency.h"

namespace clang::tidy::torch {

/// How often a statement runs, with the index's reason when the index, and
/// not this file, decided it.
struct IndexedRepeat {
  utils::RepeatReason Repeat;
  const utils::StepReason *Step = nullptr;
};

/// \p Local (what this file shows of \p S) with the index's facts: in a
/// function the index says runs per step, \p S repeats; in one it says runs
/// only once, it does not. A loop this file shows around \p S stays the
/// reason.
IndexedRepeat repeatWithIndex(const utils::RepeatReason &Local, const Stmt *S,
                              ASTContext &Ctx,
                              const utils::ProjectIndex *Index);

/// The note at \p Loc that names the loop, in another file, that runs the
/// function \p Fn per step.
void noteStepReason(ClangTidyCheck &Check, SourceLocation Loc,
                    const FunctionDecl *Fn, const utils::StepReason &Step);

/// Whether the index says the code around \p S only ever sees host tensors:
/// it is reached only from programs that never select CUDA (or, not knowing
/// its callers, no file of the project selects CUDA).
bool seesOnlyHostTensors(const Stmt *S, ASTContext &Ctx,
                         const utils::ProjectIndex *Index);

/// Whether the index says the project function \p FD, which this
/// translation unit declares without its body, returns host data.
bool indexReturnsHostData(const FunctionDecl *FD,
                          const utils::ProjectIndex *Index);

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_HOSTCOPYINDEX_H
