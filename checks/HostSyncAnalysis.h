//===--- HostSyncAnalysis.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// What one iteration of a loop runs that makes the host wait for the device:
// the syncing calls (item(), cpu(), printing a tensor, data-dependent sizes,
// boolean masks, ...), how each synced value is used (logged, summed, an
// index, deciding leaving the loop), followed into called functions and
// lambdas MaxCallDepth calls deep. Also where a loop runs: whether the
// translation unit can put tensors on a CUDA device at all, loops over
// devices, and code only a CPU branch of a device test reaches.
// HostSyncInLoopCheck reports what this analysis finds.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTSYNCANALYSIS_H
#define LIBTORCH_TIDY_CHECKS_HOSTSYNCANALYSIS_H

#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace clang::tidy::torch::hostsync {

/// One kind of synchronizing call: how the message names it and the better
/// pattern it suggests.
struct SyncKind {
  const char *What;
  const char *Hint;
};

/// `t.item()`: the one kind whose value the accumulate fix can keep on the
/// device.
extern const SyncKind ItemSync;

/// How the value a sync brings to the host is used: it decides which advice
/// fits, and whether the program needs the sync at all. Declared from the
/// weakest to the strongest: a value used several ways counts as its
/// strongest use (a value only logged is logged).
enum class UseKind {
  Log,        // printed or formatted with other text
  Other,      // stored, passed on
  Returned,   // returned: its caller's use decides
  HostOnly,   // a host copy read on the host (data_ptr, accessor, a stream)
  Accumulate, // `total += value`
  Control,    // an index, a bound, a condition
  Exit,       // decides leaving the loop
};

/// The advice for a second copy to the CPU in one iteration.
extern const char *const MergeCopiesHint;

struct FoundSync {
  const Expr *Sync = nullptr;
  const SyncKind *Kind = nullptr;
  std::string What; // Kind->What with its name filled in
  UseKind Use = UseKind::Other;
  /// For a second copy to the CPU in one iteration of a called function:
  /// the first, which one transfer could share.
  const Expr *FirstCopy = nullptr;
  /// The functions the sync was reached through, outermost first.
  llvm::SmallVector<const FunctionDecl *, 4> Through;
};

struct Site {
  const Expr *Where; // in the walked code: the sync itself or a call
  FoundSync Sync;
  /// Outside every branch of the walked code: it runs each time the code
  /// does.
  bool Always = true;
};

struct WalkResult {
  llvm::SmallVector<Site, 4> Sites;
  /// The first deliberate (timing) synchronize of the iteration: reading
  /// results after it waits for nothing more.
  SourceLocation TimingSync;
  /// Whether a whole training/evaluation loop runs inside.
  bool HasTrainingLoop = false;
  /// Where the walked code runs a module's forward pass, backward() or an
  /// optimizer's step (itself or in a function it calls): device work that
  /// a later copy to the CPU waits for.
  llvm::SmallVector<SourceLocation, 2> Work;
  /// Whether that work includes a training step's backward() or step().
  bool Trains = false;
  /// How many branches (of an if, a switch, `?:`, `&&`) the walk is in.
  unsigned Branches = 0;
};

struct Finding {
  const Site *S;
  const Expr *FirstCopy; // a copy to the CPU the site's copy could join
};

struct Findings {
  llvm::SmallVector<Finding, 4> Reported;
  /// The iteration's one copy to the CPU that host code reads: needed.
  const Site *HostCopy = nullptr;
};

/// A loop that runs more than once (`do { ... } while (false)` does not).
bool isLoop(const Stmt *S, const ASTContext &Ctx);

/// The body of a for, range-for, while or do loop; null for anything else.
const Stmt *loopBody(const Stmt *S);

/// The advice that fits how the synced value is used.
const char *hintFor(const FoundSync &F);

/// What of an iteration's syncs is worth reporting: not the syncs the
/// program needs, nor its first copy whose data host code reads; a second
/// such copy is reported with the first when a forward pass runs between
/// them (otherwise it waits only for the few ops since the first).
Findings findingsOf(const WalkResult &R, const SourceManager &SM);

/// Follows the syncs of loops through the functions they call; holds the
/// summaries of the functions of one translation unit.
class SyncAnalysis {
public:
  SyncAnalysis(ASTContext &Ctx, const SourceManager &SM, const LangOptions &LO,
               unsigned MaxCallDepth,
               const utils::ProjectIndex *Index = nullptr)
      : Ctx(Ctx), SM(SM), LangOpts(LO), MaxCallDepth(MaxCallDepth),
        Devices(Ctx) {
    // A sync judged on the CPU is not reported: a parameter that every call
    // here, or with an index every call in the project, passes a host
    // tensor is one (a miss where another file passes a CUDA one, never a
    // false warning).
    Devices.followCallers();
    Devices.useIndex(Index);
  }

  /// What one iteration of \p Loop runs.
  WalkResult walkLoop(const Stmt *Loop) {
    WalkResult R;
    if (const auto *F = dyn_cast<ForStmt>(Loop)) {
      walk(F->getCond(), R, 0);
      walk(F->getInc(), R, 0);
    }
    // A while or do condition decides leaving the loop: the program needs
    // its value on the host.
    walk(loopBody(Loop), R, 0);
    return R;
  }

  /// What one call of \p FD runs outside its loops, whose iterations are
  /// walked where the loops are matched.
  WalkResult walkFunction(const FunctionDecl *FD) {
    WalkResult R;
    if (const FunctionDecl *Def = FD->getDefinition())
      walk(Def->getBody(), R, 0);
    return R;
  }

private:
  struct Summary {
    std::optional<FoundSync> First;
    bool HasTrainingLoop = false;
    bool RunsWork = false;
    bool Trains = false;
  };

  void walk(const Stmt *S, WalkResult &R, unsigned Depth);
  void walkCall(const CallExpr *CE, WalkResult &R, unsigned Depth);
  const Summary &summarize(const FunctionDecl *FD, unsigned Depth);
  std::optional<FoundSync> classify(const Expr *E);
  std::optional<FoundSync> classifyUnresolved(const Expr *Member);
  std::optional<FoundSync> classifyImplicit(const Expr *E);
  std::optional<FoundSync> classifyTensorMethod(const CXXMemberCallExpr *MC);
  std::optional<FoundSync> classifyCall(const CallExpr *CE);
  bool onCpu(const Expr *Tensor);
  bool isMovedToDevice(const Expr *Tensor, unsigned Depth = 0);
  UseKind useOfSync(const Expr *E);
  UseKind useOf(const Expr *E, unsigned Depth);
  UseKind useOfElement(const Expr *Element, unsigned Depth);
  UseKind useOfVariable(const VarDecl *VD, unsigned Depth,
                        const Stmt *Within = nullptr);
  std::optional<UseKind> useInStatement(const Stmt *Parent, const Stmt *Cur,
                                        unsigned Depth);
  std::optional<UseKind> useInAssignment(const Stmt *Parent, const Stmt *Cur,
                                         unsigned Depth);
  std::optional<UseKind> useInHostCall(const CallExpr *CE, const Stmt *Cur,
                                       unsigned Depth);
  UseKind useOfContainer(const VarDecl *VD, unsigned Depth);
  const VarDecl *containerStoredInto(const Stmt *Parent, const Stmt *Cur) const;
  bool feedsTheSync(const CallExpr *CE);
  bool countDecidesExit(const Expr *Sync);
  bool isInside(const Stmt *S, const Stmt *Outer) const;
  void walkIf(const IfStmt *If, WalkResult &R, unsigned Depth);
  void walkBranch(const Stmt *S, WalkResult &R, unsigned Depth);
  bool walkedConditional(const Stmt *S, WalkResult &R, unsigned Depth);
  void addSite(const Expr *E, FoundSync Found, WalkResult &R);
  bool isTimingSync(const Expr *E);
  bool isTrainingLoop(const Stmt *Loop);
  bool containsTrainingStep(const Stmt *S, unsigned CallBudget,
                            bool ForwardCounts = true);
  bool resultIsDereferenced(const Expr *Call);

  static bool isUserFunction(const FunctionDecl *FD, const SourceManager &SM) {
    return FD && FD->hasBody() && !FD->isInStdNamespace() &&
           !utils::isInLibTorchHeader(FD->getLocation(), SM);
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LangOpts;
  const unsigned MaxCallDepth;
  llvm::DenseMap<std::pair<const FunctionDecl *, unsigned>, Summary> Summaries;
  llvm::DenseSet<const FunctionDecl *> InProgress;
  utils::DeviceAnalysis Devices;
  /// The sync (or the call that reaches one) whose use useOf() follows,
  /// and the innermost loop around it.
  const Expr *UseRoot = nullptr;
  const Stmt *UseLoop = nullptr;
};

/// Where a translation unit may run its tensors.
struct DeviceMentions {
  /// It names a CUDA device: kCUDA, cuda(), torch::cuda::..., "cuda:0".
  bool Cuda = false;
  /// It holds device-generic code: a device it receives.
  bool Generic = false;
};

/// The signs, in the code outside LibTorch's headers, that tensors may live
/// on a CUDA device.
DeviceMentions findDeviceMentions(ASTContext &Ctx, const SourceManager &SM);
/// Whether the code of \p D names a CUDA device, as findDeviceMentions does
/// for a whole translation unit.
bool mentionsCuda(const Decl *D, ASTContext &Ctx, const SourceManager &SM);

/// `for (auto &[device, t] : per_device)`, `for (auto d : devices)`: a loop
/// over devices runs once per device (usually once), not once per step,
/// and the values of different devices cannot be read in one copy.
bool isPerDeviceLoop(const Stmt *Loop);

/// Whether \p S runs only where a device test chose the CPU: in the then
/// branch of `if (d == kCPU)`, or the else branch of `if (d != kCPU)`.
bool isOnCpuBranch(const Stmt *S, ASTContext &Ctx);

} // namespace clang::tidy::torch::hostsync

#endif // LIBTORCH_TIDY_CHECKS_HOSTSYNCANALYSIS_H
