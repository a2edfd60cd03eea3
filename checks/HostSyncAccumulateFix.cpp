//===--- HostSyncAccumulateFix.cpp - libtorch-tidy ------------------------===//

#include "HostSyncAccumulateFix.h"
#include "HostSyncAnalysis.h"
#include "utils/DeviceAnalysis.h"
#include "utils/TorchUtils.h"
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
  bool Floating;
  int Rank; // wider is larger, within the floating or the integral types
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

} // namespace

std::optional<AccumulateFix>
accumulateOnDevice(const Expr *ItemCall, const Stmt *Loop, ASTContext &Ctx,
                   const SourceManager &SM, const LangOptions &LangOpts) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(ItemCall);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getTemplateSpecializationArgs() ||
      ItemCall->getBeginLoc().isMacroID() || Loop->getBeginLoc().isMacroID())
    return std::nullopt;
  auto parentOf = [&](const Stmt *S) -> const Stmt * {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    return Parents.size() == 1 ? Parents[0].get<Stmt>() : nullptr;
  };
  auto skipCasts = [&](const Stmt *S) {
    const Stmt *P = parentOf(S);
    while (P && isa<ImplicitCastExpr, ParenExpr>(P)) {
      S = P;
      P = parentOf(S);
    }
    return std::make_pair(S, P);
  };

  // `Total += Item;`, or `Total += Item * Factor;` (also Factor * Item and
  // Item / Factor) with a host arithmetic Factor, as a statement of its own.
  auto [Term, Parent] = skipCasts(ItemCall);
  const Expr *Factor = nullptr;
  BinaryOperatorKind FactorOp = BO_Mul;
  bool FactorFirst = false;
  if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Parent);
      BO && (BO->getOpcode() == BO_Mul || BO->getOpcode() == BO_Div)) {
    FactorOp = BO->getOpcode();
    FactorFirst = BO->getRHS()->IgnoreParenImpCasts() == ItemCall;
    if (FactorFirst && FactorOp == BO_Div)
      return std::nullopt;
    Factor = FactorFirst ? BO->getLHS() : BO->getRHS();
    if (!Factor->getType()->isArithmeticType() ||
        Factor->getBeginLoc().isMacroID())
      return std::nullopt;
    std::tie(Term, Parent) = skipCasts(BO);
  }
  const auto *Add = dyn_cast_or_null<CompoundAssignOperator>(Parent);
  if (!Add || Add->getOpcode() != BO_AddAssign || Add->getRHS() != Term)
    return std::nullopt;
  const Stmt *StmtParent = parentOf(Add);
  if (isa_and_nonnull<ExprWithCleanups>(StmtParent))
    StmtParent = parentOf(StmtParent); // temporaries in the statement
  if (!isa_and_nonnull<CompoundStmt>(StmtParent))
    return std::nullopt;
  const auto *LHS = dyn_cast<DeclRefExpr>(Add->getLHS()->IgnoreParens());
  const auto *Total = LHS ? dyn_cast<VarDecl>(LHS->getDecl()) : nullptr;
  if (!Total || !Total->hasLocalStorage() || isa<ParmVarDecl>(Total))
    return std::nullopt;

  // item<T>() of LibTorch; a look-alike may take a value (`item<1>()`),
  // whose argument has no type to read.
  const TemplateArgumentList *ItemArgs = M->getTemplateSpecializationArgs();
  if (ItemArgs->size() < 1 ||
      ItemArgs->get(0).getKind() != TemplateArgument::Type)
    return std::nullopt;
  // The sum on the device must round like the host's: item's type converts
  // to the total's without a narrower intermediate.
  std::optional<DTypeInfo> TotalType = dtypeFor(Total->getType());
  std::optional<DTypeInfo> ItemType = dtypeFor(ItemArgs->get(0).getAsType());
  if (!TotalType || !ItemType || (!TotalType->Floating && ItemType->Floating) ||
      (TotalType->Floating == ItemType->Floating &&
       ItemType->Rank > TotalType->Rank))
    return std::nullopt;
  // A factor must not widen the product: a tensor keeps its dtype when
  // multiplied by a host scalar, the host's arithmetic would not.
  if (Factor && !Factor->getType()->isIntegerType()) {
    std::optional<DTypeInfo> FactorType = dtypeFor(Factor->getType());
    if (!ItemType->Floating || !FactorType || FactorType->Rank > ItemType->Rank)
      return std::nullopt;
  }

  // The loop sits in a block, starts its line, and ends where code can be
  // added after it.
  if (!dyn_cast_or_null<CompoundStmt>(parentOf(Loop)))
    return std::nullopt;
  SourceRange LoopRange = Loop->getSourceRange();
  SourceLocation AfterLoop;
  if (const auto *Do = dyn_cast<DoStmt>(Loop))
    AfterLoop = Lexer::findLocationAfterToken(Do->getRParenLoc(), tok::semi, SM,
                                              LangOpts, false);
  else if (isa<CompoundStmt>(loopBody(Loop)))
    AfterLoop = Lexer::getLocForEndOfToken(LoopRange.getEnd(), 0, SM, LangOpts);
  if (AfterLoop.isInvalid() ||
      !SM.isBeforeInTranslationUnit(Total->getLocation(), LoopRange.getBegin()))
    return std::nullopt;
  SourceLocation LoopBegin = LoopRange.getBegin();
  unsigned Col = SM.getSpellingColumnNumber(LoopBegin);
  SourceLocation LineStart = LoopBegin.getLocWithOffset(-(int)(Col - 1));
  llvm::StringRef Indent = Lexer::getSourceText(
      CharSourceRange::getCharRange(LineStart, LoopBegin), SM, LangOpts);
  if (!Indent.trim().empty())
    return std::nullopt;

  // Every other use of the total is outside the loop and a plain read or
  // write: no reference or pointer to it can see the missing updates.
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(Total->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return std::nullopt;
  auto Refs =
      match(findAll(declRefExpr(to(varDecl(equalsNode(Total)))).bind("ref")),
            *Fn->getBody(), Ctx);
  for (const auto &Node : Refs) {
    const auto *Ref = Node.getNodeAs<DeclRefExpr>("ref");
    if (Ref == LHS)
      continue;
    SourceLocation L = Ref->getBeginLoc();
    if (!SM.isBeforeInTranslationUnit(L, LoopRange.getBegin()) &&
        !SM.isBeforeInTranslationUnit(LoopRange.getEnd(), L))
      return std::nullopt; // used inside the loop
    const Stmt *RefParent = parentOf(Ref);
    if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(RefParent);
        Cast && Cast->getCastKind() == CK_LValueToRValue)
      continue;
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(RefParent);
        BO && BO->isAssignmentOp() && BO->getLHS()->IgnoreParens() == Ref)
      continue;
    return std::nullopt;
  }

  auto text = [&](const Expr *E) {
    return utils::sourceText(E->getSourceRange(), SM, LangOpts);
  };
  const Expr *Object = MC->getImplicitObjectArgument();
  std::string ObjectText = text(Object);
  if (ObjectText.empty())
    return std::nullopt;
  if (!isa<DeclRefExpr, CXXMemberCallExpr, CallExpr, ParenExpr>(
          ignoreWrappers(Object)))
    ObjectText = "(" + ObjectText + ")";
  std::string Ns = utils::torchNamespace(Ctx);
  std::string Value =
      ObjectText + ".detach().to(" + Ns + "::" + ItemType->Name.str() + ")";
  if (Factor) {
    std::string FactorText = text(Factor);
    if (!isa<DeclRefExpr, IntegerLiteral, FloatingLiteral, CallExpr, ParenExpr>(
            Factor->IgnoreImpCasts()))
      FactorText = "(" + FactorText + ")";
    Value = FactorFirst
                ? FactorText + " * " + Value
                : Value + (FactorOp == BO_Mul ? " * " : " / ") + FactorText;
  }

  std::string TotalName = Total->getName().str();
  std::string Acc = TotalName + "_device";
  while (!match(findAll(namedDecl(hasName(Acc))), *Fn->getBody(), Ctx).empty())
    Acc += "_"; // keep clear of names the function already uses
  AccumulateFix Fix;
  Fix.Hints.push_back(FixItHint::CreateInsertion(
      LoopBegin, Ns + "::Tensor " + Acc + ";\n" + Indent.str()));
  Fix.Hints.push_back(FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(Add->getSourceRange()),
      Acc + " = " + Acc + ".defined() ? " + Acc + " + " + Value + " : " +
          (ItemType->Name == TotalType->Name
               ? Value
               : "(" + Value + ").to(" + Ns + "::" + TotalType->Name.str() +
                     ")")));
  Fix.Hints.push_back(FixItHint::CreateInsertion(
      AfterLoop, "\n" + Indent.str() + "if (" + Acc + ".defined())\n" +
                     Indent.str() + "  " + TotalName + " += " + Acc + ".item<" +
                     TotalType->CType.str() + ">();"));
  return Fix;
}

} // namespace clang::tidy::torch::hostsync
