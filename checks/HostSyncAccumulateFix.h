//===--- HostSyncAccumulateFix.h - libtorch-tidy ----------------*- C++ -*-===//
//
// The fix-it torch-host-sync-in-loop offers for `total += x.item<T>();` in a
// loop whose total is read only after it: accumulate on the device, read the
// sum once after the loop.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTSYNCACCUMULATEFIX_H
#define LIBTORCH_TIDY_CHECKS_HOSTSYNCACCUMULATEFIX_H

#include "clang/Basic/Diagnostic.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include <optional>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class LangOptions;
class SourceManager;
class Stmt;
} // namespace clang

namespace clang::tidy::torch::hostsync {

/// The fix for `total += x.item<T>();` whose total is read only after the
/// loop: accumulate on the device, read once after the loop.
struct AccumulateFix {
  llvm::SmallVector<FixItHint, 3> Hints;
};

/// The names of the device totals the fixes of a translation unit declare,
/// per function.
using HandedOutNames =
    llvm::DenseMap<const FunctionDecl *, llvm::StringSet<>>;

/// The fix for the item() call \p ItemCall in \p Loop, or std::nullopt
/// where the sum on the device could differ from the host's, or the total
/// is seen inside the loop or through a reference. The name it declares is
/// added to \p HandedOut.
std::optional<AccumulateFix>
accumulateOnDevice(const Expr *ItemCall, const Stmt *Loop, ASTContext &Ctx,
                   const SourceManager &SM, const LangOptions &LangOpts,
                   HandedOutNames &HandedOut);

} // namespace clang::tidy::torch::hostsync

#endif // LIBTORCH_TIDY_CHECKS_HOSTSYNCACCUMULATEFIX_H
