//===--- DeviceAnalysis.h - libtorch-tidy -----------------------*- C++ -*-===//
//
// Where tensors live, as far as the code proves it: a factory without a
// device makes a CPU tensor, .cuda() a CUDA one, arithmetic keeps the device
// of its operands, and a local variable is where all its values are.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_DEVICEANALYSIS_H
#define LIBTORCH_TIDY_CHECKS_UTILS_DEVICEANALYSIS_H

#include "Operators.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <initializer_list>
#include <memory>
#include <optional>

namespace clang::tidy::torch::utils {

/// Where a tensor or a device expression is. Pending marks a variable whose
/// values are being examined: it agrees with anything.
enum class DeviceKind { Unknown, Cpu, Cuda, Pending };

/// \p E without the implicit casts, parentheses, temporaries, cleanups and
/// functional casts around it.
const Expr *ignoreTemporaries(const Expr *E);
/// ignoreTemporaries(), and also the converting (single-argument)
/// constructors around \p E.
const Expr *ignoreWrappers(const Expr *E);
/// The elements of a tensor list written in place (`{a, b}`), through the
/// constructors of TensorList and std::vector; null for anything else.
const InitListExpr *writtenTensorList(const Expr *E);
bool isTensorRecord(const CXXRecordDecl *RD);
/// at::Tensor or at::TensorBase, through references and typedefs.
bool isTensorType(QualType T);
/// The method of at::Tensor that \p E calls, or null.
const CXXMethodDecl *tensorMethod(const Expr *E);
/// Declared in at::, torch:: or c10:: (or a namespace nested in them).
bool isInTorchNamespace(const FunctionDecl *FD);
/// A LibTorch function named one of \p Names.
bool isTorchFunction(const FunctionDecl *FD,
                     std::initializer_list<llvm::StringRef> Names);
/// A record (class) type named \p Name, through references.
bool isRecordNamed(QualType T, llvm::StringRef Name);
/// An enumeration type named \p Name, through references.
bool isEnumNamed(QualType T, llvm::StringRef Name);
/// For `t.to(x, ...)` that binds the TensorOptions overload and so only
/// changes the device: the Device or DeviceType expression x names (seeing
/// through torch::device(d)); null for any other call.
const Expr *deviceTargetOfTo(const CXXMemberCallExpr *Call);
/// Whether something holds: yes, no, or not known here.
enum class Tri { No, Yes, Unknown };
/// Whether a TensorOptions expression sets a device (\p Device) or a dtype:
/// `torch::device(d)`, `opts.dtype(t)`, `t.options()` (both), a local that
/// is never reassigned, through its initializer.
Tri setsOption(const Expr *E, bool Device, ASTContext &Ctx, unsigned Depth = 0);
/// For `t.to(opts, ...)` of a TensorOptions value that provably sets a
/// device (`pred.options()`, `torch::TensorOptions().device(d)`): opts;
/// null for any other call.
const Expr *optionsTargetOfTo(const CXXMemberCallExpr *Call, ASTContext &Ctx);
/// The tensor factories whose result is on the device of their options.
bool isTensorFactory(const FunctionDecl *FD);
/// A Device, DeviceType or TensorOptions type, through references.
bool isDeviceValueType(QualType T);
/// Whether the value of \p E (a CUDA constant, say) only initializes or is
/// assigned to a local device variable that nothing reads, through
/// conversions and `?:`: `device = torch::kCUDA;` then `device =
/// torch::kCPU;` with the model never told puts nothing on a GPU.
bool storedOnlyInUnreadDevice(const Expr *E, ASTContext &Ctx);
/// A local device variable whose value nothing reads: every mention of it
/// is the left side of an assignment.
bool isWriteOnlyDevice(const ValueDecl *D, ASTContext &Ctx);
/// The value of a provably constant flag: a local `bool` or integer never
/// assigned, incremented, address-taken or bound to a non-const reference,
/// initialized with a literal (or any const variable with a constant
/// initializer). std::nullopt for anything else.
std::optional<bool> constantFlagValue(const VarDecl *VD, ASTContext &Ctx);

class RunFrequency;
class ProjectIndex;

class DeviceAnalysis {
public:
  explicit DeviceAnalysis(ASTContext &Ctx);
  ~DeviceAnalysis();

  /// Also judge a tensor parameter by the arguments of the calls this
  /// translation unit makes: a parameter every call passes a CPU tensor
  /// (`check(gt.cpu())`) is on the CPU. Where another file may call the
  /// function with a CUDA tensor, that answer may be wrong the silent way:
  /// for checks that stay quiet on the CPU.
  void followCallers() { FollowCallers = true; }
  /// With followCallers(), also the calls of other files: a parameter that
  /// every call in the project passes a CPU tensor is on the CPU.
  void useIndex(const ProjectIndex *I) { Index = I; }

  /// Where the tensor \p E lives.
  DeviceKind ofTensor(const Expr *E, unsigned Depth = 0);
  /// Which device a Device, DeviceType or TensorOptions expression names.
  DeviceKind ofDevice(const Expr *E, unsigned Depth = 0);

  /// The value of a condition built only of literals, constant expressions
  /// and provably constant flags (see isConstantFlag) with `!`, `&&`, `||`;
  /// std::nullopt when it is not known.
  std::optional<bool> constantCondition(const Expr *Cond);
  /// Whether \p S lies in a branch that constant flags make dead:
  /// `bool verbose = false; if (verbose) S;`.
  bool isInDeadBranch(const Stmt *S);
  /// Whether \p E, a use of a Device, DeviceType or TensorOptions value
  /// (a variable, parameter or member holding one, or `t.device()`,
  /// `t.options()`), may name a device other than the CPU: device-generic
  /// code. A parameter or member may, whatever its callers pass; a local
  /// may unless all its values are provably the CPU's.
  bool isDeviceGenericUse(const Expr *E);

private:
  std::optional<llvm::SmallVector<const Expr *, 4>>
  valueSources(const VarDecl *VD);
  template <typename Fn> DeviceKind ofVariable(const Expr *Ref, Fn &&Of);
  DeviceKind ofMethodResult(const CXXMemberCallExpr *MC, unsigned Depth);
  DeviceKind ofFactoryResult(const CallExpr *CE, unsigned Depth);
  DeviceKind ofCallResult(const CallExpr *CE, unsigned Depth);
  DeviceKind ofTorchValue(const Expr *E, unsigned Depth);
  DeviceKind ofTensorArguments(const CallExpr *CE, unsigned Depth);
  DeviceKind ofParameter(const ParmVarDecl *PVD, unsigned Depth);
  bool isLoaderBatchValue(const Expr *E, unsigned Depth);
  bool isLoaderBatchParameter(const ParmVarDecl *PVD, unsigned Depth);
  std::optional<DeviceKind> ofDeviceChoice(const Expr *E, unsigned Depth);

  ASTContext &Ctx;
  bool FollowCallers = false;
  const ProjectIndex *Index = nullptr;
  std::unique_ptr<RunFrequency> Calls;
  llvm::DenseSet<const VarDecl *> VarsInProgress;
  llvm::DenseMap<const VarDecl *, std::optional<bool>> Flags;
};

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_DEVICEANALYSIS_H
