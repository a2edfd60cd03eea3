//===--- UnfusedPointwiseCheck.cpp - libtorch-tidy ------------------------===//
//
// A formula written out of pointwise ATen ops runs one kernel per op, each
// reading and writing the whole tensor; ATen has the common ones as a single
// kernel that reads the input once (and, for log1p, expm1, softmax and the
// log forms, computes it more accurately). The fix-it replaces the whole
// expression with the fused op, which is equal in exact arithmetic.
//
//===----------------------------------------------------------------------===//

#include "UnfusedPointwiseCheck.h"
#include "PointwiseFormula.h"
#include "TorchTidyModule.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/SourceText.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

/// The statement \p S with, when nothing else is on its lines, the lines
/// themselves.
CharSourceRange wholeLinesOf(const DeclStmt *S, const SourceManager &SM) {
  SourceLocation Begin = S->getBeginLoc(), Semi = S->getEndLoc();
  CharSourceRange Statement = CharSourceRange::getTokenRange(Begin, Semi);
  bool Invalid = false;
  llvm::StringRef Buffer = SM.getBufferData(SM.getFileID(Begin), &Invalid);
  if (Invalid)
    return Statement;
  unsigned B = SM.getFileOffset(Begin), E = SM.getFileOffset(Semi) + 1;
  size_t LineStart = Buffer.rfind('\n', B);
  LineStart = LineStart == llvm::StringRef::npos ? 0 : LineStart + 1;
  size_t LineEnd = Buffer.find('\n', E);
  if (LineEnd == llvm::StringRef::npos ||
      !Buffer.slice(LineStart, B).trim().empty() ||
      !Buffer.slice(E, LineEnd).trim().empty())
    return Statement;
  // From the newline before: a removal between blanks takes one more
  // (clang's EditedSource), which would join the next line's indentation.
  if (LineStart == 0)
    return Statement;
  return CharSourceRange::getCharRange(
      Begin.getLocWithOffset(-static_cast<int>(B - LineStart + 1)),
      Semi.getLocWithOffset(static_cast<int>(LineEnd - (E - 1))));
}

/// The declaration statement of a local read through.
const DeclStmt *declarationOf(const VarDecl *VD, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*VD);
  return Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
}

bool inMacro(SourceRange R) {
  return R.getBegin().isMacroID() || R.getEnd().isMacroID();
}

/// The log call whose argument \p E is, when there is one: it reports the
/// log-softmax that \p E's softmax is part of.
bool isArgumentOfLog(const Expr *E, ASTContext &Ctx) {
  const Stmt *Cur = E;
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    const auto *P = Parents.empty() ? nullptr : Parents[0].get<Expr>();
    if (!P)
      return false;
    if (utils::ignoreWrappers(P) == utils::ignoreWrappers(E)) {
      Cur = P;
      continue;
    }
    const CXXMethodDecl *M = utils::tensorMethod(P);
    if (M)
      return M->getName() == "log";
    const auto *CE = dyn_cast<CallExpr>(P);
    const FunctionDecl *FD = CE ? CE->getDirectCallee() : nullptr;
    return FD && utils::isTorchFunction(FD, {"log"});
  }
  return false;
}

/// The fix of a formula: the fused call, the locals whose declarations go
/// with it and the kernels it saves. An operand that is itself a formula is
/// fused too (`softplus(silu(x))`), so that one --fix leaves nothing for a
/// second to change.
struct FusedFix {
  FusedFormula Formula;
  std::string Text;
  llvm::SmallVector<const VarDecl *, 2> Removed;
  unsigned Kernels = 0; ///< the written-out kernels the fix replaces
  unsigned Calls = 1;   ///< the fused calls in Text
};

/// Formulas nested deeper than this keep their innermost operands as
/// written.
constexpr unsigned MaxNesting = 4;

using FormulaMemo = llvm::DenseMap<const Expr *, bool>;

std::optional<FusedFix> fusedFix(const Expr *Root,
                                 llvm::ArrayRef<const Expr *> Scope,
                                 ASTContext &Ctx, FormulaMemo &Memo,
                                 unsigned Depth);

/// The text of \p E with the formulas in it fused: those the fix copies
/// must come out as their own fixes would leave them, since those fixes,
/// inside this one, are not applied.
std::optional<FusedFix> fixedText(const Expr *E,
                                  llvm::ArrayRef<const Expr *> Scope,
                                  ASTContext &Ctx, FormulaMemo &Memo,
                                  unsigned Depth) {
  if (std::optional<FusedFix> Inner = fusedFix(E, Scope, Ctx, Memo, Depth);
      Inner && Inner->Formula.NoFix.empty())
    return Inner;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  FusedFix Out;
  Out.Calls = 0;
  Out.Text = utils::sourceText(E->getSourceRange(), SM, LO);
  if (Out.Text.empty() || inMacro(E->getSourceRange()) || Depth > MaxNesting)
    return Out;
  unsigned Begin = SM.getFileOffset(E->getBeginLoc());
  // The children back to front, so that offsets before them hold.
  llvm::SmallVector<const Expr *, 4> Children;
  for (const Stmt *Child : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(Child);
        CE && CE->getSourceRange().isValid() && !inMacro(CE->getSourceRange()))
      Children.push_back(CE);
  for (const Expr *Child : llvm::reverse(Children)) {
    std::optional<FusedFix> Part = fixedText(Child, Scope, Ctx, Memo, Depth);
    std::string Written = utils::sourceText(Child->getSourceRange(), SM, LO);
    if (!Part || Part->Text == Written || Written.empty())
      continue;
    unsigned From = SM.getFileOffset(Child->getBeginLoc());
    llvm::StringRef Text(Out.Text);
    if (From < Begin || From - Begin + Written.size() > Text.size() ||
        Text.substr(From - Begin, Written.size()) != Written)
      continue;
    Out.Text.replace(From - Begin, Written.size(), Part->Text);
    for (const VarDecl *VD : Part->Removed)
      if (!llvm::is_contained(Out.Removed, VD))
        Out.Removed.push_back(VD);
    Out.Kernels += Part->Kernels;
    Out.Calls += Part->Calls;
  }
  return Out;
}

/// The fix of the formula \p Root; \p Scope: what else the whole fix
/// removes (see PointwiseFormulas).
std::optional<FusedFix> fusedFix(const Expr *Root,
                                 llvm::ArrayRef<const Expr *> Scope,
                                 ASTContext &Ctx, FormulaMemo &Memo,
                                 unsigned Depth) {
  if (Depth > MaxNesting || inMacro(Root->getSourceRange()) ||
      Root->isInstantiationDependent())
    return std::nullopt;
  PointwiseFormulas Formulas(Ctx, Root, Scope, &Memo);
  std::optional<FusedFormula> F = Formulas.match();
  if (!F || inMacro(F->Operand->getSourceRange()))
    return std::nullopt;
  FusedFix Fix;
  Fix.Formula = *F;
  // The fused call copies the operands' and the dimension's text: the
  // locals they name stay declared.
  llvm::SmallVector<const Expr *, 6> Kept = {F->Operand, F->Second, F->Third,
                                             F->Dim};
  Kept.append(F->Copied.begin(), F->Copied.end());
  llvm::erase_if(Kept, [](const Expr *E) { return !E; });
  Fix.Removed = Formulas.removedLocals(Kept);
  Fix.Kernels = Formulas.kernelsRemoved(Kept, Fix.Removed);
  llvm::SmallVector<const Expr *, 4> InnerScope(Scope.begin(), Scope.end());
  InnerScope.push_back(Root);
  for (const VarDecl *VD : Fix.Removed)
    InnerScope.push_back(VD->getInit());
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  // Each tensor operand, with the formulas in it fused.
  auto OperandText = [&](const Expr *Operand) -> std::string {
    std::optional<FusedFix> Inner =
        fixedText(Operand, InnerScope, Ctx, Memo, Depth + 1);
    if (!Inner)
      return "";
    for (const VarDecl *VD : Inner->Removed)
      if (!llvm::is_contained(Fix.Removed, VD))
        Fix.Removed.push_back(VD);
    Fix.Kernels += Inner->Kernels;
    Fix.Calls += Inner->Calls;
    return std::move(Inner->Text);
  };
  std::string Args;
  for (const Expr *Operand : {F->Operand, F->Second, F->Third}) {
    if (!Operand)
      continue;
    std::string Text = OperandText(Operand);
    if (Text.empty())
      return std::nullopt;
    Args += (Args.empty() ? "" : ", ") + Text;
  }
  if (F->Dim)
    Args += ", " + utils::sourceText(F->Dim->getSourceRange(), SM, LO);
  std::string Qualifier = Formulas.qualifier().str();
  if (Qualifier.empty())
    Qualifier = utils::torchNamespace(Ctx) + "::";
  Fix.Text = Qualifier + F->Function.str() + "(" + Args + F->Extra.str() +
             F->Trailing + ")";
  return Fix;
}

} // namespace

void UnfusedPointwiseCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto Tensor = hasType(hasUnqualifiedDesugaredType(recordType(
      hasDeclaration(cxxRecordDecl(hasName("::at::Tensor"))))));
  auto Roots = anyOf(
      cxxOperatorCallExpr(hasAnyOverloadedOperatorName("*", "/", "-", "+")),
      cxxMemberCallExpr(callee(cxxMethodDecl(
          hasAnyName("log", "log1p", "exp", "sqrt", "mul", "div", "sub",
                     "add")))),
      callExpr(callee(functionDecl(hasAnyName("::at::log", "::at::log1p",
                                              "::at::exp", "::at::sqrt",
                                              "::at::mul", "::at::div",
                                              "::at::sub", "::at::add")))));
  Finder->addMatcher(expr(utils::isOutsideLibTorch(),
                          unless(isInTemplateInstantiation()), Tensor, Roots)
                         .bind("root"),
                     this);
}

void UnfusedPointwiseCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Root = Result.Nodes.getNodeAs<Expr>("root");
  ASTContext &Ctx = *Result.Context;
  if (!Root)
    return;
  std::optional<FusedFix> Fix = fusedFix(Root, {}, Ctx, Formulas, 0);
  if (!Fix ||
      (Fix->Formula.Function == "softmax" && isArgumentOfLog(Root, Ctx)))
    return;
  std::string Format = "%0 written out in %1 kernels; '%2' computes it in ";
  Format += Fix->Calls == 1 ? "one" : "%3";
  Format += Fix->Formula.Accuracy.str();
  {
    auto D = diag(Root->getBeginLoc(), Format)
             << Fix->Formula.Name << Fix->Kernels << Fix->Text << Fix->Calls;
    if (Fix->Formula.NoFix.empty()) {
      D << FixItHint::CreateReplacement(Root->getSourceRange(), Fix->Text);
      const SourceManager &SM = Ctx.getSourceManager();
      for (const VarDecl *VD : Fix->Removed)
        if (const DeclStmt *DS = declarationOf(VD, Ctx))
          D << FixItHint::CreateRemoval(wholeLinesOf(DS, SM));
    }
  }
  if (!Fix->Formula.NoFix.empty())
    diag(Root->getBeginLoc(), "no fix-it: %0", DiagnosticIDs::Note)
        << Fix->Formula.NoFix;
  utils::recordStatementPayload(getID(), Root->getBeginLoc(), Root, Ctx);
}

TORCH_TIDY_CHECK_FACTORY(UnfusedPointwiseCheck)

} // namespace clang::tidy::torch
