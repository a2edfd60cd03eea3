//===--- HostSyncAccumulateFix.cpp - libtorch-tidy ------------------------===//
//
// Planned in steps: find the accumulation around the item() call, check
// that the device's sum rounds like the host's, find where code can go
// before and after the loop, check that nothing else sees the total while
// the loop runs, then write the three edits.
//
//===----------------------------------------------------------------------===//

#include "HostSyncAccumulateFix.h"
#include "HostSyncAnalysis.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FreshName.h"
#include "utils/LibTorchNames.h"
#include "utils/SourceText.h"
#include "clang-tidy/utils/DeclRefExprUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::hostsync {

using utils::ignoreWrappers;

namespace {

/// The LibTorch dtype that holds values of a host arithmetic type.
struct DTypeInfo {
  llvm::StringRef Name;  // kFloat
  llvm::StringRef CType; // float: a type item<T>() is defined for
  bool Floating = false;
  int Rank = 0; // wider is larger, within the floating or the integral types
};

std::optional<DTypeInfo> dtypeFor(QualType T) {
  const auto *BT = T.getCanonicalType()->getAs<BuiltinType>();
  if (!BT)
    return std::nullopt;
  switch (BT->getKind()) {
  case BuiltinType::Float:
    return DTypeInfo{"kFloat", "float", true, 1};
  case BuiltinType::Double:
    return DTypeInfo{"kDouble", "double", true, 2};
  case BuiltinType::Int:
    return DTypeInfo{"kInt", "int", false, 1};
  case BuiltinType::Long:
  case BuiltinType::LongLong:
  case BuiltinType::ULong:
  case BuiltinType::ULongLong:
    return DTypeInfo{"kLong", "int64_t", false, 2};
  default:
    return std::nullopt;
  }
}

/// `Total += Item;` or `Total += Item * Factor;` (also Factor * Item and
/// Item / Factor): the statement the fix rewrites.
struct Accumulation {
  const CXXMemberCallExpr *Item = nullptr;
  const CompoundAssignOperator *Add = nullptr;
  const DeclRefExpr *TotalRef = nullptr; // the left side of the +=
  const VarDecl *Total = nullptr;
  const Expr *Factor = nullptr;
  BinaryOperatorKind FactorOp = BO_Mul;
  bool FactorFirst = false;
  DTypeInfo ItemType;
  DTypeInfo TotalType;
};

/// Where the fix adds code around the loop.
struct LoopPlace {
  SourceLocation Begin;
  SourceLocation After;
  std::string Indent; // of the loop's first line
};

const Stmt *parentOf(const Stmt *S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  return Parents.size() == 1 ? Parents[0].get<Stmt>() : nullptr;
}

/// \p S with the implicit casts and parentheses above it, and the parent
/// above those.
std::pair<const Stmt *, const Stmt *> skipCasts(const Stmt *S,
                                                ASTContext &Ctx) {
  const Stmt *P = parentOf(S, Ctx);
  while (P && isa<ImplicitCastExpr, ParenExpr>(P)) {
    S = P;
    P = parentOf(S, Ctx);
  }
  return {S, P};
}

/// Reads the factor of `Item * Factor`, `Factor * Item` or `Item / Factor`;
/// false where it is no host arithmetic value written outside a macro, or
/// divides by the item.
bool readFactor(const BinaryOperator *BO, Accumulation &A) {
  A.FactorOp = BO->getOpcode();
  A.FactorFirst = BO->getRHS()->IgnoreParenImpCasts() == A.Item;
  if (A.FactorFirst && A.FactorOp == BO_Div)
    return false;
  A.Factor = A.FactorFirst ? BO->getLHS() : BO->getRHS();
  return A.Factor->getType()->isArithmeticType() &&
         !A.Factor->getBeginLoc().isMacroID();
}

/// Whether the expression \p S is a statement of a block of its own
/// (temporaries in it aside).
bool isStatementOfBlock(const Stmt *S, ASTContext &Ctx) {
  const Stmt *P = parentOf(S, Ctx);
  if (isa_and_nonnull<ExprWithCleanups>(P))
    P = parentOf(P, Ctx);
  return isa_and_nonnull<CompoundStmt>(P);
}

/// The accumulation of a local total that \p Item is the term of.
std::optional<Accumulation> findAccumulation(const CXXMemberCallExpr *Item,
                                             ASTContext &Ctx) {
  Accumulation A;
  A.Item = Item;
  auto [Term, Parent] = skipCasts(Item, Ctx);
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Parent);
      BO && (BO->getOpcode() == BO_Mul || BO->getOpcode() == BO_Div)) {
    if (!readFactor(BO, A))
      return std::nullopt;
    std::tie(Term, Parent) = skipCasts(BO, Ctx);
  }
  A.Add = dyn_cast_or_null<CompoundAssignOperator>(Parent);
  if (!A.Add || A.Add->getOpcode() != BO_AddAssign || A.Add->getRHS() != Term ||
      !isStatementOfBlock(A.Add, Ctx))
    return std::nullopt;
  A.TotalRef = dyn_cast<DeclRefExpr>(A.Add->getLHS()->IgnoreParens());
  A.Total = A.TotalRef ? dyn_cast<VarDecl>(A.TotalRef->getDecl()) : nullptr;
  if (!A.Total || !A.Total->hasLocalStorage() || isa<ParmVarDecl>(A.Total))
    return std::nullopt;
  return A;
}

/// Whether a sum in \p From converts to \p To without a narrower
/// intermediate.
bool widensTo(const DTypeInfo &From, const DTypeInfo &To) {
  if (From.Floating && !To.Floating)
    return false;
  return From.Floating != To.Floating || From.Rank <= To.Rank;
}

/// A factor must not widen the product: a tensor keeps its dtype when
/// multiplied by a host scalar, the host's arithmetic would not.
bool factorKeepsDtype(const Expr *Factor, const DTypeInfo &Item) {
  // An integer item times an unsigned factor can be unsigned arithmetic on
  // the host (the factor's type after conversion): a negative item would
  // wrap there, not on the device.
  if (!Item.Floating && Factor->getType()->isUnsignedIntegerType())
    return false;
  if (Factor->getType()->isIntegerType())
    return true;
  std::optional<DTypeInfo> FactorType = dtypeFor(Factor->getType());
  return Item.Floating && FactorType && FactorType->Rank <= Item.Rank;
}

/// Reads the dtypes of item<T>() and of the total: the sum on the device
/// must round like the host's. A look-alike item may take a value
/// (`item<1>()`), whose argument has no type to read.
bool readDtypes(const CXXMethodDecl *M, Accumulation &A) {
  const TemplateArgumentList *ItemArgs = M->getTemplateSpecializationArgs();
  if (ItemArgs->size() < 1 ||
      ItemArgs->get(0).getKind() != TemplateArgument::Type)
    return false;
  std::optional<DTypeInfo> TotalType = dtypeFor(A.Total->getType());
  std::optional<DTypeInfo> ItemType = dtypeFor(ItemArgs->get(0).getAsType());
  if (!TotalType || !ItemType || !widensTo(*ItemType, *TotalType))
    return false;
  A.ItemType = *ItemType;
  A.TotalType = *TotalType;
  return !A.Factor || factorKeepsDtype(A.Factor, *ItemType);
}

/// Just after the loop: after a do loop's `;`, or a braced body's `}`.
SourceLocation locationAfter(const Stmt *Loop, const SourceManager &SM,
                             const LangOptions &LangOpts) {
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    return Lexer::findLocationAfterToken(Do->getRParenLoc(), tok::semi, SM,
                                         LangOpts, false);
  if (isa<CompoundStmt>(loopBody(Loop)))
    return Lexer::getLocForEndOfToken(Loop->getEndLoc(), 0, SM, LangOpts);
  return {};
}

/// The loop sits in a block, starts its line, and ends where code can be
/// added after it.
std::optional<LoopPlace> placeAround(const Stmt *Loop, ASTContext &Ctx,
                                     const SourceManager &SM,
                                     const LangOptions &LangOpts) {
  if (!isa_and_nonnull<CompoundStmt>(parentOf(Loop, Ctx)))
    return std::nullopt;
  LoopPlace Place;
  Place.Begin = Loop->getBeginLoc();
  Place.After = locationAfter(Loop, SM, LangOpts);
  if (Place.After.isInvalid())
    return std::nullopt;
  unsigned Col = SM.getSpellingColumnNumber(Place.Begin);
  SourceLocation LineStart = Place.Begin.getLocWithOffset(-(int)(Col - 1));
  llvm::StringRef Indent = Lexer::getSourceText(
      CharSourceRange::getCharRange(LineStart, Place.Begin), SM, LangOpts);
  if (!Indent.trim().empty())
    return std::nullopt;
  Place.Indent = Indent.str();
  return Place;
}

/// A reference outside \p LoopRange that only reads the value or assigns
/// it: no reference or pointer to it can see the missing updates.
bool isPlainUseOutside(const DeclRefExpr *Ref, SourceRange LoopRange,
                       ASTContext &Ctx, const SourceManager &SM) {
  SourceLocation L = Ref->getBeginLoc();
  if (!SM.isBeforeInTranslationUnit(L, LoopRange.getBegin()) &&
      !SM.isBeforeInTranslationUnit(LoopRange.getEnd(), L))
    return false; // used inside the loop
  const Stmt *RefParent = parentOf(Ref, Ctx);
  if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(RefParent);
      Cast && Cast->getCastKind() == CK_LValueToRValue)
    return true;
  const auto *BO = dyn_cast_or_null<BinaryOperator>(RefParent);
  return BO && BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == Ref;
}

/// Every use of the total but the accumulation's is outside the loop and a
/// plain read or write.
bool othersUseTotalPlainly(const Accumulation &A, const Stmt *Loop,
                           const Stmt &Body, ASTContext &Ctx,
                           const SourceManager &SM) {
  return llvm::all_of(
      tidy::utils::decl_ref_expr::allDeclRefExprs(*A.Total, Body, Ctx),
      [&](const DeclRefExpr *Ref) {
        return Ref == A.TotalRef ||
               isPlainUseOutside(Ref, Loop->getSourceRange(), Ctx, SM);
      });
}

/// The text of \p E, in parentheses unless \p Bare says it needs none.
template <typename... Bare>
std::string operandText(const Expr *E, const Expr *Inner,
                        const SourceManager &SM, const LangOptions &LangOpts) {
  std::string Text = utils::sourceText(E->getSourceRange(), SM, LangOpts);
  if (Text.empty() || isa<Bare...>(Inner))
    return Text;
  return "(" + Text + ")";
}

/// Whether an integer factor of type \p T must be cast to become a Scalar:
/// LibTorch 1.x's Scalar takes int and int64_t but no unsigned or
/// `long long` type, for which `tensor * n` is ambiguous.
bool needsScalarCast(QualType T, const ASTContext &Ctx) {
  if (!T->isIntegerType() || T->isBooleanType())
    return false;
  QualType C = T.getCanonicalType().getUnqualifiedType();
  return C != Ctx.IntTy &&
         C != Ctx.getIntTypeForBitwidth(64, /*Signed=*/true);
}

/// What the device adds per iteration: `x.detach().to(torch::kFloat)`,
/// with the factor; "" where the source text cannot be read.
std::string deviceTerm(const Accumulation &A, llvm::StringRef Ns,
                       const ASTContext &Ctx, const SourceManager &SM,
                       const LangOptions &LangOpts) {
  const Expr *Object = A.Item->getImplicitObjectArgument();
  if (utils::sourceText(Object->getSourceRange(), SM, LangOpts).empty())
    return "";
  std::string Value =
      operandText<DeclRefExpr, CXXMemberCallExpr, CallExpr, ParenExpr>(
          Object, ignoreWrappers(Object), SM, LangOpts) +
      ".detach().to(" + Ns.str() + "::" + A.ItemType.Name.str() + ")";
  if (!A.Factor)
    return Value;
  std::string FactorText = operandText<DeclRefExpr, IntegerLiteral,
                                       FloatingLiteral, CallExpr, ParenExpr>(
      A.Factor, A.Factor->IgnoreImpCasts(), SM, LangOpts);
  // int64_t holds every signed factor, and unsigned ones below 2^63.
  if (needsScalarCast(A.Factor->IgnoreImpCasts()->getType(), Ctx))
    FactorText =
        "static_cast<int64_t>(" +
        utils::sourceText(A.Factor->getSourceRange(), SM, LangOpts) + ")";
  if (A.FactorFirst)
    return FactorText + " * " + Value;
  return Value + (A.FactorOp == BO_Mul ? " * " : " / ") + FactorText;
}

AccumulateFix buildFix(const Accumulation &A, const LoopPlace &Place,
                       const std::string &Value, const std::string &Ns,
                       const std::string &Acc) {
  std::string Converted =
      A.ItemType.Name == A.TotalType.Name
          ? Value
          : "(" + Value + ").to(" + Ns + "::" + A.TotalType.Name.str() + ")";
  std::string TotalName = A.Total->getName().str();
  AccumulateFix Fix;
  Fix.Hints.push_back(FixItHint::CreateInsertion(
      Place.Begin, Ns + "::Tensor " + Acc + ";\n" + Place.Indent));
  Fix.Hints.push_back(FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(A.Add->getSourceRange()),
      Acc + " = " + Acc + ".defined() ? " + Acc + " + " + Value + " : " +
          Converted));
  Fix.Hints.push_back(FixItHint::CreateInsertion(
      Place.After, "\n" + Place.Indent + "if (" + Acc + ".defined())\n" +
                       Place.Indent + "  " + TotalName + " += " + Acc +
                       ".item<" + A.TotalType.CType.str() + ">();"));
  return Fix;
}

} // namespace

std::optional<AccumulateFix>
accumulateOnDevice(const Expr *ItemCall, const Stmt *Loop, ASTContext &Ctx,
                   const SourceManager &SM, const LangOptions &LangOpts,
                   HandedOutNames &HandedOut) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(ItemCall);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getTemplateSpecializationArgs() ||
      ItemCall->getBeginLoc().isMacroID() || Loop->getBeginLoc().isMacroID())
    return std::nullopt;
  std::optional<Accumulation> A = findAccumulation(MC, Ctx);
  if (!A || !readDtypes(M, *A))
    return std::nullopt;
  std::optional<LoopPlace> Place = placeAround(Loop, Ctx, SM, LangOpts);
  if (!Place ||
      !SM.isBeforeInTranslationUnit(A->Total->getLocation(), Place->Begin))
    return std::nullopt;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(A->Total->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody() ||
      !othersUseTotalPlainly(*A, Loop, *Fn->getBody(), Ctx, SM))
    return std::nullopt;
  std::string Ns = utils::torchNamespace(Ctx);
  std::string Value = deviceTerm(*A, Ns, Ctx, SM, LangOpts);
  if (Value.empty())
    return std::nullopt;
  // Other loops of the function may add their own `<total>_device`.
  llvm::StringSet<> &Taken = HandedOut[Fn->getCanonicalDecl()];
  std::string Acc = utils::freshNameIn(
      *Fn, A->Total->getName().str() + "_device", Ctx, Taken);
  Taken.insert(Acc);
  return buildFix(*A, *Place, Value, Ns, Acc);
}

} // namespace clang::tidy::torch::hostsync
