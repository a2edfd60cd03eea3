//===--- ConvBiasModuleAnalysis.cpp - libtorch-tidy -----------------------===//
//
// Finds the convolutions whose output goes straight into a BatchNorm: in a
// Sequential, through push_back, through members called in a method, and
// through user modules that return a convolution's output. A use it does not
// understand keeps the convolution out.
//
//===----------------------------------------------------------------------===//

#include "ConvBiasModuleAnalysis.h"
#include "clang-tidy/utils/DeclRefExprUtils.h"
#include "utils/ConstantFacts.h"
#include "utils/ParentWalk.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::convbias {

/// The name a module is held under: a member, a variable, or the name of a
/// Sequential entry.
static std::string nameOfHolder(const Expr *E) {
  E = strip(E);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && OC->getOperator() == OO_Arrow)
    E = strip(OC->getArg(0));
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->getMemberDecl()->getNameAsString();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return DRE->getDecl()->getNameAsString();
  return "";
}

BatchNormUse describeBatchNorm(const std::string &TypeName,
                               const std::string &Name, SourceLocation Loc) {
  BatchNormUse U;
  U.Type = TypeName;
  U.Name = Name;
  U.Loc = Loc;
  return U;
}

std::optional<ModuleCall> asModuleCall(const Expr *E) {
  E = strip(E);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (OC->getOperator() == OO_Call && OC->getNumArgs() == 2 &&
        moduleType(OC->getArg(0)->getType()).Kind != ModuleKind::None)
      return ModuleCall{OC->getArg(0), OC->getArg(1)};
    return std::nullopt;
  }
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    // Without the cast to the base class that declares forward().
    const Expr *Obj = MC->getImplicitObjectArgument();
    Obj = Obj ? Obj->IgnoreParenImpCasts() : nullptr;
    if (!M || !M->getIdentifier() || M->getName() != "forward" || !Obj ||
        MC->getNumArgs() != 1)
      return std::nullopt;
    QualType T = Obj->getType();
    if (T->isPointerType())
      T = T->getPointeeType();
    if (moduleType(T).Kind == ModuleKind::None)
      return std::nullopt;
    return ModuleCall{Obj, MC->getArg(0)};
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Sequential
//===----------------------------------------------------------------------===//

static std::string stringLiteralIn(const Expr *E) {
  for (const Stmt *S = E; S;) {
    if (const auto *SL = dyn_cast<StringLiteral>(S))
      return SL->getString().str();
    auto Children = S->children();
    S = Children.empty() ? nullptr : *Children.begin();
  }
  return "";
}

std::vector<Entry> sequentialEntries(const CXXConstructExpr *CE) {
  std::vector<Entry> Entries;
  if (CE->getNumArgs() == 1)
    if (const auto *IL =
            dyn_cast<CXXStdInitializerListExpr>(strip(CE->getArg(0)))) {
      const auto *List = dyn_cast<InitListExpr>(strip(IL->getSubExpr()));
      if (!List)
        return Entries;
      for (const Expr *Init : List->inits()) {
        const auto *Named = dyn_cast<CXXConstructExpr>(strip(Init));
        if (!Named || Named->getNumArgs() != 2)
          return {};
        Entries.push_back(
            {Named->getArg(1), stringLiteralIn(Named->getArg(0))});
      }
      return Entries;
    }
  for (const Expr *Arg : CE->arguments())
    if (!isa<CXXDefaultArgExpr>(Arg))
      Entries.push_back({Arg, ""});
  return Entries;
}

static const Stmt *nextStatement(const Stmt *S, const CompoundStmt *C) {
  for (auto It = C->body_begin(), End = C->body_end(); It != End; ++It)
    if (*It == S)
      return std::next(It) == End ? nullptr : *std::next(It);
  return nullptr;
}

/// The declaration a Sequential is reached through: `seq->push_back` or
/// `this->seq->push_back`.
static const ValueDecl *pushBackTarget(const CXXMemberCallExpr *Call) {
  const Expr *Obj = strip(Call->getImplicitObjectArgument());
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Obj);
      OC && OC->getOperator() == OO_Arrow)
    Obj = strip(OC->getArg(0));
  if (const auto *ME = dyn_cast<MemberExpr>(Obj))
    return isa<CXXThisExpr>(ME->getBase()->IgnoreParenImpCasts())
               ? ME->getMemberDecl()
               : nullptr;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(Obj))
    return DRE->getDecl();
  return nullptr;
}

static const CXXMemberCallExpr *asPushBack(const Stmt *S) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  const auto *Call = E ? dyn_cast<CXXMemberCallExpr>(strip(E)) : nullptr;
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || M->getName() != "push_back" ||
      M->getParent()->getName() != "SequentialImpl" || Call->getNumArgs() == 0)
    return nullptr;
  return Call;
}

/// `if (use_bn) S;` or `if (use_bn) { S; ... }` without an else: the first
/// statement S, and in \p Flag the condition.
static const Stmt *guardedStatement(const Stmt *S, const Expr *&Flag) {
  const auto *If = dyn_cast_or_null<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return nullptr;
  const Stmt *Then = If->getThen();
  if (const auto *Block = dyn_cast<CompoundStmt>(Then))
    Then = Block->body_empty() ? nullptr : Block->body_front();
  if (Then)
    Flag = If->getCond();
  return Then;
}

/// `if (use_bn) seq->push_back(...);`, also with braces around the
/// push_back and more statements after it: the push_back and the condition.
static std::pair<const CXXMemberCallExpr *, const Expr *>
pushBackUnderFlag(const Stmt *S) {
  const Expr *Flag = nullptr;
  const CXXMemberCallExpr *Push = asPushBack(guardedStatement(S, Flag));
  if (!Push)
    return {};
  return {Push, Flag};
}

/// The BatchNorm that the statement after \p Push, a push_back of a
/// convolution, pushes onto the same Sequential, unconditionally or under a
/// flag that may hold.
std::optional<BatchNormUse> pushedBatchNorm(const CXXMemberCallExpr *Push,
                                            ASTContext &Ctx) {
  const Expr *ConvArg = Push->getArg(Push->getNumArgs() - 1);
  ModuleKind Kind = moduleType(ConvArg->getType()).Kind;
  if (Kind != ModuleKind::Conv && Kind != ModuleKind::Other)
    return std::nullopt;
  auto [Statement, Compound] = utils::statementInBlock(Push, Ctx);
  if (!Compound || asPushBack(Statement) != Push)
    return std::nullopt;
  const Stmt *Next = nextStatement(Statement, Compound);
  const CXXMemberCallExpr *NextPush = asPushBack(Next);
  const Expr *Flag = nullptr;
  if (!NextPush)
    std::tie(NextPush, Flag) = pushBackUnderFlag(Next);
  const ValueDecl *Target = pushBackTarget(Push);
  if (!NextPush || !Target || pushBackTarget(NextPush) != Target)
    return std::nullopt;
  // A flag that is provably false adds no BatchNorm.
  if (Flag && utils::provableBool(Flag, Ctx) == false)
    return std::nullopt;
  const Expr *BNArg = NextPush->getArg(NextPush->getNumArgs() - 1);
  ModuleType BN = moduleType(BNArg->getType());
  if (BN.Kind != ModuleKind::BatchNorm)
    return std::nullopt;
  std::string Name =
      NextPush->getNumArgs() == 2 ? stringLiteralIn(NextPush->getArg(0)) : "";
  BatchNormUse Use =
      describeBatchNorm(BN.Name, Name, strip(BNArg)->getBeginLoc());
  Use.Flag = Flag;
  return Use;
}

/// \p Module, followed by \p BN: a convolution, or a module of the user's
/// that may return one's output.
void addCandidate(TUState &TU, BiasAnalyzer &Analyzer, const Expr *Module,
                  BatchNormUse BN) {
  ModuleKind Kind = moduleType(Module->getType()).Kind;
  if (Kind == ModuleKind::Other && !BN.Flag)
    TU.UserModules.push_back({Module, BN});
  if (Kind != ModuleKind::Conv)
    return;
  BiasSite Site = Analyzer.ofModule(Module);
  if (Site.State == Bias::On)
    TU.Candidates.push_back({strip(Module), std::move(Site), std::move(BN)});
}

//===----------------------------------------------------------------------===//
// Members and forward()
//===----------------------------------------------------------------------===//

namespace {

/// Finds, for the convolution members of one class, whether every call of
/// each goes straight into a BatchNorm, and where each is built.
class MemberAnalysis {
public:
  MemberAnalysis(ASTContext &Ctx, const UseCollector &Uses)
      : Ctx(Ctx), Uses(Uses) {}

  /// The BatchNorm every call of \p Field feeds, and the expressions that
  /// build it; std::nullopt when a use of the field is not understood.
  std::optional<std::pair<BatchNormUse, std::vector<const Expr *>>>
  analyze(const FieldDecl *Field, const CXXRecordDecl *RD);

private:
  /// The variable a convolution's output is stored in.
  struct Assigned {
    const VarDecl *Var;
    const Stmt *Statement;
    bool Declared;
  };

  enum class UseKind { Assigned, Called, Ignored, Other };
  struct Use {
    UseKind Kind;
    const Expr *E; // the value assigned, or the call
  };

  Use classify(const MemberExpr *Member);
  std::optional<BatchNormUse> consumer(const Expr *Call);
  std::optional<Assigned> assignedTo(const Stmt *Child, const Stmt *Parent);
  std::optional<BatchNormUse> consumerInNextStatement(const Assigned &Out);
  const DeclRefExpr *singleRead(const Stmt *S, const VarDecl *Var,
                                const DeclRefExpr *Skip);
  std::optional<BatchNormUse> batchNormTaking(const DeclRefExpr *Ref);
  bool readAfter(const CompoundStmt *Compound, const Stmt *After,
                 const VarDecl *Var);
  const Stmt *skipUp(const Stmt *S, const Stmt **Child);

  ASTContext &Ctx;
  const UseCollector &Uses;
};

} // namespace

/// The parent of \p S above implicit casts, parentheses and temporaries;
/// \p Child receives the node right below it.
const Stmt *MemberAnalysis::skipUp(const Stmt *S, const Stmt **Child) {
  while (S) {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    const Stmt *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!P ||
        !(isa<ImplicitCastExpr, ParenExpr, MaterializeTemporaryExpr,
              CXXBindTemporaryExpr, ExprWithCleanups, CXXFunctionalCastExpr>(
              P) ||
          (isa<CXXConstructExpr>(P) &&
           cast<CXXConstructExpr>(P)->getNumArgs() == 1 &&
           cast<CXXConstructExpr>(P)
               ->getConstructor()
               ->isCopyOrMoveConstructor()))) {
      if (Child)
        *Child = S;
      return P;
    }
    S = P;
  }
  return nullptr;
}

/// The BatchNorm called by \p E, a module call, with its name.
static std::optional<BatchNormUse> batchNormOf(const Expr *E) {
  std::optional<ModuleCall> MC = E ? asModuleCall(E) : std::nullopt;
  if (!MC)
    return std::nullopt;
  QualType T = MC->Module->getType();
  if (T->isPointerType())
    T = T->getPointeeType();
  ModuleType BN = moduleType(T);
  if (BN.Kind != ModuleKind::BatchNorm)
    return std::nullopt;
  return describeBatchNorm(BN.Name, nameOfHolder(MC->Module),
                           strip(MC->Module)->getBeginLoc());
}

/// The BatchNorm that takes the result of \p Call, a call of a convolution
/// module, as its input and nothing else does.
std::optional<BatchNormUse> MemberAnalysis::consumer(const Expr *Call) {
  const Stmt *Child = nullptr;
  const Stmt *Parent = skipUp(Call, &Child);
  // bn(conv(x)), bn->forward(conv->forward(x))
  if (const auto *ParentCall = dyn_cast_or_null<Expr>(Parent))
    if (std::optional<ModuleCall> MC = asModuleCall(ParentCall);
        MC && stripCopies(MC->Input) == strip(Call))
      return batchNormOf(ParentCall);
  // auto y = conv(x);  /  x = conv(x);  followed by  y = bn(y);
  std::optional<Assigned> Out = assignedTo(Child, Parent);
  if (!Out)
    return std::nullopt;
  return consumerInNextStatement(*Out);
}

/// `auto y = conv(x);` or `x = conv(x);`: the variable and the statement.
std::optional<MemberAnalysis::Assigned>
MemberAnalysis::assignedTo(const Stmt *Child, const Stmt *Parent) {
  DynTypedNodeList Parents = Ctx.getParents(*Child);
  if (const auto *VD = Parents.empty() ? nullptr : Parents[0].get<VarDecl>()) {
    for (const DynTypedNode &P : Ctx.getParents(*VD))
      if (const auto *DS = P.get<DeclStmt>(); DS && DS->isSingleDecl())
        return Assigned{VD, DS, /*Declared=*/true};
    return std::nullopt;
  }
  const auto *Assign = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
  if (!Assign || Assign->getOperator() != OO_Equal ||
      Assign->getNumArgs() != 2 || Assign->getArg(1) != Child)
    return std::nullopt;
  const auto *DRE = dyn_cast<DeclRefExpr>(strip(Assign->getArg(0)));
  const auto *Var = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!Var)
    return std::nullopt;
  // The statement is the assignment with its cleanups; it has to be a
  // statement of the compound, not part of a larger expression.
  const Stmt *Above = Assign;
  skipUp(Assign, &Above);
  return Assigned{Var, Above, /*Declared=*/false};
}

/// `x = bn(x)` as statement \p S: the reference to \p Var it assigns.
static const DeclRefExpr *overwrites(const Stmt *S, const VarDecl *Var) {
  const auto *E = dyn_cast<Expr>(S);
  const auto *Assign = E ? dyn_cast<CXXOperatorCallExpr>(strip(E)) : nullptr;
  if (!Assign || Assign->getOperator() != OO_Equal)
    return nullptr;
  const auto *LHS = dyn_cast<DeclRefExpr>(strip(Assign->getArg(0)));
  return LHS && LHS->getDecl() == Var ? LHS : nullptr;
}

/// The only reference to \p Var in \p S besides \p Skip.
const DeclRefExpr *MemberAnalysis::singleRead(const Stmt *S, const VarDecl *Var,
                                              const DeclRefExpr *Skip) {
  const DeclRefExpr *Ref = nullptr;
  for (const DeclRefExpr *R :
       tidy::utils::decl_ref_expr::allDeclRefExprs(*Var, *S, Ctx)) {
    if (R == Skip)
      continue;
    if (Ref)
      return nullptr;
    Ref = R;
  }
  return Ref;
}

/// The BatchNorm whose input is \p Ref.
std::optional<BatchNormUse>
MemberAnalysis::batchNormTaking(const DeclRefExpr *Ref) {
  const Stmt *RefChild = nullptr;
  const auto *BNCall = dyn_cast_or_null<Expr>(skipUp(Ref, &RefChild));
  std::optional<ModuleCall> MC = BNCall ? asModuleCall(BNCall) : std::nullopt;
  if (!MC || stripCopies(MC->Input) != Ref)
    return std::nullopt;
  return batchNormOf(BNCall);
}

bool MemberAnalysis::readAfter(const CompoundStmt *Compound, const Stmt *After,
                               const VarDecl *Var) {
  bool Past = false;
  for (const Stmt *S : Compound->body()) {
    if (Past &&
        !tidy::utils::decl_ref_expr::allDeclRefExprs(*Var, *S, Ctx).empty())
      return true;
    if (S == After)
      Past = true;
  }
  return false;
}

/// The statement after \p Out's: a BatchNorm of the variable, maybe under a
/// flag (`if (use_bn) x = bn(x);`), after which the convolution's output is
/// not read again.
std::optional<BatchNormUse>
MemberAnalysis::consumerInNextStatement(const Assigned &Out) {
  auto [Stmt0, Compound] = utils::statementInBlock(Out.Statement, Ctx);
  if (Stmt0 != Out.Statement || !Compound)
    return std::nullopt;
  const Stmt *Next = nextStatement(Out.Statement, Compound);
  const Stmt *Statement = Next;
  const Expr *Flag = nullptr;
  if (const Stmt *Guarded = guardedStatement(Next, Flag))
    Next = Guarded;
  if (!Next || (Flag && utils::provableBool(Flag, Ctx) == false))
    return std::nullopt;
  // `x = bn(x);` overwrites the convolution's output: the variable is not
  // read after the BatchNorm.
  const DeclRefExpr *Overwritten = overwrites(Next, Out.Var);
  if (Flag && !Overwritten)
    return std::nullopt;
  const DeclRefExpr *Ref = singleRead(Next, Out.Var, Overwritten);
  std::optional<BatchNormUse> BN = Ref ? batchNormTaking(Ref) : std::nullopt;
  if (!BN)
    return std::nullopt;
  BN->Flag = Flag;
  // The convolution's output must not be read after the BatchNorm: either
  // the next statement overwrites the variable, or nothing reads it again.
  if (Overwritten)
    return BN;
  if (!Out.Declared || readAfter(Compound, Statement, Out.Var))
    return std::nullopt;
  return BN;
}

/// The expressions that build \p Field where it is declared and in the
/// constructors' initializer lists.
static std::vector<const Expr *> initializersOf(const FieldDecl *Field,
                                                const CXXRecordDecl *RD) {
  std::vector<const Expr *> Sources;
  if (const Expr *Init = Field->getInClassInitializer())
    Sources.push_back(Init);
  for (const CXXConstructorDecl *Ctor : RD->ctors()) {
    const auto *Def =
        dyn_cast_or_null<CXXConstructorDecl>(Ctor->getDefinition());
    if (!Def)
      continue;
    for (const CXXCtorInitializer *Init : Def->inits())
      if (Init->getMember() == Field && Init->isWritten() &&
          !isa<CXXDefaultInitExpr>(Init->getInit()))
        Sources.push_back(Init->getInit());
  }
  return Sources;
}

/// What a use of a convolution member does.
MemberAnalysis::Use MemberAnalysis::classify(const MemberExpr *Member) {
  const Stmt *Child = nullptr;
  const Stmt *Parent = skipUp(Member, &Child);
  const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
  // conv = register_module(...)  /  conv = Conv2d(...)
  if (OC && OC->getOperator() == OO_Equal && OC->getArg(0) == Child)
    return {UseKind::Assigned, OC->getArg(1)};
  // register_module("conv", conv)
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
      Call && !OC &&
      isTorchNnModuleMethod(Call->getDirectCallee(), "register_module"))
    return {UseKind::Ignored, nullptr};
  // if (conv)
  if (const auto *ME = dyn_cast_or_null<MemberExpr>(Parent);
      ME && isa<CXXConversionDecl>(ME->getMemberDecl()))
    return {UseKind::Ignored, nullptr};
  // conv(x)
  if (OC && OC->getOperator() == OO_Call && OC->getArg(0) == Child)
    return {UseKind::Called, OC};
  // conv->forward(x)
  if (OC && OC->getOperator() == OO_Arrow)
    if (const Stmt *Up = skipUp(OC, nullptr))
      if (const auto *ME = dyn_cast<MemberExpr>(Up))
        if (const Stmt *Up2 = skipUp(ME, nullptr))
          if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Up2);
              MC && MC->getCallee()->IgnoreParens() == ME && asModuleCall(MC))
            return {UseKind::Called, MC};
  return {UseKind::Other, nullptr};
}

std::optional<std::pair<BatchNormUse, std::vector<const Expr *>>>
MemberAnalysis::analyze(const FieldDecl *Field, const CXXRecordDecl *RD) {
  std::vector<const Expr *> Sources = initializersOf(Field, RD);
  std::optional<BatchNormUse> First;
  auto It = Uses.FieldUses.find(Field);
  if (It == Uses.FieldUses.end())
    return std::nullopt;
  for (const MemberExpr *ME : It->second) {
    Use U = classify(ME);
    if (U.Kind == UseKind::Assigned)
      Sources.push_back(U.E);
    if (U.Kind == UseKind::Other)
      return std::nullopt;
    if (U.Kind != UseKind::Called)
      continue;
    std::optional<BatchNormUse> BN = consumer(U.E);
    if (!BN)
      return std::nullopt;
    if (!First)
      First = BN;
  }
  if (!First || Sources.empty())
    return std::nullopt;
  return std::make_pair(*First, Sources);
}

//===----------------------------------------------------------------------===//
// Modules whose constructor decides the bias from a parameter
//===----------------------------------------------------------------------===//

namespace {

/// One construction of a module class: `ConvBlock(3, 64)` (the holder
/// forwards its arguments), `ConvBlockImpl(3, 64)` or
/// `std::make_shared<ConvBlockImpl>(3, 64)`.
struct Construction {
  const Expr *At = nullptr;
  Binding Args; // Callee set only where the constructor is named
};

} // namespace

/// `Block(nullptr)`, `Block(std::make_shared<BlockImpl>(...))`.
static bool takesModule(const Expr *Arg) {
  QualType T = strip(Arg)->getType();
  return T->isNullPtrType() || moduleClass(T) != T->getAsCXXRecordDecl();
}

/// \p E as a construction of module class \p RD with arguments.
static std::optional<Construction> constructionAt(const Expr *E,
                                                  const CXXRecordDecl *RD) {
  Construction C;
  C.At = E;
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = CE->getConstructor();
    if (moduleClass(CE->getType()) != RD || Ctor->isCopyOrMoveConstructor() ||
        CE->getNumArgs() == 0 || takesModule(CE->getArg(0)))
      return std::nullopt;
    if (Ctor->getParent() == RD)
      C.Args.Callee = Ctor;
    for (const Expr *Arg : CE->arguments())
      C.Args.Args.push_back(Arg);
    C.Args.Close = CE->getParenOrBraceRange().getEnd();
    return C;
  }
  const auto *Call = dyn_cast<CallExpr>(E);
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || FD->getName() != "make_shared" ||
      !FD->isInStdNamespace() || Call->getNumArgs() == 0 ||
      moduleClass(Call->getType()) != RD || takesModule(Call->getArg(0)))
    return std::nullopt;
  for (const Expr *Arg : Call->arguments())
    C.Args.Args.push_back(Arg);
  C.Args.Close = Call->getRParenLoc();
  return C;
}

namespace {

class ConstructionCollector : public UserCodeVisitor<ConstructionCollector> {
public:
  using UserCodeVisitor::UserCodeVisitor;
  llvm::SmallPtrSet<const CXXRecordDecl *, 4> Classes;
  llvm::DenseMap<const CXXRecordDecl *, std::vector<Construction>> Found;

  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    add(CE, moduleClass(CE->getType()));
    return true;
  }
  bool VisitCallExpr(CallExpr *Call) {
    add(Call, moduleClass(Call->getType()));
    return true;
  }

private:
  void add(const Expr *E, const CXXRecordDecl *RD) {
    if (!RD || !Classes.count(RD))
      return;
    if (std::optional<Construction> C = constructionAt(E, RD))
      Found[RD].push_back(std::move(*C));
  }
};

} // namespace

/// The one user-written constructor of \p RD that takes \p N arguments.
static const CXXConstructorDecl *constructorFor(const CXXRecordDecl *RD,
                                                unsigned N) {
  const CXXConstructorDecl *Found = nullptr;
  for (const CXXConstructorDecl *C : RD->ctors()) {
    if (C->isImplicit() || C->isCopyOrMoveConstructor() ||
        C->getMinRequiredArguments() > N || N > C->getNumParams())
      continue;
    if (Found)
      return nullptr;
    Found = C;
  }
  return Found;
}

/// The constructor of \p RD whose definition holds \p Source.
static const CXXConstructorDecl *constructorHolding(const CXXRecordDecl *RD,
                                                    const Expr *Source,
                                                    const SourceManager &SM) {
  SourceLocation L = Source->getBeginLoc();
  for (const CXXConstructorDecl *C : RD->ctors()) {
    const auto *Def = dyn_cast_or_null<CXXConstructorDecl>(C->getDefinition());
    if (!Def || Def->isImplicit())
      continue;
    SourceRange R = Def->getSourceRange();
    if (!SM.isBeforeInTranslationUnit(L, R.getBegin()) &&
        !SM.isBeforeInTranslationUnit(R.getEnd(), L))
      return Def;
  }
  return nullptr;
}

namespace {

/// A convolution member whose bias a constructor parameter decides.
struct PendingMember {
  const CXXRecordDecl *RD;
  const FieldDecl *Field;
  const Expr *Source;
  BatchNormUse BatchNorm;
};

} // namespace

static std::optional<BiasSite> boundSite(BiasAnalyzer &Analyzer,
                                         const CXXRecordDecl *RD,
                                         const CXXConstructorDecl *Ctor,
                                         const Expr *Source, Construction C);

/// Reports, at each construction of the class that turns the bias on
/// (usually by taking the parameter's default), the members in \p Pending.
static void bindConstructions(TUState &S, BiasAnalyzer &Analyzer,
                              const std::vector<PendingMember> &Pending) {
  ConstructionCollector Constructions(*S.SM);
  for (const PendingMember &P : Pending)
    Constructions.Classes.insert(P.RD);
  Constructions.visitUserCode(*S.Ctx);
  for (const PendingMember &P : Pending) {
    const CXXConstructorDecl *Ctor = constructorHolding(P.RD, P.Source, *S.SM);
    if (!Ctor)
      continue;
    for (const Construction &C : Constructions.Found.lookup(P.RD))
      if (std::optional<BiasSite> Site =
              boundSite(Analyzer, P.RD, Ctor, P.Source, C))
        S.Candidates.push_back({strip(P.Source), std::move(*Site), P.BatchNorm,
                                P.Field->getNameAsString()});
  }
}

/// The bias of \p Source, a member's initializer in constructor \p Ctor of
/// \p RD, at construction \p C, when a parameter turns it on there.
static std::optional<BiasSite> boundSite(BiasAnalyzer &Analyzer,
                                         const CXXRecordDecl *RD,
                                         const CXXConstructorDecl *Ctor,
                                         const Expr *Source, Construction C) {
  if (!C.Args.Callee)
    C.Args.Callee = constructorFor(RD, C.Args.Args.size());
  if (!C.Args.Callee ||
      C.Args.Callee->getCanonicalDecl() != Ctor->getCanonicalDecl())
    return std::nullopt;
  C.Args.Callee = Ctor;
  BiasSite Site = Analyzer.ofModuleWith(Source, C.Args);
  if (Site.State != Bias::On || Site.ParamOwner != Ctor)
    return std::nullopt;
  Site.Helper = Ctor;
  Site.Built = C.At;
  return Site;
}

/// `conv(x)` or `conv->forward(x)` with `conv` a convolution member of the
/// class: the member.
static const FieldDecl *calledConvMember(const Expr *E) {
  std::optional<ModuleCall> MC =
      E ? asModuleCall(stripCopies(E)) : std::nullopt;
  if (!MC)
    return nullptr;
  const Expr *Module = strip(MC->Module);
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(Module);
      OC && OC->getOperator() == OO_Arrow)
    Module = strip(OC->getArg(0));
  const auto *ME = dyn_cast<MemberExpr>(Module);
  const auto *F = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!F || !isa<CXXThisExpr>(ME->getBase()->IgnoreImpCasts()) ||
      moduleType(F->getType()).Kind != ModuleKind::Conv)
    return nullptr;
  return F;
}

/// What \p R returns: its value, or for `x = conv->forward(x); return x;`
/// the value assigned to the local variable in the statement right before.
static const Expr *returnedValue(const ReturnStmt *R, ASTContext &Ctx) {
  const Expr *Value = R->getRetValue();
  const auto *Ref =
      Value ? dyn_cast<DeclRefExpr>(stripCopies(Value)->IgnoreParenImpCasts())
            : nullptr;
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->isLocalVarDeclOrParm())
    return Value;
  auto Parents = Ctx.getParents(*R);
  const auto *Block =
      Parents.empty() ? nullptr : Parents[0].get<CompoundStmt>();
  if (!Block)
    return Value;
  const Stmt *Before = nullptr;
  for (const Stmt *S : Block->body()) {
    if (S == R)
      break;
    Before = S;
  }
  const auto *BeforeExpr = dyn_cast_or_null<Expr>(Before);
  const auto *Assign = BeforeExpr ? dyn_cast<CXXOperatorCallExpr>(
                                        BeforeExpr->IgnoreImplicit())
                                  : nullptr;
  if (!Assign || Assign->getOperator() != OO_Equal ||
      Assign->getNumArgs() != 2)
    return Value;
  const auto *Target =
      dyn_cast<DeclRefExpr>(Assign->getArg(0)->IgnoreParenImpCasts());
  return Target && Target->getDecl() == Var ? Assign->getArg(1) : Value;
}

/// A module class of the user's whose forward returns the output of one of
/// its convolution members, `return conv(x);`, which nothing else outside
/// the constructors uses: that member.
static const FieldDecl *forwardedConv(const CXXRecordDecl *RD,
                                      ASTContext &Ctx) {
  if (!RD || !RD->hasDefinition() || isInTorchNn(RD))
    return nullptr;
  RD = RD->getDefinition();
  const FieldDecl *Found = nullptr;
  size_t Returns = 0;
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = M->getDefinition();
    if (!M->getIdentifier() || M->getName() != "forward" || !Def ||
        !Def->hasBody())
      continue;
    ReturnCollector Collector;
    Collector.TraverseStmt(Def->getBody());
    for (const ReturnStmt *R : Collector.Returns) {
      const FieldDecl *F = calledConvMember(returnedValue(R, Ctx));
      if (!F || (Found && F != Found))
        return nullptr;
      Found = F;
      ++Returns;
    }
  }
  if (!Found)
    return nullptr;
  size_t Uses = 0;
  for (const CXXMethodDecl *M : RD->methods())
    if (const FunctionDecl *Def = M->getDefinition();
        Def && Def->hasBody() && !isa<CXXConstructorDecl>(M))
      Uses += match(findAll(memberExpr(member(equalsNode(Found)))),
                    *Def->getBody(), Ctx)
                  .size();
  return Uses == Returns ? Found : nullptr;
}

/// The initializers of member \p F, and what the constructors' bodies
/// assign to it.
static std::vector<const Expr *>
memberSources(const FieldDecl *F, const CXXRecordDecl *RD, ASTContext &Ctx) {
  std::vector<const Expr *> Sources = initializersOf(F, RD);
  auto Assigned = cxxOperatorCallExpr(
      hasOverloadedOperatorName("="),
      hasArgument(0, ignoringParenImpCasts(memberExpr(member(equalsNode(F))))),
      hasArgument(1, expr().bind("value")));
  for (const CXXConstructorDecl *Ctor : RD->ctors())
    if (const FunctionDecl *Def = Ctor->getDefinition(); Def && Def->hasBody())
      for (const BoundNodes &N : match(findAll(Assigned), *Def->getBody(), Ctx))
        Sources.push_back(N.getNodeAs<Expr>("value"));
  return Sources;
}

std::vector<ForwardedConvBias>
forwardedConvBiases(const CXXRecordDecl *RD, ASTContext &Ctx,
                    const SourceManager &SM) {
  std::vector<ForwardedConvBias> Out;
  const FieldDecl *F = forwardedConv(RD, Ctx);
  if (!F)
    return Out;
  BiasAnalyzer Analyzer(Ctx, SM);
  llvm::SmallPtrSet<const CXXConstructorDecl *, 4> Seen, Twice;
  for (const Expr *Source : memberSources(F, RD->getDefinition(), Ctx)) {
    const CXXConstructorDecl *Ctor = constructorHolding(RD, Source, SM);
    if (!Ctor)
      continue;
    if (!Seen.insert(Ctor).second)
      Twice.insert(Ctor);
    BiasSite Site = Analyzer.ofModuleUnbound(Source);
    if (!Site.FromParameter || !Site.BiasArgument || !Site.ParamOwner ||
        Site.ParamOwner->getCanonicalDecl() != Ctor->getCanonicalDecl())
      continue;
    Out.push_back({Ctor, F->getNameAsString(), moduleType(F->getType()).Name,
                   Site.FromParameter, Site.BiasArgument->getBeginLoc()});
  }
  // A member built twice by one constructor: which build counts is not
  // the index's to say.
  llvm::erase_if(Out, [&](const ForwardedConvBias &B) {
    return Twice.count(B.Ctor) != 0;
  });
  return Out;
}

/// A module of the user's whose forward() and constructor are in another
/// file, followed by a BatchNorm: reported where the construction turns the
/// convolution's bias on through a parameter, as the project index says the
/// constructor uses it.
static void bindIndexedModule(TUState &S, BiasAnalyzer &Analyzer,
                              const ModuleEntry &E, const CXXRecordDecl *RD) {
  std::optional<Construction> C = constructionAt(stripCopies(E.Module), RD);
  if (!C)
    return;
  if (!C->Args.Callee)
    C->Args.Callee = constructorFor(RD, C->Args.Args.size());
  const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(C->Args.Callee);
  const utils::ConvModuleFact *Fact =
      Ctor ? S.Index->convModule(utils::usrOf(Ctor)) : nullptr;
  if (!Fact || Fact->Param < 0 ||
      static_cast<unsigned>(Fact->Param) >= Ctor->getNumParams())
    return;
  BiasSite Site =
      Analyzer.ofParameterElsewhere(Ctor->getParamDecl(Fact->Param), C->Args);
  if (Site.State != Bias::On)
    return;
  Site.SetElsewhere = Fact->Where.File + ":" + std::to_string(Fact->Where.Line);
  Site.Helper = Ctor;
  Site.Built = C->At;
  Candidate Found{strip(E.Module), std::move(Site), E.BatchNorm, Fact->Member};
  Found.Conv = Fact->Conv;
  S.Candidates.push_back(std::move(Found));
}

/// User modules whose forward returns a convolution's output, followed by a
/// BatchNorm: `Sequential(ConvBlock(3, 64), BatchNorm2d(64))`, reported
/// where the construction turns the bias on through a parameter.
void bindUserModules(TUState &S, BiasAnalyzer &Analyzer) {
  for (const ModuleEntry &E : S.UserModules) {
    const CXXRecordDecl *RD = moduleClass(E.Module->getType());
    const FieldDecl *F = forwardedConv(RD, *S.Ctx);
    if (!F && RD && S.Index) {
      bindIndexedModule(S, Analyzer, E, RD);
      continue;
    }
    std::optional<Construction> C =
        F ? constructionAt(stripCopies(E.Module), RD) : std::nullopt;
    if (!C)
      continue;
    for (const Expr *Source : memberSources(F, RD, *S.Ctx)) {
      const CXXConstructorDecl *Ctor = constructorHolding(RD, Source, *S.SM);
      if (!Ctor)
        continue;
      if (std::optional<BiasSite> Site =
              boundSite(Analyzer, RD, Ctor, Source, *C))
        S.Candidates.push_back({strip(Source), std::move(*Site), E.BatchNorm,
                                F->getNameAsString()});
    }
  }
}

/// The candidates built by \p Sources, the constructions of member
/// \p Member.Field; those a constructor parameter decides go to \p Pending.
static void addMemberSources(TUState &S, BiasAnalyzer &Analyzer,
                             const PendingMember &Member,
                             const std::vector<const Expr *> &Sources,
                             std::vector<PendingMember> &Pending) {
  for (const Expr *Source : Sources) {
    BiasSite Site = Analyzer.ofModule(Source);
    if (Site.State == Bias::On)
      S.Candidates.push_back(
          {strip(Source), std::move(Site), Member.BatchNorm});
    else if (Site.State == Bias::Unknown && !Member.BatchNorm.Flag)
      Pending.push_back({Member.RD, Member.Field, Source, Member.BatchNorm});
  }
}

/// Convolution members of the user's classes that feed a BatchNorm.
void collectMemberCandidates(TUState &S, BiasAnalyzer &Analyzer) {
  if (S.ClassesWithConvs.empty())
    return;
  UseCollector Uses(*S.SM);
  for (const CXXRecordDecl *RD : S.ClassesWithConvs)
    for (const FieldDecl *F : RD->fields())
      if (moduleType(F->getType()).Kind == ModuleKind::Conv)
        Uses.Fields.insert(F);
  Uses.visitUserCode(*S.Ctx);
  MemberAnalysis Members(*S.Ctx, Uses);
  std::vector<PendingMember> Pending;
  for (const CXXRecordDecl *RD : S.ClassesWithConvs)
    for (const FieldDecl *F : RD->fields())
      if (Uses.Fields.count(F))
        if (auto Found = Members.analyze(F, RD))
          addMemberSources(S, Analyzer, {RD, F, nullptr, Found->first},
                           Found->second, Pending);
  if (!Pending.empty())
    bindConstructions(S, Analyzer, Pending);
}

bool isUserModuleField(const FieldDecl *F) {
  const CXXRecordDecl *RD = moduleClass(F->getType());
  return RD && moduleType(F->getType()).Kind == ModuleKind::Other &&
         !isInTorchNn(RD) && RD != F->getType()->getAsCXXRecordDecl();
}

void collectIndexedMembers(TUState &S, BiasAnalyzer &Analyzer) {
  if (!S.Index || S.ClassesWithModules.empty())
    return;
  UseCollector Uses(*S.SM);
  for (const CXXRecordDecl *RD : S.ClassesWithModules)
    for (const FieldDecl *F : RD->fields())
      if (isUserModuleField(F))
        Uses.Fields.insert(F);
  Uses.visitUserCode(*S.Ctx);
  MemberAnalysis Members(*S.Ctx, Uses);
  for (const CXXRecordDecl *RD : S.ClassesWithModules)
    for (const FieldDecl *F : RD->fields()) {
      const CXXRecordDecl *Held = moduleClass(F->getType());
      // What this file shows of the module class is the file's to decide.
      if (!Uses.Fields.count(F) || forwardedConv(Held, *S.Ctx))
        continue;
      if (auto Found = Members.analyze(F, RD); Found && !Found->first.Flag)
        for (const Expr *Source : Found->second)
          bindIndexedModule(S, Analyzer, {Source, Found->first}, Held);
    }
}

/// One diagnostic per construction, in source order. A BatchNorm under a
/// flag next to a bias from a parameter is left alone: the two may be tied
/// (`Block(c, /*use_bn=*/false)` building the conv with `.bias(!use_bn)`).
std::vector<Candidate> uniqueCandidates(TUState &S) {
  const SourceManager &SM = *S.SM;
  llvm::SmallPtrSet<const Expr *, 16> Seen;
  std::vector<Candidate> Candidates;
  for (Candidate &C : S.Candidates)
    if (!utils::isInLibTorchHeader(C.reportAt()->getBeginLoc(), SM) &&
        !(C.BatchNorm.Flag && C.Site.FromParameter) &&
        Seen.insert(C.reportAt()).second)
      Candidates.push_back(std::move(C));
  llvm::sort(Candidates, [&](const Candidate &A, const Candidate &B) {
    return SM.isBeforeInTranslationUnit(A.reportAt()->getBeginLoc(),
                                        B.reportAt()->getBeginLoc());
  });
  return Candidates;
}

} // namespace clang::tidy::torch::convbias
