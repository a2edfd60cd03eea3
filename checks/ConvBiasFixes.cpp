//===--- ConvBiasFixes.cpp - libtorch-tidy --------------------------------===//
//
// Plans the message and fix-its of each torch-conv-bias-before-batchnorm
// finding. A fix-it is offered only where it cannot change code that no
// BatchNorm follows: a checkpoint loaded in the file, a helper called
// elsewhere or declared in a header, or a flag that may read differently
// where the convolution is built rules it out, and the message says why.
//
//===----------------------------------------------------------------------===//

#include "ConvBiasFixes.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/QualTypeNames.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::convbias {

namespace {

DiagMessage optionsInMacro() {
  return DiagMessage().text("the options are written in a macro");
}

/// \p E without a leading `!`.
const Expr *withoutNot(const Expr *E) {
  if (const auto *Not = dyn_cast<UnaryOperator>(E);
      Not && Not->getOpcode() == UO_LNot)
    return Not->getSubExpr()->IgnoreParenImpCasts();
  return E;
}

class FindingBuilder {
public:
  FindingBuilder(const TUState &S, const std::vector<Candidate> &Candidates,
                 const LangOptions &LangOpts)
      : S(S), Ctx(*S.Ctx), SM(*S.SM), LangOpts(LangOpts),
        Candidates(Candidates), HelperUses(SM) {
    for (const Candidate &C : Candidates)
      if (C.Site.Helper && !C.Site.FromParameter)
        HelperUses.Functions.insert(C.Site.Helper->getCanonicalDecl());
    if (!HelperUses.Functions.empty())
      HelperUses.visitUserCode(Ctx);
  }

  Finding build(const Candidate &C);

private:
  DiagMessage subject(const Candidate &C) const;
  DiagMessage advice(const Candidate &C) const;
  DiagMessage fixes(const Candidate &C, std::vector<FixItHint> &Fixes);
  bool fixesAt(const BiasSite &Site, StringRef Off,
               std::vector<FixItHint> &Fixes) const;
  DiagMessage helperFix(const BiasSite &Site, std::vector<FixItHint> &Fixes);
  bool allCallsFollowed(const BiasSite &Site, SourceLocation &Elsewhere) const;
  DiagMessage flagFix(const Candidate &C, std::vector<FixItHint> &Fixes);
  std::string negationOf(const Expr *Flag) const;
  std::string negatedFlag(const Expr *Flag, const Expr *At,
                          DiagMessage &Why) const;
  DiagMessage flagVariableProblem(const VarDecl *VD, const Expr *At,
                                  const FunctionDecl *Fn) const;
  std::string negatedFieldFlag(const Expr *Flag, const MemberExpr *Member,
                               const FunctionDecl *Fn, DiagMessage &Why) const;
  bool fieldChanged(const FieldDecl *F, const CXXRecordDecl *RD) const;
  bool isAssigned(const VarDecl *VD, const Stmt &Body) const;
  std::string text(const Expr *E) const {
    return utils::sourceText(E->getSourceRange(), SM, LangOpts);
  }
  bool startsWithBrace(const Expr *E) const {
    return *SM.getCharacterData(E->getBeginLoc()) == '{';
  }
  std::string spelledType(QualType T) const;

  const TUState &S;
  ASTContext &Ctx;
  const SourceManager &SM;
  const LangOptions &LangOpts;
  const std::vector<Candidate> &Candidates;
  UseCollector HelperUses;
  llvm::SmallPtrSet<const FunctionDecl *, 4> HelpersFixed;
  /// The negated flag that flagFix() wrote into the fix-it.
  std::string FlagOff;
  /// The places that fixes() names as the reason for no fix-it.
  std::vector<Note> NoFixNotes;
};

Finding FindingBuilder::build(const Candidate &C) {
  Finding F;
  NoFixNotes.clear();
  DiagMessage NoFix = fixes(C, F.Fixes);
  F.Message = subject(C);
  F.Message.text(" is cancelled by the ").arg(C.BatchNorm.Type);
  if (!C.BatchNorm.Name.empty())
    F.Message.text(" ").quoted(C.BatchNorm.Name);
  if (C.BatchNorm.Flag)
    F.Message.text(" (added when ")
        .quoted(text(C.BatchNorm.Flag))
        .text(" holds)");
  F.Message.text(", which subtracts the per-channel mean right after; ")
      .append(advice(C));
  if (!NoFix.empty())
    F.Message.text("; no fix-it: ").append(NoFix);
  F.Notes.push_back({C.BatchNorm.Loc, DiagMessage().text("batch norm here")});
  if (const ParmVarDecl *P = C.Site.FromParameter) {
    if (C.Site.DefaultArg)
      F.Notes.push_back(
          {C.Site.DefaultArg->getBeginLoc(),
           DiagMessage().quoted(P->getName()).text(" defaults to true")});
    if (C.Site.BiasArgument)
      F.Notes.push_back({C.Site.BiasArgument->getBeginLoc(),
                         DiagMessage()
                             .text("the convolution's bias is set from ")
                             .quoted(P->getName())
                             .text(" here")});
    else if (!C.Site.SetElsewhere.empty())
      F.Notes.push_back({P->getLocation(),
                         DiagMessage()
                             .text("the convolution's bias is set from ")
                             .quoted(P->getName())
                             .text(" at ")
                             .arg(C.Site.SetElsewhere)
                             .text(" (the project index)")});
  }
  F.Notes.insert(F.Notes.end(), NoFixNotes.begin(), NoFixNotes.end());
  return F;
}

DiagMessage FindingBuilder::subject(const Candidate &C) const {
  const BiasSite &Site = C.Site;
  std::string Conv =
      C.Conv.empty() ? moduleType(C.Source->getType()).Name : C.Conv;
  DiagMessage Subject;
  if (!C.Member.empty())
    return Subject.text("bias of the ")
        .arg(Conv)
        .text(" ")
        .quoted(C.Member)
        .text(" built by this ")
        .arg(cast<CXXConstructorDecl>(Site.Helper)
                 ->getParent()
                 ->getNameAsString());
  if (Site.Helper)
    return Subject.text("bias of the ")
        .arg(Conv)
        .text(" from ")
        .quoted(Site.Helper->getNameAsString());
  return Subject.text("bias of this ").arg(Conv);
}

DiagMessage FindingBuilder::advice(const Candidate &C) const {
  DiagMessage Advice;
  if (C.BatchNorm.Flag)
    return Advice.text("build the convolution with .bias(")
        .arg(FlagOff.empty() ? negationOf(C.BatchNorm.Flag) : FlagOff)
        .text(")");
  if (C.Site.FromParameter)
    return Advice.text("pass false for its parameter ")
        .quoted(C.Site.FromParameter->getName());
  return Advice.text("build the convolution with .bias(false)");
}

DiagMessage FindingBuilder::fixes(const Candidate &C,
                                  std::vector<FixItHint> &Fixes) {
  const BiasSite &Site = C.Site;
  if (S.CheckpointLoad.isValid()) {
    NoFixNotes.push_back({S.CheckpointLoad,
                          DiagMessage().text("the checkpoint is loaded here")});
    return DiagMessage()
        .text("weights are loaded from a checkpoint (")
        .arg(S.CheckpointLoader)
        .text(") and one saved with the bias would no longer load");
  }
  if (C.BatchNorm.Flag)
    return flagFix(C, Fixes);
  if (Site.Helper && !Site.FromParameter)
    return helperFix(Site, Fixes);
  if (!fixesAt(Site, "false", Fixes))
    return Site.NoFix.empty() ? optionsInMacro() : Site.NoFix;
  return {};
}

/// The fix-its that make \p Site's bias \p Off.
bool FindingBuilder::fixesAt(const BiasSite &Site, StringRef Off,
                             std::vector<FixItHint> &Fixes) const {
  auto InMacro = [](SourceLocation L) { return L.isMacroID(); };
  switch (Site.Fix) {
  case BiasSite::FixKind::None:
    return false;
  case BiasSite::FixKind::AppendToOptions: {
    SourceLocation End =
        Lexer::getLocForEndOfToken(Site.Target->getEndLoc(), 0, SM, LangOpts);
    if (InMacro(Site.Target->getBeginLoc()) || End.isInvalid())
      return false;
    // `{3, 16, 3}` names no type to call .bias() on: give it its type.
    if (startsWithBrace(Site.Target)) {
      std::string Type = spelledType(Site.Target->getType());
      if (Type.empty())
        return false;
      Fixes.push_back(
          FixItHint::CreateInsertion(Site.Target->getBeginLoc(), Type));
    }
    Fixes.push_back(
        FixItHint::CreateInsertion(End, (".bias(" + Off + ")").str()));
    return true;
  }
  case BiasSite::FixKind::ReplaceArgument:
    if (InMacro(Site.Target->getBeginLoc()) ||
        InMacro(Site.Target->getEndLoc()))
      return false;
    Fixes.push_back(
        FixItHint::CreateReplacement(Site.Target->getSourceRange(), Off));
    return true;
  case BiasSite::FixKind::WrapArguments: {
    SourceRange Args(Site.Target->getBeginLoc(), Site.LastArg->getEndLoc());
    if (InMacro(Args.getBegin()) || InMacro(Args.getEnd()))
      return false;
    std::string Text = utils::sourceText(Args, SM, LangOpts);
    if (Text.empty())
      return false;
    Fixes.push_back(
        FixItHint::CreateReplacement(CharSourceRange::getTokenRange(Args),
                                     ("torch::nn::" + Site.ConvName +
                                      "Options(" + Text + ").bias(" + Off + ")")
                                         .str()));
    return true;
  }
  case BiasSite::FixKind::AddArgument:
    Fixes.push_back(
        FixItHint::CreateInsertion(Site.InsertAt, Site.Before + Off.str()));
    return true;
  }
  return false;
}

/// \p T as code can name it anywhere (`torch::nn::Conv2dOptions`), or ""
/// for a type that has no such name.
std::string FindingBuilder::spelledType(QualType T) const {
  const auto *RD = T->getAsCXXRecordDecl();
  if (!RD || !RD->getIdentifier() || !RD->isExternallyVisible())
    return "";
  PrintingPolicy Policy(LangOpts);
  Policy.SuppressUnwrittenScope = true;
  return TypeName::getFullyQualifiedName(T.getUnqualifiedType(), Ctx, Policy);
}

/// Whether every call of \p Site's helper is followed by a BatchNorm; if
/// not, \p Elsewhere is one that is not.
bool FindingBuilder::allCallsFollowed(const BiasSite &Site,
                                      SourceLocation &Elsewhere) const {
  auto It = HelperUses.FunctionUses.find(Site.Helper->getCanonicalDecl());
  Elsewhere = Site.Helper->getLocation();
  if (It == HelperUses.FunctionUses.end())
    return false;
  for (const Expr *Use : It->second) {
    bool Ours = llvm::any_of(Candidates, [&](const Candidate &O) {
      // A BatchNorm under a flag does not always follow.
      return O.Site.HelperCall && O.Site.Helper == Site.Helper &&
             !O.BatchNorm.Flag &&
             O.Site.HelperCall->getCallee()->IgnoreParenImpCasts() == Use;
    });
    if (!Ours) {
      Elsewhere = Use->getBeginLoc();
      return false;
    }
  }
  return true;
}

DiagMessage FindingBuilder::helperFix(const BiasSite &Site,
                                      std::vector<FixItHint> &Fixes) {
  SourceLocation Elsewhere;
  bool AllFollowed = allCallsFollowed(Site, Elsewhere);
  bool Direct = llvm::all_of(Site.HelperReturns, [](const BiasSite &R) {
    return !R.Helper && R.Fix != BiasSite::FixKind::None;
  });
  // A helper declared in a header may be called by other files, where no
  // BatchNorm need follow.
  bool OnlyHere =
      !Site.Helper->isExternallyVisible() ||
      llvm::all_of(Site.Helper->redecls(), [&](const FunctionDecl *D) {
        return SM.isInMainFile(SM.getExpansionLoc(D->getLocation()));
      });
  std::string Helper = Site.Helper->getNameAsString();
  if (AllFollowed && Direct && OnlyHere) {
    // Later calls share the fix made with the first one.
    if (!HelpersFixed.insert(Site.Helper).second)
      return {};
    for (const BiasSite &R : Site.HelperReturns)
      if (!fixesAt(R, "false", Fixes)) {
        Fixes.clear();
        return DiagMessage()
            .text("the bias is set in a macro in ")
            .quoted(Helper);
      }
    return {};
  }
  if (fixesAt(Site, "false", Fixes))
    return {};
  if (!AllFollowed) {
    if (Elsewhere != Site.Helper->getLocation())
      NoFixNotes.push_back(
          {Elsewhere,
           DiagMessage().text("called here with no batch norm after it")});
    return DiagMessage().quoted(Helper).text(
        " also builds convolutions that no BatchNorm follows; pass the bias "
        "as a parameter");
  }
  if (!OnlyHere)
    return DiagMessage().quoted(Helper).text(
        " is declared in a header, so other files may call it without a "
        "BatchNorm; pass the bias as a parameter");
  return DiagMessage().quoted(Helper).text(
      " builds the convolution through another helper");
}

/// `.bias(!use_bn)` where the convolution is built, when the flag reads the
/// same there.
DiagMessage FindingBuilder::flagFix(const Candidate &C,
                                    std::vector<FixItHint> &Fixes) {
  const BiasSite &Site = C.Site;
  FlagOff.clear();
  if (!Site.Target || Site.Fix == BiasSite::FixKind::None ||
      (Site.Helper && Site.Target != Site.HelperCall))
    return Site.Helper ? DiagMessage()
                             .text("the convolution is built inside ")
                             .quoted(Site.Helper->getNameAsString())
                             .text(", where the condition cannot be read")
                       : (Site.NoFix.empty() ? optionsInMacro() : Site.NoFix);
  DiagMessage Why;
  std::string Off = negatedFlag(C.BatchNorm.Flag, Site.Target, Why);
  if (Off.empty())
    return Why;
  if (!fixesAt(Site, Off, Fixes))
    return optionsInMacro();
  FlagOff = Off;
  return {};
}

/// `!use_bn` for `use_bn`, `use_bn` for `!use_bn`, `!(a && b)` otherwise.
std::string FindingBuilder::negationOf(const Expr *Flag) const {
  const Expr *Bare = Flag->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Bare);
      Not && Not->getOpcode() == UO_LNot)
    return text(Not->getSubExpr()->IgnoreParens());
  if (isa<DeclRefExpr, MemberExpr, CallExpr>(Bare))
    return "!" + text(Flag);
  return "!(" + text(Flag) + ")";
}

/// The negation of \p Flag as source text, when it reads the same at \p At:
/// free of side effects, and made of parameters and local variables of the
/// function holding \p At that are in scope there and never changed.
std::string FindingBuilder::negatedFlag(const Expr *Flag, const Expr *At,
                                        DiagMessage &Why) const {
  const Expr *Bare = Flag->IgnoreParenImpCasts();
  std::string Text = text(Flag);
  if (Text.empty() || Flag->getBeginLoc().isMacroID()) {
    Why.text("the condition is written in a macro");
    return "";
  }
  if (Flag->HasSideEffects(Ctx)) {
    Why.text("the condition ").quoted(Text).text(" has side effects");
    return "";
  }
  const FunctionDecl *Fn = utils::enclosingFunction(At, Ctx);
  if (const auto *Field = dyn_cast<MemberExpr>(withoutNot(Bare)))
    return negatedFieldFlag(Bare, Field, Fn, Why);
  auto Refs = match(findAll(expr(anyOf(declRefExpr().bind("ref"),
                                       memberExpr().bind("member")))),
                    *Flag, Ctx);
  for (const BoundNodes &N : Refs) {
    // `cfg.batch_norm`: the variable `cfg` is checked on its own.
    if (const auto *ME = N.getNodeAs<MemberExpr>("member");
        ME && isa<FieldDecl>(ME->getMemberDecl()) &&
        isa<DeclRefExpr>(ME->getBase()->IgnoreParenImpCasts()))
      continue;
    const auto *Ref = N.getNodeAs<DeclRefExpr>("ref");
    const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (Ref && isa<EnumConstantDecl>(Ref->getDecl()))
      continue;
    DiagMessage Problem =
        VD ? flagVariableProblem(VD, At, Fn)
           : DiagMessage().quoted(Text).text(
                 " is not made of parameters and local variables");
    if (!Problem.empty()) {
      Why = Problem;
      return "";
    }
  }
  return negationOf(Flag);
}

/// A flag member read in forward, `if (use_bn_) x = bn(x);`, when the
/// convolution is built by constructor \p Fn, which initializes the member
/// from its parameter: the negation written with the parameter.
std::string FindingBuilder::negatedFieldFlag(const Expr *Flag,
                                             const MemberExpr *Member,
                                             const FunctionDecl *Fn,
                                             DiagMessage &Why) const {
  const auto *F = dyn_cast<FieldDecl>(Member->getMemberDecl());
  const auto *Ctor = dyn_cast_or_null<CXXConstructorDecl>(Fn);
  std::string Name = Member->getMemberDecl()->getNameAsString();
  Why = DiagMessage().quoted(Name).text(
      " is not set from a parameter of the constructor that builds the "
      "convolution");
  if (!F || !Ctor || !isa<CXXThisExpr>(Member->getBase()->IgnoreImpCasts()) ||
      Ctor->getParent() != F->getParent())
    return "";
  const ParmVarDecl *From = nullptr;
  for (const CXXCtorInitializer *Init : Ctor->inits())
    if (Init->getMember() == F && Init->isWritten())
      if (const auto *Ref =
              dyn_cast<DeclRefExpr>(Init->getInit()->IgnoreParenImpCasts()))
        From = dyn_cast<ParmVarDecl>(Ref->getDecl());
  if (!From)
    return "";
  if (fieldChanged(F, Ctor->getParent())) {
    Why = DiagMessage().quoted(Name).text(" may change after the constructor");
    return "";
  }
  Why = flagVariableProblem(From, Flag, Ctor);
  if (!Why.empty())
    return "";
  bool Negated = withoutNot(Flag) != Flag;
  return (Negated ? "" : "!") + From->getName().str();
}

/// Whether a method of \p RD may change field \p F.
bool FindingBuilder::fieldChanged(const FieldDecl *F,
                                  const CXXRecordDecl *RD) const {
  for (const CXXMethodDecl *M : RD->methods()) {
    const FunctionDecl *Def = M->getDefinition();
    if (!Def || !Def->getBody())
      continue;
    ExprMutationAnalyzer Mutations(*Def->getBody(), Ctx);
    for (const BoundNodes &N :
         match(findAll(memberExpr(member(equalsNode(F))).bind("m")),
               *Def->getBody(), Ctx))
      if (Mutations.isMutated(N.getNodeAs<Expr>("m")))
        return true;
  }
  return false;
}

DiagMessage FindingBuilder::flagVariableProblem(const VarDecl *VD,
                                                const Expr *At,
                                                const FunctionDecl *Fn) const {
  DiagMessage Name;
  Name.quoted(VD->getName());
  if (VD->getType().isConstQualified() && VD->hasGlobalStorage())
    return {};
  if (!isa<ParmVarDecl>(VD) && !VD->isLocalVarDecl())
    return Name.text(" is not a parameter or local variable");
  if (!Fn || !Fn->getBody() ||
      VD->getParentFunctionOrMethod() != static_cast<const DeclContext *>(Fn))
    return Name.text(" is not visible where the convolution is built");
  if (!isa<ParmVarDecl>(VD)) {
    const CompoundStmt *Scope = nullptr;
    for (const DynTypedNode &P : Ctx.getParents(*VD))
      if (const auto *DS = P.get<DeclStmt>())
        Scope = utils::statementInBlock(DS, Ctx).second;
    SourceLocation L = At->getBeginLoc();
    if (!Scope || !SM.isBeforeInTranslationUnit(VD->getLocation(), L) ||
        SM.isBeforeInTranslationUnit(L, Scope->getBeginLoc()) ||
        SM.isBeforeInTranslationUnit(Scope->getEndLoc(), L))
      return Name.text(" is not in scope where the convolution is built");
  }
  if (isAssigned(VD, *Fn->getBody()))
    return Name.text(" changes in ").quoted(Fn->getNameAsString());
  return {};
}

/// Whether \p Body assigns \p VD or one of its members, increments it or
/// takes its address. Unlike ExprMutationAnalyzer, passing the variable on
/// does not count: the channel count a flag is tested with is forwarded to
/// module constructors by reference.
bool FindingBuilder::isAssigned(const VarDecl *VD, const Stmt &Body) const {
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  auto Target =
      anyOf(Ref, ignoringParenImpCasts(memberExpr(hasObjectExpression(Ref))));
  auto Changes = expr(
      anyOf(binaryOperator(isAssignmentOperator(), hasLHS(Target)),
            cxxOperatorCallExpr(isAssignmentOperator(), hasArgument(0, Target)),
            unaryOperator(hasAnyOperatorName("++", "--", "&"),
                          hasUnaryOperand(Target))));
  return !match(findAll(Changes), Body, Ctx).empty();
}

} // namespace

std::vector<Finding> planFindings(const TUState &S,
                                  const std::vector<Candidate> &Candidates,
                                  const LangOptions &LangOpts) {
  FindingBuilder Builder(S, Candidates, LangOpts);
  std::vector<Finding> Findings;
  for (const Candidate &C : Candidates)
    Findings.push_back(Builder.build(C));
  return Findings;
}

} // namespace clang::tidy::torch::convbias
