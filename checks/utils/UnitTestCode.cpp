//===--- UnitTestCode.cpp - libtorch-tidy ---------------------------------===//

#include "utils/UnitTestCode.h"
#include "utils/LibTorchNames.h"
#include "utils/TorchCheck.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::torch::utils {
namespace {

/// The outermost namespace \p D is declared in, or null.
const NamespaceDecl *outermostNamespace(const Decl *D) {
  const NamespaceDecl *Outer = nullptr;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      Outer = NS;
  return Outer;
}

/// A function of a test framework's registry: doctest's and Catch2's (their
/// own namespaces), Boost.Test's (boost::unit_test).
bool isRegistry(const FunctionDecl *FD) {
  const NamespaceDecl *NS = FD ? outermostNamespace(FD) : nullptr;
  if (!NS || !NS->getIdentifier())
    return false;
  llvm::StringRef Name = NS->getName();
  if (Name == "doctest" || Name == "Catch")
    return true;
  return Name == "boost" &&
         llvm::StringRef(FD->getQualifiedNameAsString())
             .starts_with("boost::unit_test::");
}

/// Whether \p RD derives from GoogleTest's testing::Test. A base that
/// depends on a template parameter is not known to be it (a trainer class
/// template deriving from its own base is no test fixture).
bool isGoogleTestFixture(const CXXRecordDecl *RD) {
  return utils::isSameOrDerivedFrom(RD, "testing::Test");
}

/// Whether a test framework's namespace is declared at all: most units have
/// none, and need no walk.
bool declaresTestFramework(ASTContext &Ctx) {
  const TranslationUnitDecl *TU = Ctx.getTranslationUnitDecl();
  for (const char *Name : {"doctest", "Catch", "testing", "boost"})
    if (!TU->lookup(DeclarationName(&Ctx.Idents.get(Name))).empty())
      return true;
  return false;
}

/// The written function a reference names: a template's pattern, not its
/// specialization.
const FunctionDecl *written(const FunctionDecl *FD) {
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return FD->getCanonicalDecl();
}

/// Collects the registered tests, and which functions refer to each
/// function of internal linkage.
class Collector : public RecursiveASTVisitor<Collector> {
public:
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool shouldVisitImplicitCode() const { return false; }

  bool TraverseDecl(Decl *D) {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (!FD || !FD->doesThisDeclarationHaveABody())
      return RecursiveASTVisitor::TraverseDecl(D);
    Enclosing.push_back(FD->getCanonicalDecl());
    bool Continue = RecursiveASTVisitor::TraverseDecl(D);
    Enclosing.pop_back();
    return Continue;
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody())
      Definitions[FD->getCanonicalDecl()] = FD;
    if (const auto *M = dyn_cast<CXXMethodDecl>(FD);
        M && isGoogleTestFixture(M->getParent()))
      Tests.insert(FD->getCanonicalDecl());
    return true;
  }

  bool VisitCallExpr(CallExpr *CE) {
    if (isRegistry(CE->getDirectCallee()))
      seedArguments(CE->getArgs(), CE->getNumArgs());
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    if (isRegistry(CE->getConstructor()))
      seedArguments(CE->getArgs(), CE->getNumArgs());
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    const auto *FD = dyn_cast<FunctionDecl>(Ref->getDecl());
    if (FD && !FD->isExternallyVisible())
      UsedBy[written(FD)].push_back(Enclosing.empty() ? nullptr
                                                      : Enclosing.back());
    return true;
  }

  /// Adds the functions of internal linkage that only test code uses.
  void addHelpers() {
    for (unsigned Round = 0; Round < 8; ++Round) {
      bool Added = false;
      for (const auto &[FD, Users] : UsedBy) {
        if (Tests.contains(FD) || Users.empty())
          continue;
        if (llvm::all_of(Users, [&](const FunctionDecl *User) {
              return User && Tests.contains(User);
            }))
          Added |= Tests.insert(FD).second;
      }
      if (!Added)
        return;
    }
  }

  llvm::SmallPtrSet<const FunctionDecl *, 8> Tests;
  llvm::DenseMap<const FunctionDecl *, const FunctionDecl *> Definitions;

private:
  void seedArguments(const Expr *const *Args, unsigned N) {
    for (const Expr *Arg : llvm::ArrayRef(Args, N)) {
      const Expr *E = Arg->IgnoreParenImpCasts();
      if (const auto *UO = dyn_cast<UnaryOperator>(E);
          UO && UO->getOpcode() == UO_AddrOf)
        E = UO->getSubExpr()->IgnoreParenImpCasts();
      const auto *Ref = dyn_cast<DeclRefExpr>(E);
      if (const auto *FD =
              Ref ? dyn_cast<FunctionDecl>(Ref->getDecl()) : nullptr)
        Tests.insert(written(FD));
    }
  }

  llvm::SmallVector<const FunctionDecl *, 4> Enclosing;
  llvm::DenseMap<const FunctionDecl *,
                 llvm::SmallVector<const FunctionDecl *, 2>>
      UsedBy;
};

} // namespace

UnitTestCode::UnitTestCode(ASTContext &Ctx) : SM(Ctx.getSourceManager()) {
  if (!declaresTestFramework(Ctx))
    return;
  Collector C;
  for (Decl *D : declsOutsideLibTorch(Ctx))
    C.TraverseDecl(D);
  C.addHelpers();
  for (const FunctionDecl *Test : C.Tests) {
    const FunctionDecl *Def = C.Definitions.lookup(Test);
    if (!Def)
      continue;
    auto [BeginFile, Begin] =
        SM.getDecomposedLoc(SM.getExpansionLoc(Def->getBeginLoc()));
    auto [EndFile, End] =
        SM.getDecomposedLoc(SM.getExpansionLoc(Def->getEndLoc()));
    if (BeginFile.isValid() && BeginFile == EndFile && Begin <= End)
      Ranges.push_back({BeginFile, Begin, End});
  }
}

namespace {

/// A runner's entry point: a declaration of a test framework's namespace,
/// or of Google Benchmark's.
bool isRunnerDecl(const Decl *D) {
  const NamespaceDecl *NS = D ? outermostNamespace(D) : nullptr;
  if (!NS || !NS->getIdentifier())
    return false;
  llvm::StringRef Name = NS->getName();
  if (Name == "doctest" || Name == "Catch" || Name == "testing" ||
      Name == "benchmark")
    return true;
  const auto *ND = dyn_cast<NamedDecl>(D);
  return Name == "boost" && ND &&
         llvm::StringRef(ND->getQualifiedNameAsString())
             .starts_with("boost::unit_test::");
}

/// Finds a reference to a runner's declaration.
class RunnerFinder : public RecursiveASTVisitor<RunnerFinder> {
public:
  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    Found |= isRunnerDecl(Ref->getDecl());
    return !Found;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    Found |= isRunnerDecl(CE->getConstructor());
    return !Found;
  }
  bool VisitMemberExpr(MemberExpr *ME) {
    Found |= isRunnerDecl(ME->getMemberDecl());
    return !Found;
  }
  bool Found = false;
};

} // namespace

bool isTestRunnerMain(const FunctionDecl *FD) {
  if (!FD || !FD->isMain() || !FD->hasBody())
    return false;
  RunnerFinder F;
  F.TraverseStmt(FD->getBody());
  return F.Found;
}

bool UnitTestCode::contains(SourceLocation Loc) const {
  if (Ranges.empty() || Loc.isInvalid())
    return false;
  std::pair<FileID, unsigned> At =
      SM.getDecomposedLoc(SM.getExpansionLoc(Loc));
  FileID File = At.first;
  unsigned Offset = At.second;
  return llvm::any_of(Ranges, [&](const Range &R) {
    return R.File == File && R.Begin <= Offset && Offset <= R.End;
  });
}

} // namespace clang::tidy::torch::utils
