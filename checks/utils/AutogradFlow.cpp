//===--- AutogradFlow.cpp - libtorch-tidy ---------------------------------===//

#include "utils/AutogradFlow.h"
#include "utils/DeviceAnalysis.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang-tidy/utils/DeclRefExprUtils.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::torch::utils {
namespace {

/// What a use of the value does.
enum class Use {
  FlowsOn,  // a new value computed from it: its uses decide
  HostRead, // read on the host without a graph
  Escapes,  // may reach autograd, or cannot be followed
};

/// A tensor method the host reads through, or one that ends the graph.
bool isHostReadMethod(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("item", "sizes", "size", "dim", "numel", "scalar_type", "dtype",
             true)
      .Cases("device", "options", "defined", "is_cuda", "is_contiguous", true)
      .Cases("data_ptr", "const_data_ptr", "accessor", "detach", "print", true)
      .Cases("equal", "allclose", "is_nonzero", "toString", "tolist", true)
      .Default(false);
}

/// An op whose result holds integers or booleans, which autograd never
/// records: the graph ends there (`multinomial(probs, 1)`, `argmax(1)`).
bool producesIntegers(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("argmax", "argmin", "argsort", "multinomial", "nonzero", true)
      .Cases("eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", true)
      .Cases("isfinite", "logical_not", "logical_and", "logical_or", true)
      .Default(false);
}

/// A tensor method that hands the graph to autograd.
/// `t.sizes()`, `t.size(d)`, `t.numel()`, `t.dim()`: what a read of the
/// shape alone looks like, the method's member expression.
bool isShapeRead(const Stmt *Parent) {
  const auto *ME = dyn_cast<MemberExpr>(Parent);
  const auto *M = ME ? dyn_cast<CXXMethodDecl>(ME->getMemberDecl()) : nullptr;
  return M && M->getIdentifier() &&
         llvm::is_contained({"sizes", "size", "numel", "dim"}, M->getName());
}

bool entersAutograd(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("backward", "register_hook", "retain_grad", "requires_grad_",
             "set_requires_grad", true)
      .Default(false);
}

bool isOstream(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() &&
         (RD->getName() == "basic_ostream" || RD->getName() == "ostream");
}

/// A type the value keeps its graph in: a tensor, an IValue, a container or
/// tuple of them.
bool mayHoldGraph(QualType T) {
  T = T.getNonReferenceType();
  if (T->isDependentType() || isTensorType(T))
    return true;
  const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
  return RD && !T->isVoidType();
}

/// The one statement \p S is a part of, or null.
const Stmt *parentStmt(const Stmt &S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(S);
  return Parents.size() == 1 ? Parents[0].get<Stmt>() : nullptr;
}

/// \p Value (a call's result) is written to an output stream as it is.
bool isPrinted(const Stmt *Value, ASTContext &Ctx) {
  const Stmt *Cur = Value;
  for (unsigned Step = 0; Cur && Step < 8; ++Step) {
    const Stmt *Parent = parentStmt(*Cur, Ctx);
    if (isa_and_nonnull<ImplicitCastExpr, MaterializeTemporaryExpr,
                        CXXBindTemporaryExpr, ExprWithCleanups,
                        CXXConstructExpr>(Parent)) {
      Cur = Parent;
      continue;
    }
    const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
    return OC && OC->getOperator() == OO_LessLess && OC->getNumArgs() == 2 &&
           OC->getArg(1) == Cur && isOstream(OC->getArg(0)->getType());
  }
  return false;
}

class Flow {
public:
  explicit Flow(ASTContext &Ctx) : Ctx(Ctx) {}

  /// Whether all uses of \p E are host reads.
  bool onlyHost(const Expr *E, unsigned Depth);
  bool SawRead = false;
  /// A host read of the values, not only of the shape.
  bool SawValueRead = false;
  /// A shape read that is printed: what a demonstration shows, not a
  /// probe's size that builds something.
  bool SawPrintedShape = false;
  /// A detach(): the value may go on as a constant (a DQN's target).
  bool SawDetach = false;
  /// Where the walk from the value itself ended (HostReadFacts::Reach).
  const Expr *Reach = nullptr;

private:
  Use useIn(const Stmt *Parent, const Stmt *Cur);
  Use useAsObject(const MemberExpr *ME, const Expr *Call);
  Use useInOperator(const CXXOperatorCallExpr *OC, const Stmt *Cur);
  Use useAsArgument(const CallExpr *CE);
  bool variableOnlyHost(const VarDecl *VD, unsigned Depth);

  ASTContext &Ctx;
  llvm::SmallPtrSet<const VarDecl *, 8> Seen;
};

bool Flow::onlyHost(const Expr *E, unsigned Depth) {
  const Stmt *Cur = E;
  for (unsigned Step = 0; Step < 32; ++Step) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return false;
    if (Depth == 0)
      Reach = dyn_cast<Expr>(Cur);
    if (const auto *VD = Parents[0].get<VarDecl>())
      return Depth < 4 && variableOnlyHost(VD, Depth + 1);
    const Stmt *Parent = Parents[0].get<Stmt>();
    if (!Parent || isa<CompoundStmt>(Parent))
      return false; // not a statement's part, or a value thrown away
    switch (useIn(Parent, Cur)) {
    case Use::HostRead:
      SawRead = true;
      if (!isShapeRead(Parent))
        SawValueRead = true;
      else
        SawPrintedShape |= isPrinted(parentStmt(*Parent, Ctx), Ctx);
      return true;
    case Use::Escapes:
      return false;
    case Use::FlowsOn:
      break;
    }
    // `local = value`: the variable's uses decide.
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Parent);
        OC && OC->getOperator() == OO_Equal && OC->getNumArgs() == 2) {
      const auto *Ref = dyn_cast<DeclRefExpr>(OC->getArg(0)->IgnoreParens());
      const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
      return VD && Depth < 4 && variableOnlyHost(VD, Depth + 1);
    }
    Cur = Parent;
  }
  return false;
}

bool Flow::variableOnlyHost(const VarDecl *VD, unsigned Depth) {
  if (!VD->isLocalVarDecl() || VD->isStaticLocal() ||
      VD->getType()->isReferenceType() || isa<DecompositionDecl>(VD))
    return false;
  if (!Seen.insert(VD).second)
    return true; // its uses are being followed already
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return false;
  for (const DeclRefExpr *Ref :
       tidy::utils::decl_ref_expr::allDeclRefExprs(*VD, *Fn->getBody(), Ctx)) {
    // The left side of `local = other` gives it a new value: not a use.
    const auto *Assign =
        dyn_cast_or_null<CXXOperatorCallExpr>(parentStmt(*Ref, Ctx));
    if (Assign && Assign->getOperator() == OO_Equal && Assign->getArg(0) == Ref)
      continue;
    if (!onlyHost(Ref, Depth))
      return false;
  }
  return true;
}

Use Flow::useIn(const Stmt *Parent, const Stmt *Cur) {
  if (isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
          CXXBindTemporaryExpr, ExprWithCleanups, CXXFunctionalCastExpr>(
          Parent))
    return Use::FlowsOn;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(Parent))
    return CE->getNumArgs() == 1 && isTensorType(CE->getType())
               ? Use::FlowsOn
               : Use::Escapes;
  if (const auto *ME = dyn_cast<MemberExpr>(Parent)) {
    const auto *Call =
        dyn_cast_or_null<CXXMemberCallExpr>(parentStmt(*ME, Ctx));
    return Call ? useAsObject(ME, Call) : Use::Escapes;
  }
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Parent))
    return useInOperator(OC, Cur);
  if (const auto *CE = dyn_cast<CallExpr>(Parent))
    return CE->getCallee() == Cur ? Use::FlowsOn : useAsArgument(CE);
  if (const auto *BO = dyn_cast<BinaryOperator>(Parent))
    return BO->isComparisonOp() || BO->isLogicalOp() ? Use::HostRead
                                                     : Use::Escapes;
  if (isa<IfStmt, WhileStmt, ConditionalOperator>(Parent))
    return Use::HostRead;
  return Use::Escapes; // returned, thrown, captured, stored elsewhere
}

Use Flow::useAsObject(const MemberExpr *ME, const Expr *Call) {
  const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl());
  if (!M || !M->getIdentifier())
    return Use::Escapes;
  llvm::StringRef Name = M->getName();
  const CXXRecordDecl *Class = M->getParent();
  bool IsValue = Class->getIdentifier() && Class->getName() == "IValue";
  if (!isTensorRecord(Class) && !IsValue)
    return Use::Escapes;
  if (entersAutograd(Name))
    return Use::Escapes;
  if (isHostReadMethod(Name) || producesIntegers(Name)) {
    SawDetach |= Name == "detach";
    return Use::HostRead;
  }
  // A view, an arithmetic method, toTensor(): the result carries the graph.
  return mayHoldGraph(Call->getType()) ? Use::FlowsOn : Use::HostRead;
}

Use Flow::useInOperator(const CXXOperatorCallExpr *OC, const Stmt *Cur) {
  switch (OC->getOperator()) {
  case OO_LessLess:
    return OC->getNumArgs() == 2 && OC->getArg(1) == Cur &&
                   isOstream(OC->getArg(0)->getType())
               ? Use::HostRead
               : Use::Escapes;
  case OO_Subscript:
    return OC->getArg(0) == Cur ? Use::FlowsOn : Use::Escapes;
  case OO_Equal:
    // The right side of an assignment to a local (followed by the caller);
    // the left side or any other target escapes.
    return OC->getNumArgs() == 2 && OC->getArg(1) == Cur ? Use::FlowsOn
                                                          : Use::Escapes;
  default:
    break;
  }
  if (OC->isComparisonOp())
    return Use::HostRead;
  return isTensorType(OC->getType()) ? Use::FlowsOn : Use::Escapes;
}

Use Flow::useAsArgument(const CallExpr *CE) {
  const FunctionDecl *FD = CE->getDirectCallee();
  // std::get<0>(q.max(1)): one tensor of the tuple, with its graph.
  if (FD && FD->isInStdNamespace() && FD->getIdentifier() &&
      FD->getName() == "get" && CE->getNumArgs() == 1)
    return mayHoldGraph(CE->getType()) ? Use::FlowsOn : Use::HostRead;
  if (!FD || !isInTorchNamespace(FD))
    return Use::Escapes; // the project's code may call backward() on it
  std::string Qualified = FD->getQualifiedNameAsString();
  if (llvm::StringRef(Qualified).contains("autograd") ||
      llvm::StringRef(Qualified).contains("optim"))
    return Use::Escapes;
  if (CE->getType()->isVoidType() || !mayHoldGraph(CE->getType()))
    return Use::HostRead; // torch::save(t, path), torch::allclose(a, b)
  if (FD->getIdentifier() && producesIntegers(FD->getName()))
    return Use::HostRead; // torch::multinomial(probs, 1)
  return Use::FlowsOn;
}

} // namespace

bool onlyHostReads(const Expr *E, ASTContext &Ctx, HostReadFacts *Facts) {
  Flow F(Ctx);
  bool Only = F.onlyHost(E, 0) && F.SawRead;
  if (Facts && Only) {
    Facts->Detached = F.SawDetach;
    Facts->Reach = F.Reach;
  }
  return Only;
}

bool onlyShapeReads(const Expr *E, ASTContext &Ctx) {
  Flow F(Ctx);
  return F.onlyHost(E, 0) && F.SawRead && !F.SawValueRead &&
         !F.SawPrintedShape;
}

} // namespace clang::tidy::torch::utils
