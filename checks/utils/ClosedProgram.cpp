//===--- ClosedProgram.cpp - libtorch-tidy --------------------------------===//

#include "utils/ClosedProgram.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace clang::tidy::torch::utils {

namespace {

/// A string argument, or a DeviceType that is not one of LibTorch's
/// constants: a device chosen at run time (a flag, a configuration file).
bool isRunTimeDeviceValue(const Expr *E, const SourceManager &SM) {
  E = E->IgnoreParenImpCasts();
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E))
    if (Construct->getNumArgs() == 1)
      E = Construct->getArg(0)->IgnoreParenImpCasts();
  // A literal names its device: the CPU's, or one this program can use.
  if (const auto *S = dyn_cast<StringLiteral>(E))
    return S->getCharByteWidth() != 1 || !S->getString().starts_with("cpu");
  QualType T = E->getType();
  if (isRecordNamed(T, "Device") || isRecordNamed(T, "TensorOptions"))
    return false; // A device value made elsewhere, where it is looked at.
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E);
      Ref && isEnumNamed(T, "DeviceType"))
    return !isInLibTorchHeader(Ref->getDecl()->getLocation(), SM);
  // A string or a number that is not a literal, a DeviceType computed.
  return true;
}

/// A LibTorch call that chooses a device the code does not show: loading
/// saved tensors or modules, or a device from a string or a variable.
bool isLibraryDeviceChoice(const FunctionDecl *FD, const CallExpr *E,
                           const SourceManager &SM) {
  if (!FD->getIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  if (Name == "load" || Name == "pickle_load" || Name == "load_from" ||
      Name == "_load_for_mobile")
    return true;
  if (Name != "device" && Name != "to")
    return false;
  // A Device argument is made at the call, where it is looked at; a string
  // or a DeviceType is turned into one inside LibTorch.
  for (const Expr *Arg : E->arguments()) {
    const Expr *A = Arg->IgnoreParenImpCasts();
    QualType T = A->getType();
    bool Text = (T->isPointerType() &&
                 T->getPointeeType()->isAnyCharacterType()) ||
                isRecordNamed(T, "basic_string") ||
                isRecordNamed(T, "basic_string_view");
    if ((Text || isEnumNamed(T, "DeviceType")) && isRunTimeDeviceValue(A, SM))
      return true;
  }
  return false;
}

/// Finds, in the code outside LibTorch's headers, a device the code does not
/// show: made from a run-time value, or restored with saved tensors.
class DeviceChoiceFinder : public RecursiveASTVisitor<DeviceChoiceFinder> {
public:
  explicit DeviceChoiceFinder(ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()) {}

  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        isInLibTorchHeader(D->getLocation(), SM))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitCallExpr(CallExpr *E) {
    const FunctionDecl *FD = E->getDirectCallee();
    Found |= FD && isInLibTorchHeader(FD->getLocation(), SM) &&
             isLibraryDeviceChoice(FD, E, SM);
    return !Found;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    Found |= isRecordNamed(E->getType(), "Device") && E->getNumArgs() >= 1 &&
             isRunTimeDeviceValue(E->getArg(0), SM);
    return !Found;
  }
  /// Another accelerator than CUDA (kMPS, kXPU, kHIP, ...) is a device
  /// too; only the CPU's constants keep the program on the CPU.
  /// A constant only stored in a device variable nothing reads chooses
  /// nothing.
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *D = E->getDecl();
    Found |= isEnumNamed(E->getType(), "DeviceType") && D->getIdentifier() &&
             isInLibTorchHeader(D->getLocation(), SM) &&
             D->getName() != "kCPU" && D->getName() != "CPU" &&
             !storedOnlyInUnreadDevice(E, Ctx);
    return !Found;
  }
  bool VisitExplicitCastExpr(ExplicitCastExpr *E) {
    Found |= isEnumNamed(E->getType(), "DeviceType") &&
             !isEnumNamed(E->getSubExpr()->IgnoreParenImpCasts()->getType(),
                          "DeviceType");
    return !Found;
  }

  bool Found = false;

private:
  ASTContext &Ctx;
  const SourceManager &SM;
};

/// The walk from main() through every project function it reaches: the
/// program is in view when each has its definition here.
class ReachWalk : public RecursiveASTVisitor<ReachWalk> {
public:
  explicit ReachWalk(const SourceManager &SM) : SM(SM) {}

  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool run(const FunctionDecl *Main) {
    reach(Main);
    while (Closed && !Work.empty()) {
      const FunctionDecl *FD = Work.pop_back_val();
      TraverseStmt(FD->getBody());
      if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
        for (const CXXCtorInitializer *Init : Ctor->inits())
          TraverseStmt(Init->getInit());
    }
    return Closed;
  }

  bool VisitCallExpr(CallExpr *E) {
    if (const FunctionDecl *FD = E->getDirectCallee())
      reach(FD);
    return Closed;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    if (const CXXConstructorDecl *Ctor = E->getConstructor()) {
      reach(Ctor);
      if (const CXXDestructorDecl *Dtor = Ctor->getParent()->getDestructor())
        reach(Dtor);
    }
    return Closed;
  }
  /// A function's address taken (a callback, a thread's entry): it may run.
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      reach(FD);
    return Closed;
  }

private:
  void reach(const FunctionDecl *FD) {
    if (!Closed || !FD || isInLibTorchHeader(FD->getLocation(), SM))
      return;
    const FunctionDecl *Def = nullptr;
    if (FD->hasBody(Def) && Def) {
      if (Seen.insert(Def).second)
        Work.push_back(Def);
      return;
    }
    // Nothing to run, or defined in another translation unit.
    const auto *M = dyn_cast<CXXMethodDecl>(FD);
    Closed = (M && M->isPureVirtual()) || FD->isDefaulted() || FD->isDeleted();
  }

  const SourceManager &SM;
  bool Closed = true;
  llvm::SmallPtrSet<const FunctionDecl *, 32> Seen;
  llvm::SmallVector<const FunctionDecl *, 64> Work;
};

const FunctionDecl *findMain(ASTContext &Ctx) {
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (const auto *FD = dyn_cast<FunctionDecl>(D);
        FD && FD->isMain() && FD->doesThisDeclarationHaveABody())
      return FD;
  return nullptr;
}

} // namespace

bool devicesClosedInUnit(ASTContext &Ctx) {
  const FunctionDecl *Main = findMain(Ctx);
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Main || !ReachWalk(SM).run(Main))
    return false;
  DeviceChoiceFinder Choices(Ctx);
  Choices.TraverseDecl(Ctx.getTranslationUnitDecl());
  return !Choices.Found;
}

} // namespace clang::tidy::torch::utils
