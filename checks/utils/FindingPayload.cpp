//===--- FindingPayload.cpp - libtorch-tidy -------------------------------===//

#include "FindingPayload.h"
#include "DeviceAnalysis.h"
#include "TorchUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::utils {

namespace {

bool Enabled = false;

std::vector<FindingPayload> &payloads() {
  static std::vector<FindingPayload> All;
  return All;
}

bool contains(SourceRange Outer, SourceLocation L, const SourceManager &SM) {
  return !SM.isBeforeInTranslationUnit(L, Outer.getBegin()) &&
         !SM.isBeforeInTranslationUnit(Outer.getEnd(), L);
}

/// `for (int i = A; i < B; ++i)` with constant A and B: B - A.
std::optional<int64_t> tripCount(const Stmt *S, ASTContext &Ctx) {
  const auto *For = dyn_cast<ForStmt>(S);
  if (!For || !For->getCond() || !For->getInit())
    return std::nullopt;
  const auto *Init = dyn_cast<DeclStmt>(For->getInit());
  const auto *VD = Init && Init->isSingleDecl()
                       ? dyn_cast<VarDecl>(Init->getSingleDecl())
                       : nullptr;
  const auto *Cond = dyn_cast<BinaryOperator>(For->getCond()->IgnoreImpCasts());
  const auto *Inc = dyn_cast_or_null<UnaryOperator>(For->getInc());
  if (!VD || !VD->getInit() || !Cond || Cond->getOpcode() != BO_LT || !Inc ||
      !Inc->isIncrementOp())
    return std::nullopt;
  const auto *Var = dyn_cast<DeclRefExpr>(Cond->getLHS()->IgnoreImpCasts());
  if (!Var || Var->getDecl() != VD)
    return std::nullopt;
  Expr::EvalResult Lo, Hi;
  if (VD->getInit()->isValueDependent() || Cond->getRHS()->isValueDependent() ||
      !VD->getInit()->EvaluateAsInt(Lo, Ctx) ||
      !Cond->getRHS()->EvaluateAsInt(Hi, Ctx))
    return std::nullopt;
  int64_t N = Hi.Val.getInt().getExtValue() - Lo.Val.getInt().getExtValue();
  return N > 0 ? N : 0;
}

bool isModuleOrOptimizer(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  std::string Name = RD->getQualifiedNameAsString();
  return StringRef(Name).starts_with("torch::nn::") ||
         StringRef(Name).starts_with("torch::optim::");
}

} // namespace

void enablePayloads() { Enabled = true; }
bool payloadsEnabled() { return Enabled; }
const std::vector<FindingPayload> &recordedPayloads() { return payloads(); }

void recordPayload(llvm::StringRef Check, SourceLocation DiagLoc,
                   const Stmt *Unit, bool IsLoop, ASTContext &Ctx) {
  if (!Enabled || !Unit)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  FindingPayload P;
  P.Check = Check.str();
  SourceLocation At = SM.getFileLoc(DiagLoc);
  P.File = SM.getFilename(At).str();
  P.Offset = SM.getFileOffset(At);
  P.Unit = IsLoop ? "loop" : "statement";
  SourceRange R(SM.getExpansionLoc(Unit->getBeginLoc()),
                SM.getExpansionLoc(Unit->getEndLoc()));
  CharSourceRange Chars =
      Lexer::makeFileCharRange(CharSourceRange::getTokenRange(R), SM, LO);
  if (Chars.isValid()) {
    P.UnitBegin = SM.getFileOffset(Chars.getBegin());
    P.UnitEnd = SM.getFileOffset(Chars.getEnd());
  }

  llvm::SmallPtrSet<const ValueDecl *, 8> Seen;
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl())).bind("ref")), *Unit, Ctx)) {
    const auto *VD = cast<VarDecl>(N.getNodeAs<DeclRefExpr>("ref")->getDecl());
    if (contains(R, SM.getExpansionLoc(VD->getLocation()), SM) ||
        VD->isConstexpr() || isInLibTorchHeader(VD->getLocation(), SM) ||
        !Seen.insert(VD).second || !VD->getIdentifier())
      continue;
    P.FreeVariables.push_back(
        {VD->getName().str(),
         VD->getType().getAsString(Ctx.getPrintingPolicy())});
    if (isModuleOrOptimizer(VD->getType()) && VD->isLocalVarDecl() &&
        VD->getInit() && !isa<ParmVarDecl>(VD))
      P.Constructions.push_back(
          {VD->getName().str(), sourceText(VD->getSourceRange(), SM, LO)});
  }
  // Members of the enclosing class used in the unit (this->model).
  for (const BoundNodes &N :
       match(findAll(memberExpr(has(cxxThisExpr())).bind("member")), *Unit,
             Ctx)) {
    const auto *ME = N.getNodeAs<MemberExpr>("member");
    const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl());
    if (FD && Seen.insert(FD).second)
      P.FreeVariables.push_back(
          {"this->" + FD->getName().str(),
           FD->getType().getAsString(Ctx.getPrintingPolicy())});
  }
  // Literal shapes: the braced size lists of tensor factories.
  for (const BoundNodes &N :
       match(findAll(callExpr().bind("call")), *Unit, Ctx)) {
    const auto *Call = N.getNodeAs<CallExpr>("call");
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD || !isTensorFactory(FD) || !Call->getNumArgs())
      continue;
    // The sizes are the first braced argument ({4, 8} becomes a vector or
    // an IntArrayRef, so its spelling is what tells).
    for (const Expr *Arg : Call->arguments()) {
      std::string Text = sourceText(Arg->getSourceRange(), SM, LO);
      if (StringRef(Text).starts_with("{")) {
        P.Shapes.push_back(Text);
        break;
      }
    }
  }
  // Dtypes and devices named in the unit.
  for (const BoundNodes &N :
       match(findAll(declRefExpr().bind("ref")), *Unit, Ctx)) {
    const auto *Ref = N.getNodeAs<DeclRefExpr>("ref");
    const ValueDecl *D = Ref->getDecl();
    if (!D->getIdentifier())
      continue;
    QualType T = D->getType();
    auto Add = [&](std::vector<std::string> &To) {
      std::string Name = D->getName().str();
      if (llvm::find(To, Name) == To.end())
        To.push_back(Name);
    };
    if (isEnumNamed(T, "ScalarType"))
      Add(P.Dtypes);
    else if (isEnumNamed(T, "DeviceType"))
      Add(P.Devices);
  }
  if (IsLoop)
    P.TripCount = tripCount(Unit, Ctx);
  payloads().push_back(std::move(P));
}

void recordStatementPayload(llvm::StringRef Check, SourceLocation DiagLoc,
                            const Stmt *Inner, ASTContext &Ctx) {
  if (!Enabled || !Inner)
    return;
  const Stmt *Statement = statementInBlock(Inner, Ctx).first;
  recordPayload(Check, DiagLoc, Statement ? Statement : Inner,
                /*IsLoop=*/false, Ctx);
}

} // namespace clang::tidy::torch::utils
