//===--- RunFrequency.cpp - libtorch-tidy ---------------------------------===//

#include "RunFrequency.h"
#include "ConstantFacts.h"
#include "LibTorchHeaders.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace clang::tidy::torch::utils {

const FunctionDecl *writtenFunction(const FunctionDecl *FD) {
  if (const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern())
    FD = Pattern;
  return FD->getCanonicalDecl();
}

namespace {

/// The class an object of \p RD also constructs: the module a
/// ModuleHolder (`TORCH_MODULE(Net)`) makes, or null.
const CXXRecordDecl *heldModule(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return nullptr;
  for (const CXXBaseSpecifier &Base : RD->bases()) {
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
        Base.getType()->getAsCXXRecordDecl());
    if (!Spec || Spec->getName() != "ModuleHolder" ||
        Spec->getTemplateArgs().size() == 0 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      continue;
    return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  }
  return nullptr;
}

/// The class `std::make_shared<T>(...)` / `std::make_unique<T>(...)` makes.
const CXXRecordDecl *madeByFactoryTemplate(const FunctionDecl *FD) {
  if (!FD->getIdentifier() ||
      (FD->getName() != "make_shared" && FD->getName() != "make_unique"))
    return nullptr;
  const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
  if (!Args || Args->size() == 0 ||
      Args->get(0).getKind() != TemplateArgument::Type)
    return nullptr;
  return Args->get(0).getAsType()->getAsCXXRecordDecl();
}

/// The element class `items.emplace_back(args...)` constructs.
const CXXRecordDecl *emplacedElement(const CallExpr *CE) {
  const auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
  const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || !M->getName().starts_with("emplace"))
    return nullptr;
  const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(M->getParent());
  if (!Spec || Spec->getTemplateArgs().size() == 0 ||
      Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
}

using SiteMap =
    llvm::DenseMap<const Decl *, llvm::SmallVector<const Stmt *, 4>>;

class IndexVisitor : public RecursiveASTVisitor<IndexVisitor> {
public:
  IndexVisitor(const SourceManager &SM, SiteMap &Calls,
               llvm::DenseMap<const Decl *, unsigned> &References,
               SiteMap &Constructions)
      : SM(SM), Calls(Calls), References(References),
        Constructions(Constructions) {}

  bool TraverseDecl(Decl *D) {
    // LibTorch's own code calls nothing of the user's.
    if (D && !isa<TranslationUnitDecl>(D) &&
        isInLibTorchHeader(D->getLocation(), SM))
      return true;
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD)
      return true;
    Calls[writtenFunction(FD)].push_back(CE);
    if (const CXXRecordDecl *Made = madeByFactoryTemplate(FD))
      addConstruction(Made, CE);
    if (const CXXRecordDecl *Made = emplacedElement(CE))
      addConstruction(Made, CE);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getDecl()))
      ++References[writtenFunction(FD)];
    return true;
  }
  bool VisitMemberExpr(MemberExpr *E) {
    if (const auto *FD = dyn_cast<FunctionDecl>(E->getMemberDecl()))
      ++References[writtenFunction(FD)];
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *E) {
    addConstruction(E->getConstructor()->getParent(), E);
    return true;
  }

private:
  void addConstruction(const CXXRecordDecl *RD, const Stmt *Site) {
    if (!RD)
      return;
    Constructions[RD->getCanonicalDecl()].push_back(Site);
    if (const CXXRecordDecl *Held = heldModule(RD))
      Constructions[Held->getCanonicalDecl()].push_back(Site);
  }

  const SourceManager &SM;
  SiteMap &Calls;
  llvm::DenseMap<const Decl *, unsigned> &References;
  SiteMap &Constructions;
};

/// Whether the loop \p Loop runs its child \p Child more than once: its
/// body and condition do, a for's init and a range-for's range do not.
bool repeatsChild(const Stmt *Loop, const Stmt *Child, const ASTContext &Ctx) {
  if (const auto *For = dyn_cast<ForStmt>(Loop))
    return Child != For->getInit();
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    return Child == Range->getBody() || Child == Range->getLoopVarStmt();
  if (isa<WhileStmt>(Loop))
    return true;
  if (isa<DoStmt>(Loop))
    return !isRunOnceLoop(Loop, Ctx);
  return false;
}

/// A module's forward() or a functor's operator(): called once per step by
/// convention.
bool isPerStepMethod(const CXXMethodDecl *MD) {
  if (MD->getOverloadedOperator() == OO_Call)
    return true;
  return MD->getIdentifier() && MD->getName() == "forward";
}

} // namespace

void RunFrequency::buildIndex() {
  if (Indexed)
    return;
  Indexed = true;
  IndexVisitor Visitor(Ctx.getSourceManager(), Calls, References,
                       Constructions);
  for (Decl *D : Ctx.getTraversalScope())
    Visitor.TraverseDecl(D);
}

const llvm::SmallVector<const Stmt *, 4> *
RunFrequency::callsOf(const FunctionDecl *FD) {
  buildIndex();
  FD = writtenFunction(FD);
  static const llvm::SmallVector<const Stmt *, 4> None;
  auto It = Calls.find(FD);
  unsigned NumCalls = It == Calls.end() ? 0 : It->second.size();
  auto Refs = References.find(FD);
  unsigned NumRefs = Refs == References.end() ? 0 : Refs->second;
  // A reference that is not a call: its address goes somewhere.
  if (NumRefs > NumCalls)
    return nullptr;
  return It == Calls.end() ? &None : &It->second;
}

RepeatReason RunFrequency::ofNode(const Stmt *S, unsigned Depth) {
  DynTypedNode Cur = DynTypedNode::create(*S);
  const Stmt *Child = S;
  for (unsigned Steps = 0; Steps < 512; ++Steps) {
    DynTypedNodeList Parents = Ctx.getParents(Cur);
    if (Parents.empty())
      return {};
    const DynTypedNode &P = Parents[0];
    if (const auto *PS = P.get<Stmt>()) {
      // Where a lambda runs is not known here.
      if (isa<LambdaExpr>(PS))
        return {};
      if (repeatsChild(PS, Child, Ctx))
        return {Frequency::Repeated, PS, nullptr};
      Child = PS;
      Cur = P;
      continue;
    }
    if (const auto *FD = P.get<FunctionDecl>()) {
      RepeatReason R = ofFunctionAt(FD, Depth);
      if (R.Freq == Frequency::Repeated)
        R.Through = writtenFunction(FD);
      return R;
    }
    if (const auto *Field = P.get<FieldDecl>()) {
      const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
      return RD ? ofConstructions(RD, Depth) : RepeatReason();
    }
    if (const auto *VD = P.get<VarDecl>()) {
      // A static or global is initialized once.
      if (!VD->hasLocalStorage())
        return {Frequency::Once};
    } else if (!P.get<CXXCtorInitializer>()) {
      return {};
    }
    Cur = P;
  }
  return {};
}

RepeatReason RunFrequency::ofFunctionAt(const FunctionDecl *FD,
                                        unsigned Depth) {
  FD = writtenFunction(FD);
  if (FD->isMain())
    return {Frequency::Once};
  if (const auto *MD = dyn_cast<CXXMethodDecl>(FD)) {
    if (MD->getParent()->isLambda())
      return {};
    if (isa<CXXConstructorDecl>(MD))
      return ofConstructions(MD->getParent(), Depth);
    if (isPerStepMethod(MD))
      return {Frequency::Repeated, nullptr, MD};
    // Callers through the base class are not seen.
    if (MD->isVirtual())
      return {};
  }
  // A recursive function runs repeatedly.
  if (InProgress.contains(FD))
    return {Frequency::Repeated, nullptr, FD};
  const llvm::SmallVector<const Stmt *, 4> *Sites = callsOf(FD);
  if (Depth >= MaxCallDepth || !Sites || Sites->empty())
    return {};
  InProgress.insert(FD);
  RepeatReason Result{Frequency::Once};
  for (const Stmt *Site : *Sites) {
    RepeatReason R = ofNode(Site, Depth + 1);
    if (R.Freq == Frequency::Repeated) {
      Result = R;
      break;
    }
    if (R.Freq == Frequency::Unknown)
      Result.Freq = Frequency::Unknown;
  }
  InProgress.erase(FD);
  return Result;
}

RepeatReason RunFrequency::ofConstructions(const CXXRecordDecl *RD,
                                           unsigned Depth) {
  buildIndex();
  // An object made in no repeating code is set up once: the constructor
  // exemption.
  auto It = Constructions.find(RD->getCanonicalDecl());
  if (It == Constructions.end() || Depth >= MaxCallDepth ||
      InProgress.contains(RD->getCanonicalDecl()))
    return {Frequency::Once};
  InProgress.insert(RD->getCanonicalDecl());
  RepeatReason Result{Frequency::Once};
  for (const Stmt *Site : It->second) {
    RepeatReason R = ofNode(Site, Depth + 1);
    if (R.Freq == Frequency::Repeated) {
      Result = R;
      break;
    }
  }
  InProgress.erase(RD->getCanonicalDecl());
  return Result;
}

std::string describeRepeat(const RepeatReason &R) {
  if (!R.Through)
    return "in every iteration of a loop";
  std::string Fn = "'" + R.Through->getNameAsString() + "'";
  if (!R.Loop)
    return "in every call of " + Fn + ", which runs per step";
  return "in every call of " + Fn + ", called in a loop";
}

bool RunFrequency::isConstructedRepeatedly(const CXXRecordDecl *RD) {
  return ofConstructions(RD, 0).Freq == Frequency::Repeated;
}

} // namespace clang::tidy::torch::utils
