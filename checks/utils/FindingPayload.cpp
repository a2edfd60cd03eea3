//===--- FindingPayload.cpp - libtorch-tidy -------------------------------===//

#include "FindingPayload.h"
#include "DeviceAnalysis.h"
#include "LibTorchHeaders.h"
#include "ParentWalk.h"
#include "SourceText.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

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
  // Bounds beyond int64_t (`__int128`, large unsigned), or a difference
  // that overflows it (`for (long i = LONG_MIN; i < LONG_MAX; ++i)`): no
  // trip count rather than a wrong one, or undefined behaviour.
  std::optional<int64_t> L = Lo.Val.getInt().tryExtValue();
  std::optional<int64_t> H = Hi.Val.getInt().tryExtValue();
  int64_t N = 0;
  if (!L || !H || llvm::SubOverflow(*H, *L, N))
    return std::nullopt;
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

/// Adds the construction of \p VD, a module, optimizer or tensor built in
/// its function, after those of the variables its initializer uses (an
/// optimizer's `model->parameters()`), so the verifier can replay them in
/// order. A tensor is replayed only when everything its initializer uses
/// can be (a literal shape: `torch::randn({4, 8}, device)`); devices are
/// bound by the verifier, so they join the free variables. Returns whether
/// \p VD is replayed.
bool addConstruction(const VarDecl *VD, FindingPayload &P, ASTContext &Ctx,
                     unsigned Depth = 0) {
  if (Depth > 3 || !VD->isLocalVarDecl() || !VD->getInit() ||
      isa<ParmVarDecl>(VD))
    return false;
  bool Tensor = isTensorType(VD->getType());
  if (!Tensor && !isModuleOrOptimizer(VD->getType()))
    return false;
  std::string Name = VD->getName().str();
  if (llvm::any_of(P.Constructions,
                   [&](const auto &C) { return C.first == Name; }))
    return true;
  bool Replayable = true;
  std::vector<const VarDecl *> Devices;
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl())).bind("ref")), *VD->getInit(),
             Ctx)) {
    const auto *Used =
        cast<VarDecl>(N.getNodeAs<DeclRefExpr>("ref")->getDecl());
    if (isRecordNamed(Used->getType(), "Device"))
      Devices.push_back(Used);
    else if (!isInLibTorchHeader(Used->getLocation(),
                                 Ctx.getSourceManager()))
      Replayable &= addConstruction(Used, P, Ctx, Depth + 1);
  }
  if (Tensor && !Replayable)
    return false;
  for (const VarDecl *D : Devices) {
    std::string DName = D->getName().str();
    if (llvm::none_of(P.FreeVariables,
                      [&](const auto &F) { return F.first == DName; }))
      P.FreeVariables.push_back(
          {DName, D->getType().getAsString(Ctx.getPrintingPolicy())});
  }
  const SourceManager &SM = Ctx.getSourceManager();
  P.Constructions.push_back(
      {Name, sourceText(VD->getSourceRange(), SM, Ctx.getLangOpts())});
  return true;
}

} // namespace

void enablePayloads() { Enabled = true; }
bool payloadsEnabled() { return Enabled; }
const std::vector<FindingPayload> &recordedPayloads() { return payloads(); }

void addRecordedPayloads(std::vector<FindingPayload> More) {
  for (FindingPayload &P : More)
    payloads().push_back(std::move(P));
}

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
    // A device may have joined already, through a construction.
    if (llvm::none_of(P.FreeVariables, [&](const auto &F) {
          return F.first == VD->getName();
        }))
      P.FreeVariables.push_back(
          {VD->getName().str(),
           VD->getType().getAsString(Ctx.getPrintingPolicy())});
    addConstruction(VD, P, Ctx);
  }
  if (const auto *DS = dyn_cast<DeclStmt>(Unit))
    for (const Decl *D : DS->decls())
      if (const auto *VD = dyn_cast<VarDecl>(D); VD && VD->getIdentifier())
        P.Declarations.push_back(
            {VD->getName().str(),
             VD->getType().getAsString(Ctx.getPrintingPolicy())});
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
  // An initializer's parent is its VarDecl, not a statement: climb to the
  // declaration statement, so that the unit declares what the code makes.
  const Stmt *E = Inner;
  for (unsigned Depth = 0; E && Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*E);
    if (Parents.empty())
      break;
    if (const auto *P = Parents[0].get<Expr>()) {
      E = P;
      continue;
    }
    const auto *VD = Parents[0].get<VarDecl>();
    DynTypedNodeList Up = VD ? Ctx.getParents(*VD) : Parents;
    if (const auto *DS = VD && !Up.empty() ? Up[0].get<DeclStmt>() : nullptr)
      Inner = DS;
    break;
  }
  const Stmt *Statement = statementInBlock(Inner, Ctx).first;
  recordPayload(Check, DiagLoc, Statement ? Statement : Inner,
                /*IsLoop=*/false, Ctx);
}

} // namespace clang::tidy::torch::utils
