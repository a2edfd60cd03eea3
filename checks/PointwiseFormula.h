//===--- PointwiseFormula.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// Hand-written formulas that ATen computes in one fused kernel. An
// expression of tensors is read as a polynomial over atoms (the operands it
// does not look into, and the calls of sigmoid, tanh, erf, exp, log, sqrt,
// softmax, sum and logsumexp) with constant coefficients, so that
// `0.5 * x * (1 + tanh(k * (x + c * x.pow(3))))` is recognized however its
// products and sums are grouped, ordered or spelled (functions, methods,
// at:: or torch::). A local that holds a part of the formula and is used
// nowhere else is read through.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_POINTWISEFORMULA_H
#define LIBTORCH_TIDY_CHECKS_POINTWISEFORMULA_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace clang::tidy::torch {

/// The LibTorch functions a formula is made of.
enum class PointwiseFn {
  None,
  Sigmoid,
  Tanh,
  Erf,
  Exp,
  Log,
  Log1p,
  Sqrt,
  Softplus,
  Softmax,
  Sum,
  LogSumExp
};

/// A constant times a product of atoms (indices into the atom table,
/// sorted, repeated for powers).
struct Monomial {
  double Coef = 1;
  llvm::SmallVector<unsigned, 4> Atoms;
};
using Polynomial = llvm::SmallVector<Monomial, 4>;

/// An operand the formula does not look into, or a call of one of the
/// functions above with the polynomial of its tensor argument.
struct PointwiseAtom {
  const Expr *E = nullptr;
  PointwiseFn Fn = PointwiseFn::None;
  const Expr *Arg = nullptr;
  Polynomial ArgForm;
  /// softmax, sum and logsumexp: the dimension, and keepdim.
  const Expr *Dim = nullptr;
  bool KeepDim = false;
};

/// The fused ATen op a formula computes.
struct FusedFormula {
  /// What the formula is, in words ("SiLU").
  llvm::StringRef Name;
  /// The ATen function ("silu") and the arguments after the operand and
  /// the dimension (`, "tanh"`).
  llvm::StringRef Function, Extra;
  const Expr *Operand = nullptr;
  const Expr *Dim = nullptr;
  /// Why the fused op is also more accurate, or empty.
  llvm::StringRef Accuracy;
  /// The formula reads its operand more than once: the operand must be the
  /// same value each time (no side effects).
  bool ReadsOperandTwice = false;
  /// The second and third tensor operands, for the fused ops of several
  /// tensors (hypot, lerp, addcmul, addcdiv).
  const Expr *Second = nullptr;
  const Expr *Third = nullptr;
  /// Arguments after the dimension and Extra, made from constants and the
  /// expressions of \c Copied (`, -lr`: addcmul's value, lerp's weight).
  std::string Trailing;
  llvm::SmallVector<const Expr *, 2> Copied;
  /// Why the fused op is reported without a fix-it (it would change the
  /// value somewhere), or empty.
  llvm::StringRef NoFix;
};

class PointwiseFormulas {
public:
  /// \p Scope: what else the fix removes, when the root is a part of it (an
  /// operand fused with its formula): the expression it replaces and the
  /// initializers of the locals it removes. A local named elsewhere only in
  /// \p Scope goes with that text too, and may be read through.
  /// \p Memo: which parts are formulas of their own, shared by the
  /// formulas of one translation unit (see isFormula).
  PointwiseFormulas(ASTContext &Ctx, const Expr *Root,
                    llvm::ArrayRef<const Expr *> Scope = {},
                    llvm::DenseMap<const Expr *, bool> *Memo = nullptr)
      : Ctx(Ctx), Root(Root), Scope(Scope.begin(), Scope.end()),
        Memo(Memo ? Memo : &OwnMemo) {}

  /// The fused op that the root computes, or nothing.
  std::optional<FusedFormula> match();
  /// The locals read through whose declarations the fix removes: those
  /// that neither \p Kept (the expressions whose text the fused call
  /// copies: its operand and dimension) nor the initializer of a local that
  /// stays names. A local read through only to see what an atom computes
  /// (`G` in `log(1 + exp(G))`) is still named by the fix and stays.
  llvm::SmallVector<const VarDecl *, 2>
  removedLocals(llvm::ArrayRef<const Expr *> Kept) const;
  /// The tensor operations (kernels) the fix removes: those of the root and
  /// of the initializers of \p Removed, those inside \p Kept aside.
  unsigned kernelsRemoved(llvm::ArrayRef<const Expr *> Kept,
                          llvm::ArrayRef<const VarDecl *> Removed) const;
  /// The namespace of the first qualified function of the formula as
  /// written (`torch::`, `at::`), or empty.
  llvm::StringRef qualifier() const { return Qualifier; }

private:
  std::optional<FusedFormula> matchHypot(const Polynomial &P) const;
  std::optional<FusedFormula> matchNorm(const Polynomial &P) const;
  std::optional<FusedFormula> matchMish(const Polynomial &P) const;
  bool isSoftplusOf(const PointwiseAtom &S, const PointwiseAtom &X) const;
  std::optional<FusedFormula> matchLerp(const Polynomial &P) const;
  std::optional<FusedFormula> matchConstantLerp(const Polynomial &P) const;
  std::optional<FusedFormula> lerpOf(unsigned A, unsigned B,
                                     llvm::ArrayRef<unsigned> W,
                                     double K) const;
  const Expr *assignmentTarget() const;
  bool isTensorAtom(unsigned I) const;
  bool isScalarAtom(unsigned I) const;
  std::optional<FusedFormula> matchMultiplyAdd(const Expr *E);
  std::optional<FusedFormula> multiplyAddOf(const Expr *Self,
                                            const Expr *Product, double Sign);
  std::string scaledText(double Coef, llvm::ArrayRef<const Expr *> Scalars,
                         FusedFormula &F) const;
  void factorsOf(const Expr *E, double &Coef,
                 llvm::SmallVectorImpl<const Expr *> &Factors, unsigned Depth);
  bool isFormula(const Expr *E);
  std::optional<FusedFormula> matchThroughLocals();
  std::optional<FusedFormula> matchExpOfLogSoftmax(const Expr *Exp,
                                                   const Expr *Arg);
  std::optional<FusedFormula> matchExpOfLogSoftmaxFormula(const Expr *Exp,
                                                          const Expr *Arg);
  void build(const Expr *E, Polynomial &Out, unsigned Depth);
  bool buildArithmetic(const Expr *E, Polynomial &Out, unsigned Depth);
  bool buildQuotient(const Expr *E, const Expr *Num, const Expr *Den,
                     Polynomial &Out, unsigned Depth);
  bool buildPower(const Expr *E, Polynomial &Out, unsigned Depth);
  unsigned atomOf(const Expr *E, unsigned Depth);
  unsigned intern(PointwiseAtom A);
  bool sameAtom(const PointwiseAtom &A, const PointwiseAtom &B) const;
  const VarDecl *readableLocal(const Expr *E) const;
  bool isPureRead(const DeclRefExpr *Ref) const;
  void noteKernel(const Expr *E);

  std::optional<FusedFormula> matchOnce();
  std::optional<FusedFormula> matchPolynomial(const Polynomial &P) const;
  std::optional<FusedFormula> matchGelu(const Polynomial &P) const;
  std::optional<FusedFormula> matchQuotient(const Expr *Num,
                                            const Expr *Den);
  std::optional<FusedFormula> matchLog(const PointwiseAtom &Log);
  std::optional<FusedFormula> matchLogOfQuotient(const PointwiseAtom &A);
  std::optional<FusedFormula> matchLogOfOffsetSoftmax(const Polynomial &P);
  const PointwiseAtom *softmaxInLocal(const Expr *E);
  const PointwiseAtom *single(const Polynomial &P, double Coef) const;

  ASTContext &Ctx;
  const Expr *Root;
  llvm::SmallVector<const Expr *, 4> Scope;
  llvm::SmallVector<PointwiseAtom, 8> Atoms;
  llvm::DenseSet<const Expr *> Kernels;
  llvm::SmallVector<const VarDecl *, 2> Consumed;
  std::string Qualifier;
  /// Whether locals are read through (see match()).
  bool ReadThrough = true;
  llvm::DenseMap<const Expr *, bool> OwnMemo;
  llvm::DenseMap<const Expr *, bool> *Memo;
};

/// Whether reading \p E twice gives the same value: names, members,
/// literals, arithmetic, and tensor methods and functions without side
/// effects (views, pointwise math) of such operands.
bool isRepeatableOperand(const Expr *E, unsigned Depth = 0);

/// The value of a constant arithmetic expression: literals, constant
/// variables, arithmetic, and sqrt/pow/exp of constants.
std::optional<double> constantValue(const Expr *E, const ASTContext &Ctx,
                                    unsigned Depth = 0);

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_POINTWISEFORMULA_H
