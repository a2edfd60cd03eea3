//===--- PointwiseFormula.cpp - libtorch-tidy -----------------------------===//

#include "PointwiseFormula.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchNames.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// Products with more terms than this are left as they are written.
constexpr size_t MaxTerms = 16;
constexpr unsigned MaxDepth = 24;

bool near(double A, double B, double Rel = 1e-6) {
  return std::fabs(A - B) <= Rel * std::max(std::fabs(A), std::fabs(B));
}

void normalize(Polynomial &P) {
  for (Monomial &M : P)
    llvm::sort(M.Atoms);
  Polynomial Out;
  for (const Monomial &M : P) {
    auto It = llvm::find_if(Out, [&](const Monomial &O) {
      return O.Atoms == M.Atoms;
    });
    if (It == Out.end())
      Out.push_back(M);
    else
      It->Coef += M.Coef;
  }
  llvm::erase_if(Out,
                 [](const Monomial &M) { return std::fabs(M.Coef) < 1e-12; });
  P = std::move(Out);
}

Polynomial constantPoly(double C) {
  Polynomial P;
  P.push_back({C, {}});
  normalize(P);
  return P;
}

void scale(Polynomial &P, double C) {
  for (Monomial &M : P)
    M.Coef *= C;
  normalize(P);
}

Polynomial sum(const Polynomial &A, const Polynomial &B, double Sign) {
  Polynomial P = A;
  for (Monomial M : B) {
    M.Coef *= Sign;
    P.push_back(M);
  }
  normalize(P);
  return P;
}

Polynomial product(const Polynomial &A, const Polynomial &B) {
  Polynomial P;
  for (const Monomial &X : A)
    for (const Monomial &Y : B) {
      Monomial M{X.Coef * Y.Coef, X.Atoms};
      M.Atoms.append(Y.Atoms.begin(), Y.Atoms.end());
      P.push_back(M);
    }
  normalize(P);
  return P;
}

/// The constant of a polynomial without atoms (0 for the empty one).
std::optional<double> constantOf(const Polynomial &P) {
  if (P.empty())
    return 0.0;
  if (P.size() == 1 && P[0].Atoms.empty())
    return P[0].Coef;
  return std::nullopt;
}

bool samePoly(const Polynomial &A, const Polynomial &B) {
  if (A.size() != B.size())
    return false;
  return llvm::all_of(A, [&](const Monomial &M) {
    return llvm::any_of(B, [&](const Monomial &N) {
      return N.Atoms == M.Atoms && near(N.Coef, M.Coef);
    });
  });
}

bool sameExpr(const Expr *A, const Expr *B, const ASTContext &Ctx) {
  if (!A || !B)
    return A == B;
  A = utils::ignoreWrappers(A);
  B = utils::ignoreWrappers(B);
  llvm::FoldingSetNodeID IA, IB;
  A->Profile(IA, Ctx, /*Canonical=*/true);
  B->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

bool isTensorExpr(const Expr *E) {
  return E && utils::isTensorType(E->getType());
}

PointwiseFn fnNamed(llvm::StringRef Name) {
  return llvm::StringSwitch<PointwiseFn>(Name)
      .Case("sigmoid", PointwiseFn::Sigmoid)
      .Case("tanh", PointwiseFn::Tanh)
      .Case("erf", PointwiseFn::Erf)
      .Case("exp", PointwiseFn::Exp)
      .Case("log", PointwiseFn::Log)
      .Case("log1p", PointwiseFn::Log1p)
      .Case("sqrt", PointwiseFn::Sqrt)
      .Case("softplus", PointwiseFn::Softplus)
      .Case("softmax", PointwiseFn::Softmax)
      .Case("sum", PointwiseFn::Sum)
      .Case("logsumexp", PointwiseFn::LogSumExp)
      .Default(PointwiseFn::None);
}

/// A call of LibTorch's \p Name: the tensor operand first, then the
/// arguments (explicit and defaulted), as functions and methods have them.
struct TorchCall {
  llvm::StringRef Name;
  llvm::SmallVector<const Expr *, 4> Args;
  const CallExpr *Function = nullptr; ///< null for a method
};

std::optional<TorchCall> torchCall(const Expr *E) {
  E = utils::ignoreWrappers(E);
  TorchCall C;
  if (const CXXMethodDecl *M = utils::tensorMethod(E)) {
    const auto *MC = cast<CXXMemberCallExpr>(E);
    C.Name = M->getName();
    C.Args.push_back(MC->getImplicitObjectArgument());
    C.Args.append(MC->arg_begin(), MC->arg_end());
    return C;
  }
  const auto *CE = dyn_cast<CallExpr>(E);
  if (!CE || isa<CXXOperatorCallExpr>(CE) || isa<CXXMemberCallExpr>(CE))
    return std::nullopt;
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() || !utils::isInTorchNamespace(FD))
    return std::nullopt;
  C.Name = FD->getName();
  C.Args.append(CE->arg_begin(), CE->arg_end());
  C.Function = CE;
  return C;
}

bool isDefaulted(const Expr *E) { return isa<CXXDefaultArgExpr>(E); }

/// The dimension argument: an integer, or a braced list of one.
const Expr *dimension(const Expr *E) {
  E = utils::ignoreWrappers(E);
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    E = utils::ignoreWrappers(List->getSubExpr());
  if (const auto *Init = dyn_cast<InitListExpr>(E)) {
    if (Init->getNumInits() != 1)
      return nullptr;
    E = utils::ignoreWrappers(Init->getInit(0));
  }
  return E->getType()->isIntegralOrEnumerationType() ? E : nullptr;
}

std::optional<bool> boolValue(const Expr *E, const ASTContext &Ctx) {
  if (isDefaulted(E))
    return false;
  bool V;
  if (E->isValueDependent() || !E->EvaluateAsBooleanCondition(V, Ctx))
    return std::nullopt;
  return V;
}

/// Fills the dimension and keepdim of a softmax, sum or logsumexp call;
/// false when they are not the plain forms the fused ops take.
bool readReduction(const TorchCall &C, PointwiseFn Fn, PointwiseAtom &A,
                   const ASTContext &Ctx) {
  // sum() of every element: no dimension (the rest, a dtype, defaulted).
  if (Fn == PointwiseFn::Sum &&
      llvm::all_of(llvm::drop_begin(C.Args), isDefaulted))
    return true;
  if (C.Args.size() < 2 || isDefaulted(C.Args[1]))
    return false;
  A.Dim = dimension(C.Args[1]);
  if (!A.Dim)
    return false;
  if (Fn == PointwiseFn::Softmax)
    return C.Args.size() == 2 || isDefaulted(C.Args[2]);
  if (C.Args.size() > 3 && !isDefaulted(C.Args[3]))
    return false; // sum's dtype
  std::optional<bool> Keep =
      C.Args.size() > 2 ? boolValue(C.Args[2], Ctx) : std::optional(false);
  if (!Keep)
    return false;
  A.KeepDim = *Keep;
  return true;
}

/// The operands of `L op R` (operators, the methods and functions mul, div,
/// add and sub without alpha), and `-R` as `0 - R`.
struct Arithmetic {
  char Op = 0;
  const Expr *L = nullptr, *R = nullptr;
};

char operatorChar(OverloadedOperatorKind K) {
  switch (K) {
  case OO_Plus:
    return '+';
  case OO_Minus:
    return '-';
  case OO_Star:
    return '*';
  case OO_Slash:
    return '/';
  default:
    return 0;
  }
}

char opcodeChar(BinaryOperatorKind K) {
  switch (K) {
  case BO_Add:
    return '+';
  case BO_Sub:
    return '-';
  case BO_Mul:
    return '*';
  case BO_Div:
    return '/';
  default:
    return 0;
  }
}

std::optional<Arithmetic> arithmeticOperator(const Expr *E) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    char C = operatorChar(Op->getOperator());
    if (!C || Op->getNumArgs() == 0 || Op->getNumArgs() > 2)
      return std::nullopt;
    if (Op->getNumArgs() == 1)
      return C == '-' ? std::optional(Arithmetic{'-', nullptr, Op->getArg(0)})
                      : std::nullopt;
    return Arithmetic{C, Op->getArg(0), Op->getArg(1)};
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (char C = opcodeChar(B->getOpcode()))
      return Arithmetic{C, B->getLHS(), B->getRHS()};
    return std::nullopt;
  }
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_Minus)
    return Arithmetic{'-', nullptr, U->getSubExpr()};
  return std::nullopt;
}

std::optional<Arithmetic> arithmetic(const Expr *E) {
  E = utils::ignoreWrappers(E);
  if (auto A = arithmeticOperator(E))
    return A;
  std::optional<TorchCall> C = torchCall(E);
  if (!C || C->Args.size() < 2 ||
      !llvm::all_of(llvm::drop_begin(C->Args, 2), isDefaulted))
    return std::nullopt;
  char Op = llvm::StringSwitch<char>(C->Name)
                .Case("mul", '*')
                .Case("div", '/')
                .Case("add", '+')
                .Case("sub", '-')
                .Default(0);
  if (!Op)
    return std::nullopt;
  return Arithmetic{Op, C->Args[0], C->Args[1]};
}

std::optional<double> constantCall(const CallExpr *CE, const ASTContext &Ctx,
                                   unsigned Depth) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier() || utils::isInTorchNamespace(FD))
    return std::nullopt;
  llvm::SmallVector<double, 2> Args;
  for (const Expr *A : CE->arguments()) {
    std::optional<double> V = constantValue(A, Ctx, Depth + 1);
    if (!V)
      return std::nullopt;
    Args.push_back(*V);
  }
  llvm::StringRef Name = FD->getName();
  if (Args.size() == 1 && (Name == "sqrt" || Name == "sqrtf"))
    return std::sqrt(Args[0]);
  if (Args.size() == 1 && (Name == "exp" || Name == "expf"))
    return std::exp(Args[0]);
  if (Args.size() == 2 && (Name == "pow" || Name == "powf"))
    return std::pow(Args[0], Args[1]);
  return std::nullopt;
}

std::optional<double> constantArithmetic(const Expr *E, const ASTContext &Ctx,
                                         unsigned Depth) {
  std::optional<Arithmetic> A = arithmeticOperator(E);
  if (!A || isTensorExpr(E))
    return std::nullopt;
  std::optional<double> L = A->L ? constantValue(A->L, Ctx, Depth + 1) : 0.0;
  std::optional<double> R = constantValue(A->R, Ctx, Depth + 1);
  if (!L || !R)
    return std::nullopt;
  switch (A->Op) {
  case '+':
    return *L + *R;
  case '-':
    return *L - *R;
  case '*':
    return *L * *R;
  default:
    return *R == 0 ? std::nullopt : std::optional(*L / *R);
  }
}

bool isPureTensorMethod(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("view", "reshape", "slice", "narrow", "select", "transpose", true)
      .Cases("permute", "unsqueeze", "squeeze", "flatten", "contiguous", true)
      .Cases("t", "index", "detach", "data", "expand", "mul", "div", true)
      .Cases("add", "sub", "sigmoid", "tanh", "exp", "log", true)
      .Cases("sqrt", "erf", "pow", "neg", "abs", "clone", true)
      .Default(false);
}

template <typename Range> bool allRepeatable(Range &&Args, unsigned Depth) {
  return llvm::all_of(Args, [&](const Expr *A) {
    return isDefaulted(A) || isRepeatableOperand(A, Depth + 1);
  });
}

bool isRepeatableCall(const Expr *E, unsigned Depth) {
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    OverloadedOperatorKind K = Op->getOperator();
    bool Pure = K == OO_Plus || K == OO_Minus || K == OO_Star ||
                K == OO_Slash || K == OO_Subscript || K == OO_Arrow;
    return Pure && allRepeatable(Op->arguments(), Depth);
  }
  if (std::optional<TorchCall> C = torchCall(E))
    return (isPureTensorMethod(C->Name) ||
            fnNamed(C->Name) != PointwiseFn::None) &&
           allRepeatable(C->Args, Depth);
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E))
    return allRepeatable(CE->arguments(), Depth);
  // Scalar math (std::sqrt(2.0 / M_PI)) of repeatable operands.
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    return FD && FD->getIdentifier() && E->getType()->isArithmeticType() &&
           llvm::is_contained({"sqrt", "sqrtf", "exp", "expf", "pow", "powf",
                               "log", "logf", "tanh", "erf"},
                              FD->getName()) &&
           allRepeatable(CE->arguments(), Depth);
  }
  return false;
}

/// The statement of a block that holds \p S, through the declarations
/// whose initializer \p S is in, and that block.
std::pair<const Stmt *, const CompoundStmt *> blockStatement(const Stmt *S,
                                                              ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Depth = 0; Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return {nullptr, nullptr};
    if (const auto *Block = Parents[0].get<CompoundStmt>())
      return {Cur.get<Stmt>(), Block};
    if (!Parents[0].get<Stmt>() && !Parents[0].get<VarDecl>())
      return {nullptr, nullptr};
    Cur = Parents[0];
  }
  return {nullptr, nullptr};
}

} // namespace

std::optional<double> constantValue(const Expr *E, const ASTContext &Ctx,
                                    unsigned Depth) {
  E = utils::ignoreWrappers(E);
  if (!E || Depth > 8 || E->isValueDependent() || E->isTypeDependent() ||
      !E->getType()->isArithmeticType())
    return std::nullopt;
  if (const auto *I = dyn_cast<IntegerLiteral>(E))
    return static_cast<double>(I->getValue().getSExtValue());
  if (const auto *F = dyn_cast<FloatingLiteral>(E))
    return F->getValueAsApproximateDouble();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
    if (VD && VD->getType().isConstQualified() && VD->getAnyInitializer())
      return constantValue(VD->getAnyInitializer(), Ctx, Depth + 1);
    return std::nullopt;
  }
  if (const auto *CE = dyn_cast<CallExpr>(E))
    return constantCall(CE, Ctx, Depth);
  if (auto V = constantArithmetic(E, Ctx, Depth))
    return V;
  Expr::EvalResult R;
  if (!E->EvaluateAsRValue(R, Ctx))
    return std::nullopt;
  if (R.Val.isInt())
    return static_cast<double>(R.Val.getInt().getSExtValue());
  if (R.Val.isFloat())
    return R.Val.getFloat().convertToDouble();
  return std::nullopt;
}

bool isRepeatableOperand(const Expr *E, unsigned Depth) {
  E = utils::ignoreWrappers(E);
  // Deep enough for a formula over an indexed operand
  // (`x.index({Slice(0, 4)})` is five levels by itself).
  if (!E || Depth > 16)
    return false;
  if (isa<DeclRefExpr, IntegerLiteral, FloatingLiteral, CXXBoolLiteralExpr,
          CXXThisExpr, CXXDefaultArgExpr>(E))
    return true;
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return isa<FieldDecl>(ME->getMemberDecl()) &&
           isRepeatableOperand(ME->getBase(), Depth + 1);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return !B->isAssignmentOp() && B->getOpcode() != BO_Comma &&
           isRepeatableOperand(B->getLHS(), Depth + 1) &&
           isRepeatableOperand(B->getRHS(), Depth + 1);
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return !U->isIncrementDecrementOp() &&
           isRepeatableOperand(U->getSubExpr(), Depth + 1);
  if (const auto *List = dyn_cast<InitListExpr>(E))
    return allRepeatable(List->inits(), Depth);
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
    return isRepeatableOperand(List->getSubExpr(), Depth + 1);
  return isRepeatableCall(E, Depth);
}

void PointwiseFormulas::noteKernel(const Expr *E) {
  if (isTensorExpr(E))
    Kernels.insert(E);
}

/// A 0-dim tensor of a constant, `torch::tensor(2.0 / M_PI)`, and the
/// sqrt, exp or pow of such: a constant written as a tensor, which
/// broadcasts as the number does.
std::optional<double> scalarTensorConstant(const Expr *E, const ASTContext &Ctx,
                                           unsigned Depth = 0) {
  std::optional<TorchCall> C = torchCall(E);
  if (!C || !C->Function || C->Args.empty() || Depth > 4)
    return std::nullopt;
  auto Value = [&](const Expr *A) -> std::optional<double> {
    A = utils::ignoreWrappers(A);
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(A);
        Construct && Construct->getNumArgs() == 1)
      A = utils::ignoreWrappers(Construct->getArg(0));
    if (std::optional<double> V = constantValue(A, Ctx))
      return V;
    return scalarTensorConstant(A, Ctx, Depth + 1);
  };
  if (C->Name == "tensor" || C->Name == "scalar_tensor")
    return Value(C->Args[0]);
  std::optional<double> X = Value(C->Args[0]);
  if (!X)
    return std::nullopt;
  if (C->Args.size() == 1 && C->Name == "sqrt")
    return std::sqrt(*X);
  if (C->Args.size() == 1 && C->Name == "exp")
    return std::exp(*X);
  if (C->Args.size() == 2 && C->Name == "pow")
    if (std::optional<double> Y = Value(C->Args[1]))
      return std::pow(*X, *Y);
  return std::nullopt;
}

void PointwiseFormulas::build(const Expr *E, Polynomial &Out,
                              unsigned Depth) {
  E = utils::ignoreWrappers(E);
  if (std::optional<double> C = constantValue(E, Ctx)) {
    Out = constantPoly(*C);
    return;
  }
  if (std::optional<double> C = scalarTensorConstant(E, Ctx)) {
    noteKernel(E);
    Out = constantPoly(*C);
    return;
  }
  // A part that is a formula of its own is one atom (see isFormula).
  bool Nested = Depth > 0 && Depth < MaxDepth && isFormula(E);
  if (!Nested && Depth < MaxDepth &&
      (buildArithmetic(E, Out, Depth) || buildPower(E, Out, Depth)))
    return;
  const VarDecl *VD =
      ReadThrough && Depth < MaxDepth ? readableLocal(E) : nullptr;
  // A local that holds a formula stays, with its own fix.
  if (VD && !isFormula(utils::ignoreWrappers(VD->getInit()))) {
    if (!llvm::is_contained(Consumed, VD))
      Consumed.push_back(VD);
    build(VD->getInit(), Out, Depth + 1);
    return;
  }
  Out.clear();
  Out.push_back({1, {atomOf(E, Depth)}});
}

bool PointwiseFormulas::buildArithmetic(const Expr *E, Polynomial &Out,
                                        unsigned Depth) {
  std::optional<Arithmetic> A = arithmetic(E);
  if (!A)
    return false;
  if (A->Op == '/')
    return buildQuotient(E, A->L, A->R, Out, Depth);
  Polynomial L, R;
  if (A->L)
    build(A->L, L, Depth + 1);
  build(A->R, R, Depth + 1);
  if (A->Op == '*') {
    if (L.size() * R.size() > MaxTerms)
      return false;
    Out = product(L, R);
  } else {
    Out = sum(L, R, A->Op == '-' ? -1 : 1);
  }
  noteKernel(E);
  return true;
}

bool PointwiseFormulas::buildQuotient(const Expr *E, const Expr *Num,
                                      const Expr *Den, Polynomial &Out,
                                      unsigned Depth) {
  std::optional<double> C = constantValue(Den, Ctx);
  if (!C || *C == 0)
    return false; // a quotient of tensors is an atom
  build(Num, Out, Depth + 1);
  scale(Out, 1 / *C);
  noteKernel(E);
  return true;
}

bool PointwiseFormulas::buildPower(const Expr *E, Polynomial &Out,
                                   unsigned Depth) {
  std::optional<TorchCall> C = torchCall(E);
  if (!C || C->Args.empty())
    return false;
  std::optional<double> N;
  if (C->Name == "square" && C->Args.size() == 1)
    N = 2;
  else if (C->Name == "pow" && C->Args.size() == 2 &&
           isTensorExpr(C->Args[0]))
    N = constantValue(C->Args[1], Ctx);
  if (!N || *N < 1 || *N > 4 || *N != std::floor(*N))
    return false;
  Polynomial Base;
  build(C->Args[0], Base, Depth + 1);
  Out = Base;
  for (int I = 1; I < static_cast<int>(*N); ++I) {
    if (Out.size() * Base.size() > MaxTerms)
      return false;
    Out = product(Out, Base);
  }
  noteKernel(E);
  return true;
}

unsigned PointwiseFormulas::atomOf(const Expr *E, unsigned Depth) {
  PointwiseAtom A;
  A.E = E;
  std::optional<TorchCall> C = torchCall(E);
  PointwiseFn Fn = C ? fnNamed(C->Name) : PointwiseFn::None;
  bool Reduction = Fn == PointwiseFn::Softmax || Fn == PointwiseFn::Sum ||
                   Fn == PointwiseFn::LogSumExp;
  // Pointwise functions with their defaults only (softplus's beta and
  // threshold).
  auto OnlyDefaults = [&] {
    return llvm::all_of(llvm::drop_begin(C->Args), isDefaulted);
  };
  bool Fits = Fn != PointwiseFn::None && isTensorExpr(C->Args[0]) &&
              (Reduction ? readReduction(*C, Fn, A, Ctx) : OnlyDefaults());
  if (!Fits)
    return intern(A);
  A.Fn = Fn;
  A.Arg = C->Args[0];
  if (Qualifier.empty() && C->Function)
    if (const auto *Ref = dyn_cast<DeclRefExpr>(
            C->Function->getCallee()->IgnoreParenImpCasts());
        Ref && Ref->getQualifierLoc())
      Qualifier = Lexer::getSourceText(
                      CharSourceRange::getCharRange(
                          Ref->getQualifierLoc().getSourceRange().getBegin(),
                          Ref->getNameInfo().getBeginLoc()),
                      Ctx.getSourceManager(), Ctx.getLangOpts())
                      .str();
  noteKernel(E);
  build(A.Arg, A.ArgForm, Depth + 1);
  return intern(A);
}

bool PointwiseFormulas::sameAtom(const PointwiseAtom &A,
                                 const PointwiseAtom &B) const {
  if (A.Fn != B.Fn)
    return false;
  if (A.Fn == PointwiseFn::None)
    return sameExpr(A.E, B.E, Ctx);
  if (!samePoly(A.ArgForm, B.ArgForm) || A.KeepDim != B.KeepDim)
    return false;
  if (!A.Dim || !B.Dim)
    return A.Dim == B.Dim;
  std::optional<double> DA = constantValue(A.Dim, Ctx),
                        DB = constantValue(B.Dim, Ctx);
  return DA && DB ? *DA == *DB : sameExpr(A.Dim, B.Dim, Ctx);
}

unsigned PointwiseFormulas::intern(PointwiseAtom A) {
  for (unsigned I = 0; I < Atoms.size(); ++I)
    if (sameAtom(Atoms[I], A))
      return I;
  Atoms.push_back(std::move(A));
  return Atoms.size() - 1;
}

/// Whether \p E is a view of \p Base: indexing, or a view method on it.
static bool isViewOf(const Expr *E, const Expr *Base) {
  // A method's object: the base of its member expression.
  if (const auto *ME = dyn_cast<MemberExpr>(Base))
    Base = ME->getBase();
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return Op->getOperator() == OO_Subscript && Op->getNumArgs() > 0 &&
           utils::ignoreWrappers(Op->getArg(0)) == utils::ignoreWrappers(Base);
  std::optional<TorchCall> C = torchCall(E);
  return C && !C->Args.empty() && !C->Function &&
         utils::ignoreWrappers(C->Args[0]) == utils::ignoreWrappers(Base) &&
         llvm::is_contained({"view", "reshape", "slice", "narrow", "select",
                             "transpose", "permute", "unsqueeze", "squeeze",
                             "flatten", "contiguous", "t", "index", "detach",
                             "expand"},
                            C->Name);
}

/// Whether the reference \p Ref only reads its value: an operand of
/// arithmetic, or of a pointwise function or method that makes a new tensor
/// (no view that could be written through later, no in-place op).
bool PointwiseFormulas::isPureRead(const DeclRefExpr *Ref) const {
  const Expr *Child = Ref;
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Child);
    const auto *P = Parents.empty() ? nullptr : Parents[0].get<Expr>();
    if (!P)
      return false;
    // Wrappers, and the member of a method call the call itself decides.
    if (utils::ignoreWrappers(P) == utils::ignoreWrappers(Child) ||
        isa<MemberExpr>(P)) {
      Child = P;
      continue;
    }
    if (arithmeticOperator(P))
      return true;
    // A view of it is read as the view is.
    if (isViewOf(P, Child)) {
      Child = P;
      continue;
    }
    std::optional<TorchCall> C = torchCall(P);
    return C && (fnNamed(C->Name) != PointwiseFn::None ||
                 llvm::is_contained({"mul", "div", "add", "sub", "pow", "neg",
                                     "abs", "clone", "square"},
                                    C->Name));
  }
  return false;
}

/// A local tensor whose initializer is a part of the formula (arithmetic or
/// one of its functions), used only inside the scope of the fix, declared
/// alone in the root's block before it, with nothing in between that may
/// change what its initializer reads (reading it is fine).
const VarDecl *PointwiseFormulas::readableLocal(const Expr *E) const {
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->isLocalVarDecl() || VD->isStaticLocal() || !VD->getInit() ||
      !utils::isTensorType(VD->getType()))
    return nullptr;
  const Expr *Init = utils::ignoreWrappers(VD->getInit());
  std::optional<TorchCall> C = torchCall(Init);
  if (!arithmetic(Init) && !(C && fnNamed(C->Name) != PointwiseFn::None))
    return nullptr;
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  auto [Statement, Block] = blockStatement(Root, Ctx);
  if (!Body || !Block)
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  auto Inside = [&](SourceLocation L, SourceRange R) {
    return !SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
           !SM.isBeforeInTranslationUnit(R.getEnd(), L);
  };
  for (const BoundNodes &N : ast_matchers::match(
           findAll(declRefExpr(to(varDecl(equalsNode(VD)))).bind("ref")), *Body,
           Ctx)) {
    SourceLocation L = N.getNodeAs<DeclRefExpr>("ref")->getBeginLoc();
    // Inside the formula, what else its fix removes, or the initializer of
    // a local read through already (a chain of locals: `e = exp(x)`,
    // `t = tanh(log1p(e))`, `x * t`).
    if (!Inside(L, Root->getSourceRange()) &&
        llvm::none_of(Scope, [&](const Expr *S) {
          return Inside(L, S->getSourceRange());
        }) &&
        llvm::none_of(Consumed, [&](const VarDecl *C) {
          return Inside(L, C->getInit()->getSourceRange());
        }))
      return nullptr;
  }
  // The declaration, then only statements that leave its inputs alone.
  llvm::SmallVector<const Decl *, 4> Inputs;
  // The local variables it reads (not the functions it calls, nor the
  // globals of their default arguments).
  for (const BoundNodes &N :
       ast_matchers::match(findAll(declRefExpr().bind("ref")), *Init, Ctx)) {
    const ValueDecl *D = N.getNodeAs<DeclRefExpr>("ref")->getDecl();
    const auto *V = dyn_cast<VarDecl>(D);
    if (isa<BindingDecl>(D) || (V && !V->hasGlobalStorage()))
      Inputs.push_back(D);
  }
  bool Seen = false;
  for (const Stmt *S : Block->body()) {
    if (S == Statement)
      return Seen ? VD : nullptr;
    if (const auto *DS = dyn_cast<DeclStmt>(S);
        DS && DS->isSingleDecl() && DS->getSingleDecl() == VD) {
      Seen = true;
      continue;
    }
    if (!Seen)
      continue;
    for (const Decl *D : Inputs)
      for (const BoundNodes &N : ast_matchers::match(
               findAll(declRefExpr(to(decl(equalsNode(D)))).bind("use")), *S,
               Ctx))
        if (!isPureRead(N.getNodeAs<DeclRefExpr>("use")))
          return nullptr;
    if (!isRepeatableOperand(Init))
      return nullptr;
  }
  return nullptr;
}

const PointwiseAtom *PointwiseFormulas::single(const Polynomial &P,
                                               double Coef) const {
  if (P.size() != 1 || P[0].Atoms.size() != 1 || !near(P[0].Coef, Coef))
    return nullptr;
  return &Atoms[P[0].Atoms[0]];
}

std::optional<FusedFormula>
PointwiseFormulas::matchGelu(const Polynomial &P) const {
  if (P.size() != 2)
    return std::nullopt;
  const Monomial &X = P[0].Atoms.size() == 1 ? P[0] : P[1];
  const Monomial &XF = P[0].Atoms.size() == 1 ? P[1] : P[0];
  if (X.Atoms.size() != 1 || XF.Atoms.size() != 2 || !near(X.Coef, 0.5) ||
      !near(XF.Coef, 0.5))
    return std::nullopt;
  unsigned A = X.Atoms[0];
  unsigned F = XF.Atoms[0] == A ? XF.Atoms[1] : XF.Atoms[0];
  if (!llvm::is_contained(XF.Atoms, A))
    return std::nullopt;
  const PointwiseAtom &Fn = Atoms[F];
  const Expr *Operand = Atoms[A].E;
  if (Fn.Fn == PointwiseFn::Erf) {
    const Polynomial &In = Fn.ArgForm; // x / sqrt(2)
    if (In.size() != 1 || In[0].Atoms.size() != 1 || In[0].Atoms[0] != A ||
        !near(In[0].Coef, 0.70710678118654752, 1e-3))
      return std::nullopt;
    return FusedFormula{"GELU", "gelu", "", Operand, nullptr, "", true};
  }
  if (Fn.Fn != PointwiseFn::Tanh || Fn.ArgForm.size() != 2)
    return std::nullopt;
  constexpr double K = 0.79788456080286536; // sqrt(2 / pi)
  Polynomial Expected;
  Expected.push_back({K, {A}});
  Expected.push_back({K * 0.044715, {A, A, A}});
  for (const Monomial &M : Fn.ArgForm)
    if (llvm::none_of(Expected, [&](const Monomial &E) {
          return E.Atoms == M.Atoms && near(E.Coef, M.Coef, 1e-3);
        }))
      return std::nullopt;
  return FusedFormula{"tanh-approximated GELU", "gelu", ", \"tanh\"", Operand,
                      nullptr, "", true};
}

std::optional<FusedFormula>
PointwiseFormulas::matchPolynomial(const Polynomial &P) const {
  // x * sigmoid(x)
  if (P.size() == 1 && P[0].Atoms.size() == 2 && near(P[0].Coef, 1)) {
    for (unsigned I = 0; I < 2; ++I) {
      const PointwiseAtom &S = Atoms[P[0].Atoms[I]];
      const PointwiseAtom &X = Atoms[P[0].Atoms[1 - I]];
      if (S.Fn == PointwiseFn::Sigmoid && single(S.ArgForm, 1) == &X)
        return FusedFormula{"SiLU", "silu", "", X.E, nullptr, "", true};
    }
    return matchMish(P);
  }
  if (P.size() != 2)
    return std::nullopt;
  if (auto G = matchGelu(P))
    return G;
  // exp(x) - 1 and x - x.logsumexp(d, true)
  for (unsigned I = 0; I < 2; ++I) {
    const Monomial &Plus = P[I], &Minus = P[1 - I];
    if (!near(Plus.Coef, 1) || !near(Minus.Coef, -1) ||
        Plus.Atoms.size() != 1)
      continue;
    const PointwiseAtom &A = Atoms[Plus.Atoms[0]];
    if (Minus.Atoms.empty() && A.Fn == PointwiseFn::Exp)
      return FusedFormula{"exp(x) - 1", "expm1", "", A.Arg, nullptr,
                          ", and accurately for small x", false};
    if (Minus.Atoms.size() != 1)
      continue;
    const PointwiseAtom &L = Atoms[Minus.Atoms[0]];
    if (L.Fn == PointwiseFn::LogSumExp && L.KeepDim &&
        single(L.ArgForm, 1) == &A)
      return FusedFormula{"log-softmax", "log_softmax", "", A.E, L.Dim,
                          ", and more accurately", true};
  }
  return std::nullopt;
}

std::optional<FusedFormula> PointwiseFormulas::matchQuotient(const Expr *Num,
                                                             const Expr *Den) {
  Polynomial N, D;
  build(Num, N, 1);
  build(Den, D, 1);
  if (std::optional<double> One = constantOf(N); One && near(*One, 1)) {
    const PointwiseAtom *Sqrt = single(D, 1);
    if (Sqrt && Sqrt->Fn == PointwiseFn::Sqrt)
      return FusedFormula{"reciprocal square root", "rsqrt", "", Sqrt->Arg,
                          nullptr, "", false};
    return std::nullopt;
  }
  const PointwiseAtom *Exp = single(N, 1);
  const PointwiseAtom *Sum = single(D, 1);
  if (!Exp || !Sum || Exp->Fn != PointwiseFn::Exp ||
      Sum->Fn != PointwiseFn::Sum || !Sum->KeepDim ||
      single(Sum->ArgForm, 1) != Exp)
    return std::nullopt;
  return FusedFormula{"softmax", "softmax", "", Exp->Arg, Sum->Dim,
                      ", without overflow for large inputs", true};
}

/// log(exp(x) / exp(x).sum(d, true)), the log of a written-out softmax.
std::optional<FusedFormula>
PointwiseFormulas::matchLogOfQuotient(const PointwiseAtom &A) {
  std::optional<Arithmetic> Q = arithmetic(A.E);
  if (A.Fn != PointwiseFn::None || !Q || Q->Op != '/')
    return std::nullopt;
  std::optional<FusedFormula> Softmax = matchQuotient(Q->L, Q->R);
  if (!Softmax || Softmax->Function != "softmax")
    return std::nullopt;
  noteKernel(A.E);
  return FusedFormula{"log-softmax", "log_softmax", "", Softmax->Operand,
                      Softmax->Dim, ", and more accurately", true};
}

/// The softmax atom of a local initialized by a softmax and never assigned
/// again, or null.
const PointwiseAtom *PointwiseFormulas::softmaxInLocal(const Expr *E) {
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(utils::ignoreWrappers(E));
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || !VD->isLocalVarDecl() || !VD->getInit() ||
      !utils::isNeverReassigned(VD, Ctx))
    return nullptr;
  Polynomial Init;
  build(VD->getInit(), Init, 1);
  const PointwiseAtom *A = single(Init, 1);
  return A && A->Fn == PointwiseFn::Softmax ? A : nullptr;
}

/// log(softmax(x, d) + eps) with a small eps: a log-softmax whose offset
/// only keeps log away from 0, which log_softmax never computes. Dropping
/// it changes the value where a probability is below the offset, so the
/// user decides: no fix-it.
std::optional<FusedFormula>
PointwiseFormulas::matchLogOfOffsetSoftmax(const Polynomial &P) {
  if (P.size() != 2)
    return std::nullopt;
  for (unsigned I = 0; I < 2; ++I) {
    const Monomial &S = P[I], &Offset = P[1 - I];
    if (!Offset.Atoms.empty() || Offset.Coef <= 0 || Offset.Coef > 1e-3 ||
        !near(S.Coef, 1) || S.Atoms.size() != 1)
      continue;
    const PointwiseAtom *A = &Atoms[S.Atoms[0]];
    // Nothing is removed: a softmax kept in a local read elsewhere too
    // (`auto p = softmax(x, 1); ... log(p + eps) ... p.sum()`) counts.
    if (A->Fn != PointwiseFn::Softmax)
      A = softmaxInLocal(A->E);
    if (!A)
      continue;
    FusedFormula F{"log-softmax with an offset", "log_softmax", "", A->Arg,
                   A->Dim, ", and more accurately", false};
    F.NoFix = "dropping the offset inside the log changes the value where a "
              "probability is below it; if it only guards against log(0), "
              "log_softmax never computes that";
    return F;
  }
  return std::nullopt;
}

std::optional<FusedFormula>
PointwiseFormulas::matchLog(const PointwiseAtom &Log) {
  const Polynomial &P = Log.ArgForm;
  if (Log.Fn == PointwiseFn::Log1p) {
    const PointwiseAtom *Exp = single(P, 1);
    if (Exp && Exp->Fn == PointwiseFn::Exp)
      return FusedFormula{"softplus", "softplus", "", Exp->Arg, nullptr,
                          ", without overflow for large inputs", false};
    return std::nullopt;
  }
  if (const PointwiseAtom *A = single(P, 1)) {
    if (A->Fn == PointwiseFn::Sigmoid)
      return FusedFormula{"log-sigmoid", "log_sigmoid", "", A->Arg, nullptr,
                          ", and more accurately", false};
    if (A->Fn == PointwiseFn::Softmax)
      return FusedFormula{"log-softmax", "log_softmax", "", A->Arg, A->Dim,
                          ", and more accurately", false};
    if (std::optional<FusedFormula> F = matchLogOfQuotient(*A))
      return F;
  }
  if (std::optional<FusedFormula> F = matchLogOfOffsetSoftmax(P))
    return F;
  // log(1 + x), log(x + 1): x as written, whatever it is.
  std::optional<Arithmetic> Plus = arithmetic(Log.Arg);
  if (!Plus || Plus->Op != '+' || !Plus->L)
    return std::nullopt;
  std::optional<double> L = constantValue(Plus->L, Ctx);
  std::optional<double> R = constantValue(Plus->R, Ctx);
  const Expr *X = L && near(*L, 1)   ? Plus->R
                  : R && near(*R, 1) ? Plus->L
                                     : nullptr;
  if (!X || !isTensorExpr(X))
    return std::nullopt;
  Polynomial Rest = sum(P, constantPoly(1), -1);
  const PointwiseAtom *Exp = single(Rest, 1);
  if (Exp && Exp->Fn == PointwiseFn::Exp)
    return FusedFormula{"softplus", "softplus", "", Exp->Arg, nullptr,
                        ", without overflow for large inputs", false};
  return FusedFormula{"log(1 + x)", "log1p", "", X, nullptr,
                      ", and accurately for small x", false};
}

std::optional<FusedFormula> PointwiseFormulas::match() {
  std::optional<FusedFormula> F = matchThroughLocals();
  // The fused ops came in different versions (mish in 1.9).
  if (F && !utils::declaresInAt(Ctx, F->Function))
    return std::nullopt;
  return F;
}

std::optional<FusedFormula> PointwiseFormulas::matchThroughLocals() {
  if (std::optional<FusedFormula> F = matchOnce())
    return F;
  if (Consumed.empty())
    return std::nullopt;
  // Read through, a local that holds a sum turns a product into a sum of
  // terms (`u * sigmoid(u)` with `u = e - 1`): the formula may still be
  // there with the local as one operand.
  Atoms.clear();
  Kernels.clear();
  Consumed.clear();
  Qualifier.clear();
  ReadThrough = false;
  return matchOnce();
}

/// sqrt(a^2 + b^2) of two different tensors: hypot(a, b).
std::optional<FusedFormula>
PointwiseFormulas::matchHypot(const Polynomial &P) const {
  if (P.size() != 2)
    return std::nullopt;
  for (const Monomial &M : P)
    if (!near(M.Coef, 1) || M.Atoms.size() != 2 || M.Atoms[0] != M.Atoms[1] ||
        Atoms[M.Atoms[0]].Fn != PointwiseFn::None ||
        !isTensorExpr(Atoms[M.Atoms[0]].E))
      return std::nullopt;
  if (P[0].Atoms[0] == P[1].Atoms[0])
    return std::nullopt;
  FusedFormula F{"hypotenuse sqrt(a^2 + b^2)", "hypot", "",
                 Atoms[P[0].Atoms[0]].E, nullptr,
                 ", without overflow for large inputs", true};
  F.Second = Atoms[P[1].Atoms[0]].E;
  return F;
}

/// exp(log_softmax(x, d)): the softmax, in two kernels.
std::optional<FusedFormula>
PointwiseFormulas::matchExpOfLogSoftmax(const Expr *Exp, const Expr *Arg) {
  // log_softmax takes softmax's arguments (the dimension, no dtype).
  std::optional<TorchCall> L = torchCall(Arg);
  PointwiseAtom LogSoftmax;
  if (!L || L->Name != "log_softmax")
    return matchExpOfLogSoftmaxFormula(Exp, Arg);
  if (!readReduction(*L, PointwiseFn::Softmax, LogSoftmax, Ctx) ||
      !isTensorExpr(L->Args[0]))
    return std::nullopt;
  noteKernel(Exp);
  noteKernel(utils::ignoreWrappers(Arg));
  return FusedFormula{"softmax as exp(log_softmax)", "softmax", "", L->Args[0],
                      LogSoftmax.Dim, "", false};
}

namespace {

/// The shortest decimal that reads back as \p V (to 1e-12 relative).
std::string formatConstant(double V) {
  char Buf[32];
  for (int Digits = 1; Digits <= 17; ++Digits) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Digits, V);
    if (near(std::strtod(Buf, nullptr), V, 1e-12))
      break;
  }
  return Buf;
}

/// \p Atoms without one \p A, or nothing when \p A is not there.
std::optional<llvm::SmallVector<unsigned, 4>>
without(llvm::ArrayRef<unsigned> Atoms, unsigned A) {
  const auto *It = llvm::find(Atoms, A);
  if (It == Atoms.end())
    return std::nullopt;
  llvm::SmallVector<unsigned, 4> Rest(Atoms.begin(), It);
  Rest.append(std::next(It), Atoms.end());
  return Rest;
}

} // namespace

/// The text of `Coef * s1 * s2 ...` for the scalar expressions \p Scalars,
/// which \p F then copies.
std::string PointwiseFormulas::scaledText(double Coef,
                                          llvm::ArrayRef<const Expr *> Scalars,
                                          FusedFormula &F) const {
  const SourceManager &SM = Ctx.getSourceManager();
  std::string Text;
  for (const Expr *E : Scalars) {
    E = utils::ignoreWrappers(E)->IgnoreParens();
    std::string T = utils::sourceText(E->getSourceRange(), SM,
                                      Ctx.getLangOpts());
    if (T.empty())
      return "";
    if (!isa<DeclRefExpr, MemberExpr, CallExpr>(E))
      T = "(" + T + ")";
    Text += (Text.empty() ? "" : " * ") + T;
    F.Copied.push_back(E);
  }
  if (Text.empty())
    return formatConstant(Coef);
  if (near(Coef, 1))
    return Text;
  if (near(Coef, -1))
    return "-" + Text;
  return formatConstant(Coef) + " * " + Text;
}

/// softplus(x), log1p(exp(x)) or log(1 + exp(x)).
bool PointwiseFormulas::isSoftplusOf(const PointwiseAtom &S,
                                     const PointwiseAtom &X) const {
  if (S.Fn == PointwiseFn::Softplus)
    return single(S.ArgForm, 1) == &X;
  Polynomial Exp = S.ArgForm;
  if (S.Fn == PointwiseFn::Log)
    Exp = sum(Exp, constantPoly(1), -1);
  else if (S.Fn != PointwiseFn::Log1p)
    return false;
  const PointwiseAtom *E = single(Exp, 1);
  return E && E->Fn == PointwiseFn::Exp && single(E->ArgForm, 1) == &X;
}

/// x * tanh(softplus(x)): Mish.
std::optional<FusedFormula>
PointwiseFormulas::matchMish(const Polynomial &P) const {
  for (unsigned I = 0; I < 2; ++I) {
    const PointwiseAtom &T = Atoms[P[0].Atoms[I]];
    const PointwiseAtom &X = Atoms[P[0].Atoms[1 - I]];
    const PointwiseAtom *S = single(T.ArgForm, 1);
    if (T.Fn == PointwiseFn::Tanh && S && isSoftplusOf(*S, X))
      return FusedFormula{"Mish", "mish", "", X.E, nullptr, "", true};
  }
  return std::nullopt;
}

/// sqrt(sum(x * x)), over every element or one dimension: the 2-norm.
std::optional<FusedFormula>
PointwiseFormulas::matchNorm(const Polynomial &P) const {
  const PointwiseAtom *Sum = single(P, 1);
  if (!Sum || Sum->Fn != PointwiseFn::Sum || Sum->ArgForm.size() != 1)
    return std::nullopt;
  const Monomial &Square = Sum->ArgForm[0];
  if (!near(Square.Coef, 1) || Square.Atoms.size() != 2 ||
      Square.Atoms[0] != Square.Atoms[1] ||
      !isTensorExpr(Atoms[Square.Atoms[0]].E))
    return std::nullopt;
  FusedFormula F{"2-norm", "linalg_vector_norm", "", Atoms[Square.Atoms[0]].E,
                 nullptr, "", true};
  if (Sum->Dim) {
    std::string Dim = utils::sourceText(Sum->Dim->getSourceRange(),
                                        Ctx.getSourceManager(),
                                        Ctx.getLangOpts());
    if (Dim.empty())
      return std::nullopt;
    F.Trailing = ", 2, " + Dim + (Sum->KeepDim ? ", true" : "");
    F.Copied.push_back(Sum->Dim);
  }
  return F;
}

bool PointwiseFormulas::isTensorAtom(unsigned I) const {
  return isTensorExpr(Atoms[I].E);
}

bool PointwiseFormulas::isScalarAtom(unsigned I) const {
  const Expr *E = Atoms[I].E;
  return E && Atoms[I].Fn == PointwiseFn::None &&
         E->getType()->isArithmeticType();
}

/// a + k * w * (b - a), however grouped or spelled (`(1 - w) * a + w * b`):
/// the polynomial a + k*W*b - k*W*a, where the weight W is one tensor or a
/// product of scalars.
std::optional<FusedFormula>
PointwiseFormulas::matchLerp(const Polynomial &P) const {
  if (P.size() != 3)
    return std::nullopt;
  for (unsigned S = 0; S < 3; ++S) {
    const Monomial &Start = P[S];
    if (Start.Atoms.size() != 1 || !near(Start.Coef, 1) ||
        !isTensorAtom(Start.Atoms[0]))
      continue;
    unsigned A = Start.Atoms[0];
    for (unsigned M = 0; M < 3; ++M) {
      if (M == S)
        continue;
      const Monomial &Minus = P[M], &Plus = P[3 - S - M];
      auto W = without(Minus.Atoms, A);
      if (!W || W->empty() || !near(Plus.Coef, -Minus.Coef))
        continue;
      for (unsigned B : Plus.Atoms) {
        auto Rest = without(Plus.Atoms, B);
        if (B == A || !isTensorAtom(B) || *Rest != *W ||
            llvm::is_contained(*W, A) || llvm::is_contained(*W, B))
          continue;
        return lerpOf(A, B, *W, Plus.Coef);
      }
    }
  }
  return std::nullopt;
}

std::optional<FusedFormula>
PointwiseFormulas::lerpOf(unsigned A, unsigned B, llvm::ArrayRef<unsigned> W,
                          double K) const {
  // The formula reads the start and the weight twice.
  if (!llvm::all_of(W, [&](unsigned I) {
        return isRepeatableOperand(Atoms[I].E);
      }))
    return std::nullopt;
  FusedFormula F{"linear interpolation", "lerp", "", Atoms[A].E, nullptr, "",
                 true};
  F.Second = Atoms[B].E;
  if (W.size() == 1 && isTensorAtom(W[0]) && near(K, 1)) {
    F.Third = Atoms[W[0]].E;
    return F;
  }
  if (!llvm::all_of(W, [&](unsigned I) { return isScalarAtom(I); }))
    return std::nullopt;
  llvm::SmallVector<const Expr *, 2> Weights;
  for (unsigned I : W)
    Weights.push_back(Atoms[I].E);
  std::string Weight = scaledText(K, Weights, F);
  if (Weight.empty())
    return std::nullopt;
  F.Trailing = ", " + Weight;
  return F;
}

/// What the root's value is assigned to (`x = root`, `x.copy_(root)`), or
/// null.
const Expr *PointwiseFormulas::assignmentTarget() const {
  const Expr *Child = Root;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Child);
    const auto *P = Parents.empty() ? nullptr : Parents[0].get<Expr>();
    if (!P)
      return nullptr;
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(P))
      return Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
                     Op->getArg(1) == Child
                 ? Op->getArg(0)
                 : nullptr;
    if (const auto *B = dyn_cast<BinaryOperator>(P))
      return B->getOpcode() == BO_Assign && B->getRHS() == Child ? B->getLHS()
                                                                 : nullptr;
    if (const auto *Call = dyn_cast<CXXMemberCallExpr>(P)) {
      const CXXMethodDecl *M = Call->getMethodDecl();
      return M && M->getIdentifier() && M->getName() == "copy_" &&
                     Call->getNumArgs() > 0 && Call->getArg(0) == Child
                 ? Call->getImplicitObjectArgument()
                 : nullptr;
    }
    if (utils::ignoreWrappers(P) != utils::ignoreWrappers(Root) &&
        !isa<MaterializeTemporaryExpr, CXXBindTemporaryExpr, ImplicitCastExpr,
             ParenExpr, ExprWithCleanups, CXXConstructExpr>(P))
      return nullptr;
    Child = P;
  }
  return nullptr;
}

/// `x = 0.99 * x + 0.01 * y`, `x.copy_(...)`: a value moved part of the
/// way toward another, with constant weights that add up to 1 (a moving
/// average, a soft target update). Only where the result replaces one of
/// the two: elsewhere such a sum is a weighted mix (of two losses, say),
/// which reads better as written.
std::optional<FusedFormula>
PointwiseFormulas::matchConstantLerp(const Polynomial &P) const {
  if (P.size() != 2 || !near(P[0].Coef + P[1].Coef, 1) || P[0].Coef <= 0 ||
      P[1].Coef <= 0 || P[0].Atoms.size() != 1 || P[1].Atoms.size() != 1 ||
      !isTensorAtom(P[0].Atoms[0]) || !isTensorAtom(P[1].Atoms[0]))
    return std::nullopt;
  const Expr *Target = assignmentTarget();
  for (unsigned I = 0; I < 2; ++I) {
    const PointwiseAtom &Start = Atoms[P[I].Atoms[0]];
    if (!Target || !sameExpr(Target, Start.E, Ctx))
      continue;
    FusedFormula F{"linear interpolation", "lerp", "", Start.E, nullptr, "",
                   false};
    F.Second = Atoms[P[1 - I].Atoms[0]].E;
    F.Trailing = ", " + formatConstant(P[1 - I].Coef);
    return F;
  }
  return std::nullopt;
}

/// `self + v * t1 * t2` (addcmul) and `self + v * t1 / t2` (addcdiv), and
/// the same subtracted, of any tensor `self`, two tensors and a scalar `v`.
std::optional<FusedFormula> PointwiseFormulas::matchMultiplyAdd(const Expr *E) {
  std::optional<Arithmetic> A = arithmetic(E);
  if (!A || !A->L || (A->Op != '+' && A->Op != '-'))
    return std::nullopt;
  if (auto F = multiplyAddOf(A->L, A->R, A->Op == '-' ? -1 : 1))
    return F;
  if (A->Op == '+')
    return multiplyAddOf(A->R, A->L, 1);
  return std::nullopt;
}

/// The factors of a product as written (`*`, `mul`, negation and division
/// by constants), without expanding the sums among them: \p Coef collects
/// the constants.
void PointwiseFormulas::factorsOf(const Expr *E, double &Coef,
                                  llvm::SmallVectorImpl<const Expr *> &Factors,
                                  unsigned Depth) {
  E = utils::ignoreWrappers(E);
  if (std::optional<double> C = constantValue(E, Ctx)) {
    Coef *= *C;
    return;
  }
  if (std::optional<double> C = scalarTensorConstant(E, Ctx)) {
    noteKernel(E);
    Coef *= *C;
    return;
  }
  // A part that is a formula of its own is one factor (see isFormula).
  std::optional<Arithmetic> A =
      Depth < MaxDepth && !isFormula(E) ? arithmetic(E) : std::nullopt;
  std::optional<double> Divisor =
      A && A->Op == '/' ? constantValue(A->R, Ctx) : std::nullopt;
  if (A && A->Op == '-' && !A->L) {
    Coef = -Coef;
    factorsOf(A->R, Coef, Factors, Depth + 1);
  } else if (A && A->Op == '*') {
    factorsOf(A->L, Coef, Factors, Depth + 1);
    factorsOf(A->R, Coef, Factors, Depth + 1);
  } else if (Divisor && *Divisor != 0) {
    factorsOf(A->L, Coef, Factors, Depth + 1);
    Coef /= *Divisor;
  } else {
    Factors.push_back(E);
    return;
  }
  noteKernel(E);
}

/// The tensors and the scalars among \p Factors; false when one is neither.
static bool splitFactors(llvm::ArrayRef<const Expr *> Factors,
                         llvm::SmallVectorImpl<const Expr *> &Tensors,
                         llvm::SmallVectorImpl<const Expr *> &Scalars) {
  for (const Expr *E : Factors) {
    if (isTensorExpr(E))
      Tensors.push_back(E);
    else if (E->getType()->isArithmeticType())
      Scalars.push_back(E);
    else
      return false;
  }
  return true;
}

std::optional<FusedFormula>
PointwiseFormulas::multiplyAddOf(const Expr *Self, const Expr *Product,
                                 double Sign) {
  // A product that is a formula of its own (x * sigmoid(x), also through
  // a local) is that formula.
  if (!isTensorExpr(Self) || isFormula(utils::ignoreWrappers(Product)))
    return std::nullopt;
  double Coef = Sign;
  llvm::SmallVector<const Expr *, 4> Factors, Tensors, Scalars;
  factorsOf(Product, Coef, Factors, 1);
  if (!splitFactors(Factors, Tensors, Scalars))
    return std::nullopt;
  FusedFormula F{"multiply-add", "addcmul", "", Self, nullptr, "", false};
  if (Tensors.size() == 2 && !sameExpr(Tensors[0], Tensors[1], Ctx)) {
    F.Second = Tensors[0];
    F.Third = Tensors[1];
  } else if (Tensors.size() == 1) {
    // v * (n / d), and (v * n) / d.
    std::optional<Arithmetic> Q = arithmetic(Tensors[0]);
    if (!Q || Q->Op != '/' || !isTensorExpr(Q->R))
      return std::nullopt;
    llvm::SmallVector<const Expr *, 4> Num, NumTensors;
    factorsOf(Q->L, Coef, Num, 2);
    if (!splitFactors(Num, NumTensors, Scalars) || NumTensors.size() != 1)
      return std::nullopt;
    noteKernel(Tensors[0]);
    F.Name = "divide-add";
    F.Function = "addcdiv";
    F.Second = NumTensors[0];
    // An argument needs no parentheses.
    F.Third =
        utils::ignoreWrappers(utils::ignoreWrappers(Q->R)->IgnoreParens());
  } else {
    return std::nullopt;
  }
  noteKernel(utils::ignoreWrappers(Root));
  if (!Scalars.empty() || !near(Coef, 1)) {
    std::string Value = scaledText(Coef, Scalars, F);
    if (Value.empty())
      return std::nullopt;
    F.Trailing = ", " + Value;
  }
  return F;
}

/// Whether \p E, a part of the formula, is a formula of its own (as the
/// check would report it on its own): such a part is read as its fused op,
/// one atom, as the fix leaves it, so that a second --fix finds nothing the
/// first did not.
bool PointwiseFormulas::isFormula(const Expr *E) {
  if (!isTensorExpr(E))
    return false;
  std::optional<TorchCall> C = torchCall(E);
  // Only what the check matches as a formula's root.
  bool MayBeRoot = arithmetic(E) || (C && llvm::is_contained(
                                                {"log", "log1p", "exp", "sqrt"},
                                                C->Name));
  if (!MayBeRoot)
    return false;
  if (auto It = Memo->find(E); It != Memo->end())
    return It->second;
  (*Memo)[E] = false; // no formula contains itself
  bool Found = PointwiseFormulas(Ctx, E, {}, Memo).match().has_value();
  (*Memo)[E] = Found;
  return Found;
}

/// exp of a written-out log-softmax (`exp(log(softmax(x, d)))`): the
/// softmax, as the log-softmax's own fix would leave it for a second run.
std::optional<FusedFormula>
PointwiseFormulas::matchExpOfLogSoftmaxFormula(const Expr *Exp,
                                               const Expr *Arg) {
  PointwiseFormulas Inner(Ctx, utils::ignoreWrappers(Arg), Scope, Memo);
  std::optional<FusedFormula> F = Inner.match();
  if (!F || F->Function != "log_softmax" || !F->NoFix.empty())
    return std::nullopt;
  for (const VarDecl *VD : Inner.Consumed)
    if (!llvm::is_contained(Consumed, VD))
      Consumed.push_back(VD);
  Kernels.insert(Inner.Kernels.begin(), Inner.Kernels.end());
  noteKernel(Exp);
  if (Qualifier.empty())
    Qualifier = Inner.Qualifier;
  return FusedFormula{"softmax as exp(log_softmax)", "softmax", "",
                      F->Operand, F->Dim, "", F->ReadsOperandTwice};
}

std::optional<FusedFormula> PointwiseFormulas::matchOnce() {
  const Expr *E = utils::ignoreWrappers(Root);
  if (!isTensorExpr(E))
    return std::nullopt;
  std::optional<FusedFormula> F;
  std::optional<TorchCall> C = torchCall(E);
  PointwiseFn Fn = C ? fnNamed(C->Name) : PointwiseFn::None;
  std::optional<Arithmetic> A = arithmetic(E);
  if (Fn == PointwiseFn::Log || Fn == PointwiseFn::Log1p) {
    const PointwiseAtom &Log = Atoms[atomOf(E, 0)];
    if (Log.Fn == Fn)
      F = matchLog(Log);
  } else if (Fn == PointwiseFn::Exp && C->Args.size() == 1) {
    F = matchExpOfLogSoftmax(E, C->Args[0]);
  } else if (Fn == PointwiseFn::Sqrt && C->Args.size() == 1) {
    const PointwiseAtom &Sqrt = Atoms[atomOf(E, 0)];
    if (Sqrt.Fn == Fn) {
      F = matchHypot(Sqrt.ArgForm);
      if (!F)
        F = matchNorm(Sqrt.ArgForm);
    }
  } else if (A && A->Op == '/' && !constantValue(A->R, Ctx)) {
    noteKernel(E);
    F = matchQuotient(A->L, A->R);
  } else if (A) {
    Polynomial P;
    build(E, P, 0);
    F = matchPolynomial(P);
    if (!F)
      F = matchLerp(P);
    if (!F)
      F = matchConstantLerp(P);
    if (!F)
      F = matchMultiplyAdd(E);
  }
  if (F && F->ReadsOperandTwice && !isRepeatableOperand(F->Operand))
    return std::nullopt;
  return F;
}

namespace {

bool isWithin(const Stmt *S, SourceRange R, const SourceManager &SM) {
  return !SM.isBeforeInTranslationUnit(S->getBeginLoc(), R.getBegin()) &&
         !SM.isBeforeInTranslationUnit(R.getEnd(), S->getEndLoc());
}

bool isWithinAny(const Stmt *S, llvm::ArrayRef<const Expr *> Ranges,
                 const SourceManager &SM) {
  return llvm::any_of(Ranges, [&](const Expr *R) {
    return R && isWithin(S, R->getSourceRange(), SM);
  });
}

/// Whether \p E names \p VD.
bool names(const Expr *E, const VarDecl *VD, ASTContext &Ctx) {
  return E && !ast_matchers::match(
                   findAll(declRefExpr(to(varDecl(equalsNode(VD))))), *E, Ctx)
                   .empty();
}

} // namespace

llvm::SmallVector<const VarDecl *, 2>
PointwiseFormulas::removedLocals(llvm::ArrayRef<const Expr *> Kept) const {
  // What stays named: the copied expressions, then, transitively, the
  // initializers of the locals they keep.
  llvm::SmallVector<const Expr *, 4> Named(Kept.begin(), Kept.end());
  llvm::SmallVector<const VarDecl *, 2> Removed(Consumed.begin(),
                                                Consumed.end());
  for (size_t I = 0; I < Named.size(); ++I) {
    auto Stays = [&](const VarDecl *VD) { return names(Named[I], VD, Ctx); };
    for (const VarDecl *VD : Removed)
      if (Stays(VD))
        Named.push_back(VD->getInit());
    llvm::erase_if(Removed, Stays);
  }
  return Removed;
}

unsigned PointwiseFormulas::kernelsRemoved(
    llvm::ArrayRef<const Expr *> Kept,
    llvm::ArrayRef<const VarDecl *> Removed) const {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallVector<const Expr *, 4> Written = {Root};
  for (const VarDecl *VD : Removed)
    Written.push_back(VD->getInit());
  return llvm::count_if(Kernels, [&](const Expr *E) {
    return isWithinAny(E, Written, SM) && !isWithinAny(E, Kept, SM);
  });
}

} // namespace clang::tidy::torch
