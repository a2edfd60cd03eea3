//===--- SampleCostAnalysis.h - libtorch-tidy -------------------*- C++ -*-===//
//
// What preparing one sample of a data set costs: file and stream I/O,
// decoding, OpenCV, string parsing, loops that do more than move memory,
// and the tensor operations of get(), the functions it calls and the
// transforms mapped over it. Used by torch-dataloader-workers and by the
// project index, which records each function's own work.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_SAMPLECOSTANALYSIS_H
#define LIBTORCH_TIDY_CHECKS_SAMPLECOSTANALYSIS_H

#include "utils/LibTorchHeaders.h"
#include "utils/ProjectIndex.h"
#include "clang/AST/ASTContext.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>

namespace clang::tidy::torch::dataloader {

/// The first expensive operation found in a data set's per-sample code.
struct ExpensiveOp {
  /// "file or stream I/O", "an OpenCV call", ...
  std::string What;
  SourceLocation Where;
  /// The function it is in ("get", "apply", a lambda).
  std::string In;
  /// When the project index found it in another file: "file:line" and the
  /// function it is in there; Where is then the declaration this file sees.
  std::string Elsewhere, ElsewhereIn;
  /// Tensor operations of several functions (a data set and its transforms)
  /// summed: Where is the first of them.
  bool Summed = false;
};

/// What the body of \p Def itself does per call, the functions it calls
/// left out (the project index adds them through its call graph): its first
/// expensive operation (Ops 0), or else its first tensor operation and how
/// many there are. Nothing when it does neither.
/// More tensor operations than this per sample is real work.
constexpr unsigned MaxCheapTensorOps = 4;

struct OwnWork {
  ExpensiveOp First;
  unsigned TensorOps = 0;
};
std::optional<OwnWork> ownWork(const FunctionDecl *Def, ASTContext &Ctx);

/// What preparing one sample costs: the first expensive operation found, or
/// else the tensor operations, summed over the functions, data sets and
/// transforms that run per sample.
struct Work {
  std::optional<ExpensiveOp> Op;
  unsigned TensorOps = 0;
  /// The first tensor operation (where, in which function, and the file and
  /// line when the project index found it in another file).
  ExpensiveOp FirstTensorOp;

  void add(const Work &W) {
    if (!Op && W.Op)
      Op = W.Op;
    if (W.TensorOps && !TensorOps)
      FirstTensorOp = W.FirstTensorOp;
    else if (W.TensorOps && W.FirstTensorOp.In != FirstTensorOp.In)
      FirstTensorOp.Summed = true;
    TensorOps += W.TensorOps;
  }
  /// The work is worth a worker thread.
  std::optional<ExpensiveOp> expensive() const {
    if (Op)
      return Op;
    if (TensorOps <= MaxCheapTensorOps)
      return std::nullopt;
    ExpensiveOp Ops = FirstTensorOp;
    Ops.What = std::to_string(TensorOps) + " tensor operations";
    if (Ops.Summed) {
      Ops.ElsewhereIn = Ops.ElsewhereIn.empty() ? Ops.In : Ops.ElsewhereIn;
      Ops.In = "the per-sample code (data set and transforms)";
    }
    return Ops;
  }
};

class SampleCost {
public:
  /// With \p FollowCalls false, only the body itself counts: what the
  /// project index records for each function, the calls being its edges.
  SampleCost(ASTContext &Ctx, const utils::ProjectIndex *Index = nullptr,
             bool FollowCalls = true)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Index(Index),
        FollowCalls(FollowCalls) {}

  /// The code that prepares one sample of the data set type \p T, built by
  /// \p Built (where lambdas of the transforms are written); nothing when
  /// the type is not visible.
  Work ofDataset(QualType T, const Expr *Built);
  /// The work of \p Body, of the function \p In.
  Work ofBody(const Stmt *Body, StringRef In, unsigned Depth);

private:
  Work ofTransform(QualType T, const Expr *Built);
  Work ofMethods(const CXXRecordDecl *RD,
                 std::initializer_list<StringRef> Names, unsigned Depth = 0);
  Work ofIndexed(const FunctionDecl *FD, StringRef In) const;
  Work ofCall(const CallExpr *Call, const FunctionDecl *FD, StringRef In,
              unsigned Depth);
  bool isUserCode(const Decl *D) const {
    return !utils::isInLibTorchHeader(D->getLocation(), SM);
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const utils::ProjectIndex *Index;
  bool FollowCalls;
  llvm::DenseSet<const Stmt *> Visited;
};

} // namespace clang::tidy::torch::dataloader

#endif // LIBTORCH_TIDY_CHECKS_SAMPLECOSTANALYSIS_H
