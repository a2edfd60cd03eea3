//===--- HostDataAnalysis.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// Where a tensor's data comes from, for the two host-to-device checks and
// the project facts: tensors a factory makes on the host (through shape-only
// ops, dtype conversions, locals and members), host data (a tensor provably
// on the CPU, a data loader's batch, the values of the project's own load
// and collate functions), and the chain of ops between a factory and the
// move of its tensor to a device.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_HOSTDATAANALYSIS_H
#define LIBTORCH_TIDY_CHECKS_HOSTDATAANALYSIS_H

#include "utils/DeviceAnalysis.h"
#include "utils/ProjectIndex.h"
#include "utils/RunFrequency.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace clang::tidy::torch {
namespace hostdata {

/// Ops that change only the shape or the memory layout: made on the device,
/// the tensor goes through them unchanged.
bool isShapeOp(llvm::StringRef Name);

/// `t.to(dtype)` with nothing else: the dtype expression, or null.
const Expr *dtypeOfTo(const CXXMemberCallExpr *Call);

/// Part of the chain from a factory to the move, in one expression: the
/// text after \p Base up to the end of \p Top is rewritten to the shape ops
/// alone.
struct Segment {
  const Expr *Base = nullptr;
  const Expr *Top = nullptr;
  llvm::SmallVector<const CXXMemberCallExpr *, 4> ShapeOps; // outermost first
};

/// Walks down from \p E through shape-only ops and dtype-only conversions to
/// what they start from.
const Expr *walkLinks(const Expr *E, Segment &Seg,
                      llvm::SmallVectorImpl<const Expr *> &Dtypes);

/// A factory call that makes its tensor on the host from no host data.
bool isHostFactoryCall(const CallExpr *CE, utils::DeviceAnalysis &Devices,
                       const ASTContext &Ctx);

/// `torch::tensor(values_)` of a private, not mutable std::vector or
/// std::array member of the object that only the constructors of its class
/// set (no other method changes it, every method's body is in view, no
/// friends): the same host values in every call. The member, or null.
const FieldDecl *constantHostMemberTensor(const CallExpr *CE,
                                          utils::DeviceAnalysis &Devices,
                                          ASTContext &Ctx);

/// A member of the object itself: `w_` or `this->w_`.
const FieldDecl *ownMember(const Expr *E);

/// Every value the member \p Field gets in its class: its default member
/// initializer, the constructors' initializers and the assignments in the
/// constructors. Empty when another method assigns it too.
llvm::SmallVector<const Expr *, 4> memberValues(const FieldDecl *Field,
                                                ASTContext &Ctx);

/// A loop that collects what \p Call makes: its result is appended to a
/// container.
bool isCollected(const Expr *Call, ASTContext &Ctx);

/// A scalar whose torch::tensor({x}) dtype torch::full({1}, x) gives too:
/// float and double (the default dtype), int and int64_t (kLong), bool.
bool fullKeepsDtype(const Expr *Scalar);

/// The value of `torch::tensor(x)` made from one arithmetic scalar (not a
/// list): with a device in its options, LibTorch makes it there directly
/// (at::scalar_tensor), with no host tensor and no copy. Null otherwise.
const Expr *scalarElement(const Expr *Arg);

/// The elements of `{a, b}` in torch::tensor's first argument.
llvm::SmallVector<const Expr *, 4> literalElements(const Expr *Arg);

/// Where a tensor computed on the host comes from.
struct HostOrigins {
  llvm::SmallVector<const CallExpr *, 4> Factories;
  llvm::SmallVector<const FieldDecl *, 2> Members;
};

enum class DefKind { Read, Def, Unknown };

/// Decides whether a tensor is computed on the host, with nothing but ops
/// that keep the device, from tensors made by factories (a value that the
/// same code would compute on the device if the factories made their
/// tensors there). Inside the values of members, any tensor made on the
/// host counts (a constant loaded from host data too).
class HostMadeFinder {
public:
  HostMadeFinder(ASTContext &Ctx, utils::RunFrequency *Freq)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Devices(Ctx), Freq(Freq) {}

  bool isHostMade(const Expr *E, HostOrigins &Origins, unsigned Depth = 0);
  /// Whether the locals the last isHostMade() went through are read only
  /// on the way to \p Move (or after \p Move assigned its result back):
  /// made on the device, nothing else would see them change.
  bool onlyFeed(const CXXMemberCallExpr *Move);
  /// Members whose values are made in other files, and functions of other
  /// files that return host data, as the project index says.
  void useIndex(const utils::ProjectIndex *I) { Index = I; }
  /// Any tensor made on the host counts, not only factories' (as inside the
  /// values of members).
  void allowHostData() { AllowHostData = true; }

private:
  bool ofCall(const CallExpr *CE, HostOrigins &Origins, unsigned Depth);
  bool ofMethod(const CXXMemberCallExpr *MC, HostOrigins &Origins,
                unsigned Depth);
  bool ofOperands(llvm::ArrayRef<const Expr *> Args, HostOrigins &Origins,
                  unsigned Depth, bool &SawTensor);
  bool ofLocal(const DeclRefExpr *Use, const VarDecl *VD,
               HostOrigins &Origins, unsigned Depth);
  bool ofParam(const ParmVarDecl *P, HostOrigins &Origins, unsigned Depth);
  bool ofMember(const FieldDecl *Field, HostOrigins &Origins, unsigned Depth);
  bool ofIndexedMember(const FieldDecl *Field, HostOrigins &Origins);
  bool ofUserFunction(const FunctionDecl *FD, HostOrigins &Origins,
                      unsigned Depth);
  bool reachingValues(const VarDecl *VD, const Expr *Use, const Stmt *Body,
                      llvm::SmallVectorImpl<const Expr *> &Values);
  bool reaches(const Stmt *Def, const Expr *Use) const;

  ASTContext &Ctx;
  const SourceManager &SM;
  utils::DeviceAnalysis Devices;
  utils::RunFrequency *Freq;
  const utils::ProjectIndex *Index = nullptr;
  bool AllowHostData = false;
  unsigned Budget = 4000;
  llvm::DenseSet<const void *> InProgress;
  llvm::DenseSet<const Expr *> Visited;
  llvm::SmallVector<const VarDecl *, 4> Locals;
};

/// Whether \p E is host data: provably on the CPU, or the value of the
/// project's own load or collate functions (defined here, or in other files
/// as the active project index says), through locals and the ops that keep
/// the device.
bool isHostData(const Expr *E, utils::DeviceAnalysis &Devices, ASTContext &Ctx,
                unsigned Depth = 0);

/// Makes \p Index the project index isHostData reads while it lives (one
/// check of one translation unit at a time).
class ActiveIndexScope {
public:
  explicit ActiveIndexScope(const utils::ProjectIndex *Index);
  ~ActiveIndexScope();
  ActiveIndexScope(const ActiveIndexScope &) = delete;
  ActiveIndexScope &operator=(const ActiveIndexScope &) = delete;
};

} // namespace hostdata

/// The factory call that makes the host tensor \p E is a view or dtype
/// conversion of (through shape-only ops, dtype-only `.to(dtype)` and local
/// variables), or null. torch-blocking-host-to-device-copy leaves such
/// tensors to this check.
const CallExpr *hostFactoryBehind(const Expr *E, ASTContext &Ctx);

/// Whether \p Value is a tensor made on the host: from factories, host data
/// or both, through ops that keep the device (not a registered buffer). The
/// project facts use it for member tensors and returned tensors.
bool isMadeOnHost(const Expr *Value, ASTContext &Ctx);

/// Whether every return of \p FD, which has its body here, is a tensor made
/// on the host (isMadeOnHost).
bool returnsHostTensor(const FunctionDecl *FD, ASTContext &Ctx);

/// Whether \p E is host data as the check sees it in one translation unit:
/// provably on the CPU, or the value of the project's own load or collate
/// functions defined here, through locals and ops that keep the device. The
/// project facts use it for the functions that return host data.
bool isHostDataValue(const Expr *E, ASTContext &Ctx);

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_HOSTDATAANALYSIS_H
