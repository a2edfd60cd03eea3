//===--- TorchUtils.cpp - libtorch-tidy -----------------------------------===//

#include "TorchUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

namespace clang::tidy::torch::utils {

std::string TorchVersion::str() const {
  return std::to_string(Major) + "." + std::to_string(Minor);
}

std::optional<TorchVersion> parseTorchVersion(llvm::StringRef Text) {
  Text = Text.trim();
  llvm::StringRef MajorText, Rest;
  std::tie(MajorText, Rest) = Text.split('.');
  TorchVersion V;
  if (MajorText.getAsInteger(10, V.Major))
    return std::nullopt;
  if (Rest.empty())
    return V;
  llvm::StringRef MinorText = Rest.split('.').first;
  if (MinorText.getAsInteger(10, V.Minor))
    return std::nullopt;
  return V;
}

// The value of an object-like macro whose body is one integer literal.
static std::optional<unsigned> readIntegerMacro(const Preprocessor &PP,
                                                llvm::StringRef Name) {
  const IdentifierInfo *II = PP.getIdentifierInfo(Name);
  if (!II)
    return std::nullopt;
  const MacroInfo *MI = PP.getMacroInfo(II);
  if (!MI || MI->isFunctionLike() || MI->getNumTokens() != 1)
    return std::nullopt;
  const Token &Tok = MI->getReplacementToken(0);
  if (!Tok.is(tok::numeric_constant))
    return std::nullopt;
  unsigned Value;
  if (PP.getSpelling(Tok).empty() ||
      llvm::StringRef(PP.getSpelling(Tok)).getAsInteger(10, Value))
    return std::nullopt;
  return Value;
}

std::optional<TorchVersion> readTorchVersion(const Preprocessor &PP) {
  std::optional<unsigned> Major = readIntegerMacro(PP, "TORCH_VERSION_MAJOR");
  if (!Major)
    return std::nullopt;
  TorchVersion V;
  V.Major = *Major;
  V.Minor = readIntegerMacro(PP, "TORCH_VERSION_MINOR").value_or(0);
  return V;
}

namespace {
// Depth-bounded: a broken hierarchy must not recurse forever.
bool sameOrDerived(const CXXRecordDecl *RD, llvm::StringRef QualifiedName,
                   unsigned Depth) {
  if (!RD || Depth > 16 || !RD->hasDefinition())
    return false;
  RD = RD->getDefinition();
  if (RD->getIdentifier() && RD->getQualifiedNameAsString() == QualifiedName)
    return true;
  for (const CXXBaseSpecifier &Base : RD->bases())
    if (sameOrDerived(Base.getType()->getAsCXXRecordDecl(), QualifiedName,
                      Depth + 1))
      return true;
  return false;
}
} // namespace

bool isInLibTorchHeader(SourceLocation Loc, const SourceManager &SM) {
  if (Loc.isInvalid())
    return false;
  SourceLocation FileLoc = SM.getExpansionLoc(Loc);
  if (SM.isInSystemHeader(FileLoc))
    return true;
  if (SM.isWrittenInMainFile(FileLoc))
    return false;
  // Asked for nearly every node of the headers: remember the answer per file
  // name (not per FileID, which means another file in the next translation
  // unit), per thread since clangd builds ASTs on several threads.
  thread_local llvm::StringMap<bool> Cache;
  llvm::StringRef Name = SM.getFilename(FileLoc);
  auto It = Cache.find(Name);
  if (It != Cache.end())
    return It->second;
  if (Cache.size() > 100000)
    Cache.clear();
  return Cache[Name] = isLibTorchPath(Name);
}

bool isLibTorchPath(llvm::StringRef Name) {
  // Walk the directory components: LibTorch installs its headers under
  // include/{ATen,c10,caffe2,torch/csrc}.
  llvm::SmallVector<llvm::StringRef, 16> Parts;
  for (auto It = llvm::sys::path::begin(Name), End = llvm::sys::path::end(Name);
       It != End; ++It)
    Parts.push_back(*It);
  for (size_t I = 0; I + 1 < Parts.size(); ++I) {
    llvm::StringRef Part = Parts[I];
    if (Part == "ATen" || Part == "c10" || Part == "caffe2")
      return true;
    if (Part == "torch" && I + 2 < Parts.size() && Parts[I + 1] == "csrc")
      return true;
  }
  return false;
}

bool isRunOnceLoop(const Stmt *S, const ASTContext &Ctx) {
  const auto *D = dyn_cast<DoStmt>(S);
  bool Value = true;
  return D && !D->getCond()->isValueDependent() &&
         D->getCond()->EvaluateAsBooleanCondition(Value, Ctx) && !Value;
}

std::string torchNamespace(const ASTContext &Ctx) {
  auto &Idents = const_cast<ASTContext &>(Ctx).Idents;
  return Ctx.getTranslationUnitDecl()->lookup(&Idents.get("torch")).empty()
             ? "at"
             : "torch";
}

bool isSameOrDerivedFrom(const CXXRecordDecl *RD,
                         llvm::StringRef QualifiedName) {
  return sameOrDerived(RD, QualifiedName, 0);
}

std::pair<const Stmt *, const CompoundStmt *>
statementInBlock(const Stmt *S, ASTContext &Ctx) {
  for (unsigned Depth = 0; S && Depth < 64; ++Depth) {
    DynTypedNodeList Parents = Ctx.getParents(*S);
    const Stmt *P = Parents.empty() ? nullptr : Parents[0].get<Stmt>();
    if (!P)
      return {S, nullptr};
    if (const auto *Block = dyn_cast<CompoundStmt>(P))
      return {S, Block};
    S = P;
  }
  return {nullptr, nullptr};
}

const FunctionDecl *enclosingFunction(const Stmt *S, ASTContext &Ctx) {
  DynTypedNode Cur = DynTypedNode::create(*S);
  for (unsigned Steps = 0; Steps < 512; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return nullptr;
    if (const auto *FD = Parents[0].get<FunctionDecl>())
      return FD;
    Cur = Parents[0];
  }
  return nullptr;
}

const Stmt *enclosingFunctionBody(const VarDecl *VD) {
  const auto *FD =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  return FD ? FD->getBody() : nullptr;
}

/// provableBool() through at most \p Depth initializers: `bool On = On;`
/// compiles, and its initializer is the variable itself.
static std::optional<bool> provableBool(const Expr *E, ASTContext &Ctx,
                                        unsigned Depth) {
  E = E->IgnoreParenImpCasts();
  if (E->isValueDependent() || E->isTypeDependent())
    return std::nullopt;
  bool Value = false;
  if (E->EvaluateAsBooleanCondition(Value, Ctx))
    return Value;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *VD = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!VD || isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl() ||
      VD->isStaticLocal() || !VD->getInit() ||
      VD->getType().isVolatileQualified() || Depth == 0)
    return std::nullopt;
  const Stmt *Body = enclosingFunctionBody(VD);
  if (!Body || ExprMutationAnalyzer(*Body, Ctx).isMutated(VD))
    return std::nullopt;
  return provableBool(VD->getInit(), Ctx, Depth - 1);
}

std::optional<bool> provableBool(const Expr *E, ASTContext &Ctx) {
  return provableBool(E, Ctx, /*Depth=*/8);
}

std::string sourceText(SourceRange R, const SourceManager &SM,
                       const LangOptions &LangOpts) {
  return Lexer::getSourceText(CharSourceRange::getTokenRange(R), SM, LangOpts)
      .str();
}

bool isNeverReassigned(const VarDecl *VD, ASTContext &Ctx) {
  using namespace ast_matchers;
  if (VD->getType().isConstQualified())
    return true;
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!Fn || !Fn->getBody())
    return false;
  auto Ref = ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(VD)))));
  return match(stmt(hasDescendant(stmt(anyOf(
                   cxxOperatorCallExpr(
                       hasAnyOverloadedOperatorName(
                           "=", "+=", "-=", "*=", "/=", "&=", "|=", "^="),
                       hasArgument(0, Ref)),
                   unaryOperator(hasOperatorName("&"), hasUnaryOperand(Ref)),
                   callExpr(forEachArgumentWithParam(
                       Ref, parmVarDecl(hasType(lValueReferenceType(
                                pointee(unless(isConstQualified()))))))),
                   cxxMemberCallExpr(
                       on(Ref), callee(cxxMethodDecl(hasName("set_")))))))),
               *Fn->getBody(), Ctx)
      .empty();
}

} // namespace clang::tidy::torch::utils
