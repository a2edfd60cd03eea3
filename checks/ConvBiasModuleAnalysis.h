//===--- ConvBiasModuleAnalysis.h - libtorch-tidy ---------------*- C++ -*-===//
//
// Which BatchNorm takes a convolution's output, for
// torch-conv-bias-before-batchnorm: adjacent entries of a Sequential, a
// push_back followed by another, convolution members of the user's classes
// called as bn(conv(x)) or in consecutive statements, and user modules whose
// forward() returns a convolution's output. Each such convolution whose bias
// is on becomes a Candidate.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_CONVBIASMODULEANALYSIS_H
#define LIBTORCH_TIDY_CHECKS_CONVBIASMODULEANALYSIS_H

#include "ConvBiasAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/ProjectIndex.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::torch::convbias {

//===----------------------------------------------------------------------===//
// Which BatchNorm takes the output
//===----------------------------------------------------------------------===//

struct BatchNormUse {
  std::string Type; // "BatchNorm2d"
  std::string Name; // "bn1", or empty
  SourceLocation Loc;
  /// The BatchNorm is applied only when Flag holds: `if (use_bn) ...`.
  const Expr *Flag = nullptr;
};

BatchNormUse describeBatchNorm(const std::string &TypeName,
                               const std::string &Name, SourceLocation Loc);

/// For a call of a module's forward (`m(x)`, `m->forward(x)`), the module
/// expression and the input.
struct ModuleCall {
  const Expr *Module = nullptr;
  const Expr *Input = nullptr;
};

std::optional<ModuleCall> asModuleCall(const Expr *E);

//===----------------------------------------------------------------------===//
// Traversal of the user's code
//===----------------------------------------------------------------------===//

/// Visits the declarations of the translation unit that are not LibTorch's
/// or the standard library's.
template <typename Derived>
class UserCodeVisitor : public RecursiveASTVisitor<Derived> {
public:
  explicit UserCodeVisitor(const SourceManager &SM) : SM(SM) {}
  void visitUserCode(ASTContext &Ctx) {
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (!utils::isInLibTorchHeader(D->getLocation(), SM))
        this->TraverseDecl(D);
  }
  bool shouldVisitTemplateInstantiations() const { return false; }

protected:
  const SourceManager &SM;
};

/// The uses of some fields and functions.
class UseCollector : public UserCodeVisitor<UseCollector> {
public:
  using UserCodeVisitor::UserCodeVisitor;
  llvm::SmallPtrSet<const FieldDecl *, 8> Fields;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Functions;
  llvm::DenseMap<const FieldDecl *, std::vector<const MemberExpr *>> FieldUses;
  llvm::DenseMap<const FunctionDecl *, std::vector<const Expr *>> FunctionUses;

  bool VisitMemberExpr(MemberExpr *ME) {
    if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      if (Fields.count(FD))
        FieldUses[FD].push_back(ME);
    if (const auto *FD = dyn_cast<FunctionDecl>(ME->getMemberDecl()))
      if (Functions.count(FD->getCanonicalDecl()))
        FunctionUses[FD->getCanonicalDecl()].push_back(ME);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
      if (Functions.count(FD->getCanonicalDecl()))
        FunctionUses[FD->getCanonicalDecl()].push_back(DRE);
    return true;
  }
};

struct Candidate {
  const Expr *Source = nullptr; // evaluates to the convolution
  BiasSite Site;
  BatchNormUse BatchNorm;
  /// The member, for a convolution built by a module's constructor from
  /// one of its parameters.
  std::string Member;
  /// The convolution's type, where Source is the user's module around it
  /// (its constructor in another file).
  std::string Conv;

  /// Where the convolution is built, which is where it is reported.
  const Expr *reportAt() const { return Site.Built ? Site.Built : Source; }
};

/// A module of the user's class that a BatchNorm follows.
struct ModuleEntry {
  const Expr *Module;
  BatchNormUse BatchNorm;
};

/// What the check gathers over a translation unit.
struct TUState {
  ASTContext *Ctx = nullptr;
  const SourceManager *SM = nullptr;
  std::vector<Candidate> Candidates;
  std::vector<ModuleEntry> UserModules;
  llvm::SetVector<const CXXRecordDecl *> ClassesWithConvs;
  /// Classes of the user's with a member of another module class of the
  /// user's (whose constructor may be in another file).
  llvm::SetVector<const CXXRecordDecl *> ClassesWithModules;
  SourceLocation CheckpointLoad;
  std::string CheckpointLoader;
  /// The project index, where there is one: how the constructors of other
  /// files build the convolution their module's forward() returns.
  const utils::ProjectIndex *Index = nullptr;
};

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

/// An entry of a Sequential's constructor: the module, with the name of the
/// `{"name", module}` form.
struct Entry {
  const Expr *Module;
  std::string Name;
};

std::vector<Entry> sequentialEntries(const CXXConstructExpr *CE);

/// The BatchNorm that the statement after \p Push, a push_back of a
/// convolution, pushes onto the same Sequential, unconditionally or under a
/// flag that may hold.
std::optional<BatchNormUse> pushedBatchNorm(const CXXMemberCallExpr *Push,
                                            ASTContext &Ctx);

/// \p Module, followed by \p BN: a convolution, or a module of the user's
/// that may return one's output.
void addCandidate(TUState &TU, BiasAnalyzer &Analyzer, const Expr *Module,
                  BatchNormUse BN);

//===----------------------------------------------------------------------===//
// Members and forward()
//===----------------------------------------------------------------------===//

/// Convolution members of the user's classes that feed a BatchNorm.
void collectMemberCandidates(TUState &S, BiasAnalyzer &Analyzer);

/// Members of a module class of the user's whose constructor and forward()
/// are in another file, and which feed a BatchNorm: what the project index
/// says of that constructor decides.
void collectIndexedMembers(TUState &S, BiasAnalyzer &Analyzer);

/// A member's type is a module class of the user's.
bool isUserModuleField(const FieldDecl *F);

/// User modules whose forward returns a convolution's output, followed by a
/// BatchNorm: `Sequential(ConvBlock(3, 64), BatchNorm2d(64))`, reported
/// where the construction turns the bias on through a parameter.
void bindUserModules(TUState &S, BiasAnalyzer &Analyzer);

/// What the project index records of a module class whose forward()
/// returns one of its convolution members' output: per constructor of this
/// translation unit that builds the member, the bias it gives it (on, or
/// from a parameter).
struct ForwardedConvBias {
  const CXXConstructorDecl *Ctor = nullptr;
  std::string Member, Conv;
  /// The parameter that sets the bias, or null: on.
  const ParmVarDecl *Param = nullptr;
  /// Where the bias is set (the options or the construction).
  SourceLocation Where;
};

std::vector<ForwardedConvBias>
forwardedConvBiases(const CXXRecordDecl *RD, ASTContext &Ctx,
                    const SourceManager &SM);

/// One candidate per construction, in source order. A BatchNorm under a
/// flag next to a bias from a parameter is left alone: the two may be tied
/// (`Block(c, /*use_bn=*/false)` building the conv with `.bias(!use_bn)`).
std::vector<Candidate> uniqueCandidates(TUState &S);

} // namespace clang::tidy::torch::convbias

#endif // LIBTORCH_TIDY_CHECKS_CONVBIASMODULEANALYSIS_H
