//===--- ZeroGradCheck.cpp - libtorch-tidy --------------------------------===//
//
// Zero-filling gradients costs a memset per parameter every step, and the
// next backward() then accumulates into them instead of writing them.
// Resetting them (set_to_none) skips both. Whether a bare zero_grad()
// zero-fills depends on the LibTorch version, so the check reads the behaviour
// from the declaration the call binds to (its parameter and default argument),
// and the version from TORCH_VERSION_MAJOR/MINOR for messages and guarded
// fix-its.
//
//===----------------------------------------------------------------------===//

#include "ZeroGradCheck.h"
#include "TorchTidyModule.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringSet.h"
#include "utils/FindingPayload.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchVersion.h"
#include "utils/ParentWalk.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

enum class ZeroFillKind {
  /// Optimizer::zero_grad() of LibTorch 1.x: no parameter, always zero-fills.
  NoParameter,
  /// A bare call whose default argument is false.
  DefaultFalse,
  /// An explicit argument that evaluates to false.
  ExplicitFalse,
};

bool isTensorMethod(const CXXMethodDecl *M, llvm::StringRef Name) {
  if (!M || !M->getIdentifier() || M->getName() != Name)
    return false;
  const CXXRecordDecl *RD = M->getParent();
  if (!RD || !RD->getIdentifier())
    return false;
  return RD->getQualifiedNameAsString() == "at::Tensor" ||
         RD->getQualifiedNameAsString() == "at::TensorBase";
}

const CXXMethodDecl *calledMethod(const Stmt *S) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
    return MC->getMethodDecl();
  return nullptr;
}

bool isBackwardCall(const Stmt *S) {
  if (isTensorMethod(calledMethod(S), "backward"))
    return true;
  if (const auto *CE = dyn_cast<CallExpr>(S))
    if (const auto *FD = CE->getDirectCallee())
      return FD->getIdentifier() && FD->getName() == "backward" &&
             FD->getQualifiedNameAsString() == "torch::autograd::backward";
  return false;
}

bool isGradRead(const Stmt *S) {
  const CXXMethodDecl *M = calledMethod(S);
  return isTensorMethod(M, "grad") || isTensorMethod(M, "mutable_grad");
}

/// True for a gradient access that only overwrites the gradient:
/// `p.mutable_grad().reset()` or `p.mutable_grad() = ...`.
bool isGradOverwrite(const Stmt *S) {
  const Expr *Target = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    if (isTensorMethod(MC->getMethodDecl(), "reset"))
      Target = MC->getImplicitObjectArgument();
  } else if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(S)) {
    if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2)
      Target = Op->getArg(0);
  }
  if (!Target)
    return false;
  return isTensorMethod(calledMethod(Target->IgnoreImplicit()), "mutable_grad");
}

/// The first gradient read or backward() call in \p S, in evaluation order
/// as far as the AST tells it.
const Stmt *firstGradEvent(const Stmt *S) {
  if (!S || isGradOverwrite(S))
    return nullptr;
  if (isBackwardCall(S) || isGradRead(S))
    return S;
  for (const Stmt *Child : S->children())
    if (const Stmt *Found = firstGradEvent(Child))
      return Found;
  return nullptr;
}

/// A gradient read that runs after \p S and before the next backward():
/// the statements after \p S in each enclosing compound statement, up to the
/// function body.
const Stmt *findGradReadBeforeBackward(const Stmt *S, ASTContext &Ctx) {
  const Stmt *Cur = S;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return nullptr;
    const auto *Parent = Parents[0].get<Stmt>();
    if (!Parent || isa<LambdaExpr>(Parent))
      return nullptr;
    if (const auto *CS = dyn_cast<CompoundStmt>(Parent)) {
      bool After = false;
      for (const Stmt *Child : CS->body()) {
        if (Child == Cur) {
          After = true;
          continue;
        }
        if (!After)
          continue;
        if (const Stmt *Event = firstGradEvent(Child))
          return isBackwardCall(Event) ? nullptr : Event;
      }
    }
    Cur = Parent;
  }
}

/// True when \p E is evaluated as a statement of its own, its value unused.
bool isStatementOfItsOwn(const Expr *E, ASTContext &Ctx) {
  const Stmt *Cur = E;
  while (true) {
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.size() != 1)
      return false;
    const auto *Parent = Parents[0].get<Stmt>();
    if (!Parent)
      return false;
    if (isa<ExprWithCleanups>(Parent)) {
      Cur = Parent;
      continue;
    }
    if (isa<CompoundStmt>(Parent))
      return true;
    if (const auto *If = dyn_cast<IfStmt>(Parent))
      return If->getThen() == Cur || If->getElse() == Cur;
    if (const auto *For = dyn_cast<ForStmt>(Parent))
      return For->getBody() == Cur;
    if (const auto *For = dyn_cast<CXXForRangeStmt>(Parent))
      return For->getBody() == Cur;
    if (const auto *While = dyn_cast<WhileStmt>(Parent))
      return While->getBody() == Cur;
    if (const auto *Do = dyn_cast<DoStmt>(Parent))
      return Do->getBody() == Cur;
    return false;
  }
}

/// Evaluates \p E as a constant bool, if it is one.
std::optional<bool> evaluateBool(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->isValueDependent())
    return std::nullopt;
  bool Value;
  if (!E->EvaluateAsBooleanCondition(Value, Ctx))
    return std::nullopt;
  return Value;
}

/// How \p Call to \p Method zero-fills, or std::nullopt where it resets or
/// its argument is not a constant. \p DefaultSetToNone receives the value of
/// the parameter's default, when there is one to read.
std::optional<ZeroFillKind>
zeroFillKind(const CXXMemberCallExpr *Call, const CXXMethodDecl *Method,
             const ASTContext &Ctx, std::optional<bool> &DefaultSetToNone) {
  if (Method->getNumParams() == 0)
    return ZeroFillKind::NoParameter;
  if (const ParmVarDecl *Param = Method->getParamDecl(0);
      Param->hasDefaultArg() && !Param->hasUnparsedDefaultArg() &&
      !Param->hasUninstantiatedDefaultArg())
    DefaultSetToNone = evaluateBool(Param->getDefaultArg(), Ctx);
  if (Call->getNumArgs() == 0)
    return std::nullopt;
  const Expr *Arg = Call->getArg(0);
  if (isa<CXXDefaultArgExpr>(Arg)) {
    if (!DefaultSetToNone || *DefaultSetToNone)
      return std::nullopt;
    return ZeroFillKind::DefaultFalse;
  }
  // A runtime value may be chosen on purpose: stay silent.
  std::optional<bool> SetToNone = evaluateBool(Arg, Ctx);
  if (!SetToNone || *SetToNone)
    return std::nullopt;
  return ZeroFillKind::ExplicitFalse;
}

/// The definitions that share the source text of \p FD, an instantiated
/// function: every instantiation of its pattern that this translation unit
/// defines. std::nullopt where they cannot all be found (a lambda or a
/// member template of a class template).
std::optional<llvm::SmallVector<const FunctionDecl *, 4>>
instantiationsSharingText(const FunctionDecl *FD) {
  llvm::SmallVector<const FunctionDecl *, 4> Defs;
  auto Add = [&](const FunctionDecl *D) {
    // An explicit specialization has text of its own; an instantiation
    // without a body is never compiled here.
    if (D->getTemplateSpecializationKind() != TSK_ExplicitSpecialization &&
        D->doesThisDeclarationHaveABody())
      Defs.push_back(D);
  };
  if (const FunctionTemplateDecl *FTD = FD->getPrimaryTemplate()) {
    if (FTD->getInstantiatedFromMemberTemplate())
      return std::nullopt;
    for (const FunctionDecl *Spec : FTD->specializations())
      Add(Spec);
    return Defs;
  }
  const FunctionDecl *Pattern = FD->getInstantiatedFromMemberFunction();
  const auto *Class = Pattern ? dyn_cast<CXXRecordDecl>(Pattern->getParent())
                              : nullptr;
  const ClassTemplateDecl *CTD =
      Class ? Class->getDescribedClassTemplate() : nullptr;
  if (!CTD || CTD->getInstantiatedFromMemberTemplate())
    return std::nullopt;
  for (const ClassTemplateSpecializationDecl *Spec : CTD->specializations())
    for (const CXXMethodDecl *M : Spec->methods())
      if (const FunctionDecl *From = M->getInstantiatedFromMemberFunction();
          From && From->getCanonicalDecl() == Pattern->getCanonicalDecl())
        Add(M);
  return Defs;
}

/// The member call written at \p Loc in the body of \p FD, if any.
const CXXMemberCallExpr *memberCallAt(const FunctionDecl *FD,
                                      SourceLocation Loc, ASTContext &Ctx) {
  for (const BoundNodes &N :
       match(findAll(cxxMemberCallExpr().bind("c")), *FD->getBody(), Ctx))
    if (const auto *C = N.getNodeAs<CXXMemberCallExpr>("c");
        C->getExprLoc() == Loc)
      return C;
  return nullptr;
}

/// An instantiation whose call differs from the one reported, and the
/// other method it calls there (null where it calls none, or the same one
/// with another argument).
struct SharedTextConflict {
  SourceLocation At;
  const CXXMethodDecl *Callee = nullptr;
};

/// The text of a template is shared by all its instantiations: a fix-it
/// there must be right for each. Why it would not be, or "" when every
/// instantiation binds the call to \p Method with the same effect.
std::string sharedTextProblem(const CXXMemberCallExpr *Call,
                              const CXXMethodDecl *Method, ZeroFillKind Kind,
                              ASTContext &Ctx,
                              std::optional<SharedTextConflict> &Conflict) {
  if (match(expr(isInTemplateInstantiation()), *Call, Ctx).empty())
    return "";
  const FunctionDecl *FD = utils::enclosingFunction(Call, Ctx);
  std::optional<llvm::SmallVector<const FunctionDecl *, 4>> Defs =
      FD ? instantiationsSharingText(FD) : std::nullopt;
  if (!Defs)
    return "the call is in a template whose instantiations cannot all be "
           "checked";
  for (const FunctionDecl *Def : *Defs) {
    const CXXMemberCallExpr *Other =
        memberCallAt(Def, Call->getExprLoc(), Ctx);
    const CXXMethodDecl *OtherMethod = Other ? Other->getMethodDecl() : nullptr;
    const bool Same =
        OtherMethod &&
        OtherMethod->getCanonicalDecl() == Method->getCanonicalDecl();
    std::optional<bool> Ignored;
    if (Same && zeroFillKind(Other, OtherMethod, Ctx, Ignored) == Kind)
      continue;
    Conflict = SharedTextConflict{Def->getPointOfInstantiation(),
                                  Same ? nullptr : OtherMethod};
    return "another instantiation of the template makes a different call "
           "here";
  }
  return "";
}

/// A name for a loop variable that does not clash with an identifier of
/// \p Context.
std::string freshName(llvm::StringRef Base, llvm::StringRef Context) {
  llvm::StringSet<> Used;
  llvm::StringRef Rest = Context;
  while (!Rest.empty()) {
    size_t Start =
        Rest.find_if([](char C) { return isAsciiIdentifierStart(C); });
    if (Start == llvm::StringRef::npos)
      break;
    Rest = Rest.drop_front(Start);
    size_t Len =
        Rest.find_if_not([](char C) { return isAsciiIdentifierContinue(C); });
    Used.insert(Rest.take_front(Len));
    Rest = Rest.drop_front(std::min(Len, Rest.size()));
  }
  std::string Name = Base.str();
  while (Used.contains(Name))
    Name += "_";
  return Name;
}

} // namespace

ZeroGradCheck::ZeroGradCheck(StringRef Name, ClangTidyContext *Context)
    : TorchCheck(Name, Context),
      IncludeModules(Options.get("IncludeModules", true)),
      ManualLoops(Options.get("ManualLoops", true)),
      VersionGuard(Options.get("VersionGuard", true)),
      TorchVersion(Options.get("TorchVersion", "").str()) {
  if (!TorchVersion.empty() && !utils::parseTorchVersion(TorchVersion))
    configurationDiag("invalid TorchVersion '%0' for check '%1': expected "
                      "MAJOR.MINOR such as 1.13")
        << TorchVersion << Name;
}

void ZeroGradCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "IncludeModules", IncludeModules);
  Options.store(Opts, "ManualLoops", ManualLoops);
  Options.store(Opts, "VersionGuard", VersionGuard);
  Options.store(Opts, "TorchVersion", TorchVersion);
}

void ZeroGradCheck::registerPPCallbacks(const SourceManager &SM,
                                        Preprocessor *PP,
                                        Preprocessor *ModuleExpanderPP) {
  TorchCheck::registerPPCallbacks(SM, PP, ModuleExpanderPP);
  this->PP = PP;
}

void ZeroGradCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto ZeroGradMethod =
      cxxMethodDecl(hasAnyName("::torch::optim::Optimizer::zero_grad",
                               "::torch::nn::Module::zero_grad"));
  // Instantiations too: `optimizer_->zero_grad()` on a template parameter
  // is a LibTorch optimizer's call only in the instantiations the file
  // makes (a trainer template given torch::optim::AdamW in main.cpp).
  Finder->addMatcher(cxxMemberCallExpr(utils::isOutsideLibTorch(),
                                       callee(ZeroGradMethod.bind("method")))
                         .bind("call"),
                     this);

  if (!ManualLoops)
    return;
  auto TensorClass =
      cxxRecordDecl(hasAnyName("::at::Tensor", "::at::TensorBase"));
  auto GradAccess =
      cxxMemberCallExpr(callee(cxxMethodDecl(hasAnyName("grad", "mutable_grad"),
                                             ofClass(TensorClass))))
          .bind("gradAccess");
  auto Loop = stmt(anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt()));
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasName("zero_"), ofClass(TensorClass))),
          // LibTorch's zero_() takes nothing: a zero_(n) is someone else's.
          unless(hasAnyArgument(unless(cxxDefaultArgExpr()))),
          on(ignoringImplicit(GradAccess)), hasAncestor(Loop),
          unless(isInTemplateInstantiation()))
          .bind("manualZero"),
      this);
}

void ZeroGradCheck::check(const MatchFinder::MatchResult &Result) {
  if (const auto *Call = Result.Nodes.getNodeAs<CXXMemberCallExpr>("call")) {
    checkZeroGradCall(Call, Result.Nodes.getNodeAs<CXXMethodDecl>("method"),
                      Result);
    return;
  }
  if (const auto *Zero =
          Result.Nodes.getNodeAs<CXXMemberCallExpr>("manualZero"))
    checkManualZero(
        Zero, Result.Nodes.getNodeAs<CXXMemberCallExpr>("gradAccess"), Result);
}

/// Why a fix-it for \p Call would be unsafe; empty when none is known.
/// \p ReadAt receives where the gradients are read before the next
/// backward(), when that is the reason.
static std::string unsafeFixReason(const Expr *Call, ASTContext &Ctx,
                                   SourceLocation &ReadAt) {
  if (Call->getBeginLoc().isMacroID() || Call->getEndLoc().isMacroID())
    return "the call is in a macro expansion";
  if (const Stmt *Read = findGradReadBeforeBackward(Call, Ctx)) {
    ReadAt = Read->getBeginLoc();
    return "the gradients are read before the next backward()";
  }
  return "";
}

/// `zero_grad(false)` -> `zero_grad()`, comments in the parentheses included.
static std::optional<FixItHint> emptyParentheses(const CXXMemberCallExpr *Call,
                                                 const SourceManager &SM,
                                                 const LangOptions &LangOpts) {
  const auto *Callee = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens());
  if (!Callee)
    return std::nullopt;
  std::optional<Token> LParen =
      Lexer::findNextToken(Callee->getMemberLoc(), SM, LangOpts);
  if (!LParen || !LParen->is(tok::l_paren))
    return std::nullopt;
  return FixItHint::CreateRemoval(
      CharSourceRange::getCharRange(LParen->getEndLoc(), Call->getRParenLoc()));
}

std::optional<FixItHint>
ZeroGradCheck::manualResetFix(const CXXMemberCallExpr *Call,
                              bool VersionFromHeaders, const SourceManager &SM,
                              ASTContext &Ctx) const {
  const LangOptions &LangOpts = getLangOpts();
  const auto *ME = dyn_cast<MemberExpr>(Call->getCallee()->IgnoreParens());
  if (!ME || ME->isImplicitAccess() || !isStatementOfItsOwn(Call, Ctx))
    return std::nullopt;
  CharSourceRange BaseRange =
      CharSourceRange::getTokenRange(ME->getBase()->getSourceRange());
  SourceLocation AfterSemi =
      Lexer::findLocationAfterToken(Call->getEndLoc(), tok::semi, SM, LangOpts,
                                    /*SkipTrailingWhitespaceAndNewLine=*/false);
  if (BaseRange.isInvalid() || AfterSemi.isInvalid())
    return std::nullopt;
  std::string Object = Lexer::getSourceText(BaseRange, SM, LangOpts).str() +
                       (ME->isArrow() ? "->" : ".");
  std::string Group = freshName("group", Object);
  std::string Param = freshName("param", Object);
  std::string Loop = "for (auto &" + Group + " : " + Object + "param_groups())";
  std::string Body = "for (auto &" + Param + " : " + Group + ".params())";
  std::string Reset = Param + ".mutable_grad().reset();";

  // A statement alone on its line can be wrapped in a version guard that
  // keeps the plain call for LibTorch 2.x.
  SourceLocation Begin = Call->getBeginLoc();
  unsigned Col = SM.getSpellingColumnNumber(Begin);
  SourceLocation LineStart = Begin.getLocWithOffset(-(int)(Col - 1));
  llvm::StringRef Indent = Lexer::getSourceText(
      CharSourceRange::getCharRange(LineStart, Begin), SM, LangOpts);
  llvm::StringRef Tail = SM.getBufferData(SM.getFileID(Begin))
                             .drop_front(SM.getFileOffset(AfterSemi))
                             .split('\n')
                             .first.trim();
  const bool AloneOnLine =
      Indent.trim().empty() && (Tail.empty() || Tail.starts_with("//"));
  if (!VersionGuard || !VersionFromHeaders || !AloneOnLine)
    return FixItHint::CreateReplacement(
        CharSourceRange::getCharRange(Begin, AfterSemi),
        Loop + " " + Body + " " + Reset);

  std::string CallText =
      Lexer::getSourceText(
          CharSourceRange::getTokenRange(Call->getSourceRange()), SM, LangOpts)
          .str();
  std::string I = Indent.str();
  std::string Text = "#if TORCH_VERSION_MAJOR >= 2\n" + I + CallText +
                     ";\n#else\n" + I + Loop + "\n" + I + "  " + Body + "\n" +
                     I + "    " + Reset + "\n#endif";
  return FixItHint::CreateReplacement(
      CharSourceRange::getCharRange(LineStart, AfterSemi), Text);
}

void ZeroGradCheck::checkZeroGradCall(const CXXMemberCallExpr *Call,
                                      const CXXMethodDecl *Method,
                                      const MatchFinder::MatchResult &Result) {
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  if (utils::isInLibTorchHeader(Call->getBeginLoc(), SM) ||
      Reported.contains(Call->getExprLoc().getRawEncoding()))
    return;
  const bool IsModule = Method->getParent()->getName() == "Module";
  if (IsModule && !IncludeModules)
    return;

  // What the call does, read from the declaration it binds to.
  std::optional<bool> DefaultSetToNone;
  std::optional<ZeroFillKind> Found =
      zeroFillKind(Call, Method, Ctx, DefaultSetToNone);
  if (!Found)
    return;
  const ZeroFillKind Kind = *Found;
  // Marked only now: where one instantiation of a template resets, another
  // may still zero-fill.
  Reported.insert(Call->getExprLoc().getRawEncoding());

  // The version in use: the headers', else the option.
  std::optional<utils::TorchVersion> Version =
      PP ? utils::readTorchVersion(*PP) : std::nullopt;
  const bool VersionFromHeaders = Version.has_value();
  if (!Version && !TorchVersion.empty())
    Version = utils::parseTorchVersion(TorchVersion);
  const std::string VersionText =
      Version ? "LibTorch " + Version->str() : "this LibTorch";

  std::string Message;
  if (Kind == ZeroFillKind::ExplicitFalse)
    Message = "'zero_grad(false)' zero-fills every gradient; reset the "
              "gradients instead";
  else if (IsModule)
    Message = "module 'zero_grad()' zero-fills every gradient on " +
              VersionText + "; pass set_to_none=true";
  else
    Message = "optimizer 'zero_grad()' zero-fills every gradient on " +
              VersionText + "; reset the gradients instead";
  Message += " so backward() writes them without a memset";

  SourceLocation ReadAt;
  std::string NoFix = unsafeFixReason(Call, Ctx, ReadAt);
  std::optional<SharedTextConflict> Conflict;
  if (NoFix.empty())
    NoFix = sharedTextProblem(Call, Method, Kind, Ctx, Conflict);
  std::optional<FixItHint> Fix;
  if (NoFix.empty()) {
    switch (Kind) {
    case ZeroFillKind::ExplicitFalse:
      // With a default that resets, drop the argument; otherwise say true.
      Fix = DefaultSetToNone.value_or(false)
                ? emptyParentheses(Call, SM, getLangOpts())
                : FixItHint::CreateReplacement(
                      CharSourceRange::getTokenRange(
                          Call->getArg(0)->getSourceRange()),
                      "true");
      break;
    case ZeroFillKind::DefaultFalse:
      Fix = FixItHint::CreateInsertion(Call->getRParenLoc(),
                                       "/*set_to_none=*/true");
      break;
    case ZeroFillKind::NoParameter:
      // LibTorch 1.x has no set_to_none here: reset each gradient by hand.
      Fix = manualResetFix(Call, VersionFromHeaders, SM, Ctx);
      break;
    }
    if (!Fix)
      NoFix = "the call is not a statement of its own";
  }
  utils::recordStatementPayload(getID(), Call->getExprLoc(), Call,
                                *Result.Context);
  if (!NoFix.empty()) {
    diag(Call->getExprLoc(), "%0; no fix-it: %1") << Message << NoFix;
    noteGradientRead(ReadAt);
    if (Conflict && Conflict->Callee)
      diag(Conflict->At, "instantiated here, where the call is to '%0'",
           DiagnosticIDs::Note)
          << Conflict->Callee->getQualifiedNameAsString();
    else if (Conflict)
      diag(Conflict->At, "instantiated here, where the call differs",
           DiagnosticIDs::Note);
    return;
  }
  diag(Call->getExprLoc(), "%0") << Message << *Fix;
}

void ZeroGradCheck::checkManualZero(const CXXMemberCallExpr *ZeroCall,
                                    const CXXMemberCallExpr *GradAccess,
                                    const MatchFinder::MatchResult &Result) {
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  if (utils::isInLibTorchHeader(ZeroCall->getBeginLoc(), SM))
    return;

  const char *Message =
      "zeroing a gradient in place costs a memset per parameter every step; "
      "reset it with 'mutable_grad().reset()' so backward() writes it directly";
  const auto *GradME = dyn_cast<MemberExpr>(GradAccess->getCallee());
  std::string NoFix;
  SourceLocation ReadAt;
  if (!isStatementOfItsOwn(ZeroCall, Ctx))
    NoFix = "the result of 'zero_()' is used";
  else if (!GradME)
    NoFix = "the gradient access could not be rewritten";
  else
    NoFix = unsafeFixReason(ZeroCall, Ctx, ReadAt);
  utils::recordStatementPayload(getID(), ZeroCall->getExprLoc(),
                                ZeroCall, Ctx);
  if (!NoFix.empty()) {
    diag(ZeroCall->getExprLoc(), "%0; no fix-it: %1") << Message << NoFix;
    noteGradientRead(ReadAt);
    return;
  }

  auto Diag = diag(ZeroCall->getExprLoc(), "%0") << Message;
  if (GradME->getMemberDecl()->getName() == "grad")
    Diag << FixItHint::CreateReplacement(
        CharSourceRange::getTokenRange(GradME->getMemberLoc()), "mutable_grad");
  Diag << FixItHint::CreateReplacement(
      CharSourceRange::getTokenRange(ZeroCall->getExprLoc()), "reset");
}

void ZeroGradCheck::noteGradientRead(SourceLocation ReadAt) {
  if (ReadAt.isValid())
    diag(ReadAt, "the gradients are read here", DiagnosticIDs::Note);
}

TORCH_TIDY_CHECK_FACTORY(ZeroGradCheck)

} // namespace clang::tidy::torch
