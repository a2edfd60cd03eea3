//===--- ConvBiasBeforeBatchNormCheck.cpp - libtorch-tidy -----------------===//
//
// BatchNorm subtracts the per-channel mean of its input, so the per-channel
// bias of a convolution that feeds it straight is subtracted right back out.
// The check finds the three ways LibTorch code wires a convolution into a
// BatchNorm (adjacent in a Sequential, module members called one after the
// other in a method, and either through a helper that builds the
// convolution), proves from the options expression that the bias is on, and
// reports the place that builds the convolution. Everything it cannot prove
// (a bias flag from a parameter, a convolution also used elsewhere) is left
// alone. Diagnostics are emitted at the end of the translation unit: whether
// a helper may be fixed in place depends on all of its callers, and a
// checkpoint loaded anywhere in the file rules fix-its out.
//
//===----------------------------------------------------------------------===//

#include "ConvBiasBeforeBatchNormCheck.h"
#include "utils/DeviceAnalysis.h"
#include "utils/FindingPayload.h"
#include "utils/TorchUtils.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

constexpr unsigned MaxHelperDepth = 4;

//===----------------------------------------------------------------------===//
// Module and options types
//===----------------------------------------------------------------------===//

enum class ModuleKind { None, Conv, BatchNorm, Other };

struct ModuleType {
  ModuleKind Kind = ModuleKind::None;
  /// "Conv2d", "ConvTranspose1d", "BatchNorm2d": the holder's name.
  std::string Name;
};

bool isInTorchNn(const Decl *D) {
  const auto *NS = dyn_cast<NamespaceDecl>(D->getDeclContext());
  if (!NS || NS->getName() != "nn")
    return false;
  const auto *Outer = dyn_cast<NamespaceDecl>(NS->getDeclContext());
  return Outer && Outer->getName() == "torch" &&
         Outer->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

const CXXRecordDecl *
templateArgRecord(const ClassTemplateSpecializationDecl *S) {
  const TemplateArgumentList &Args = S->getTemplateArgs();
  if (Args.size() < 1 || Args[0].getKind() != TemplateArgument::Type)
    return nullptr;
  return Args[0].getAsType()->getAsCXXRecordDecl();
}

/// The module class behind a ModuleHolder (`Conv2d`), a shared_ptr to it, or
/// the class itself: `Conv2dImpl`.
const CXXRecordDecl *moduleClass(QualType T) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  for (unsigned Step = 0; RD && Step < 3; ++Step) {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
    if (Spec && Spec->getName() == "shared_ptr" && Spec->isInStdNamespace()) {
      RD = templateArgRecord(Spec);
      continue;
    }
    if (Spec && Spec->getName() == "ModuleHolder" && isInTorchNn(Spec))
      return templateArgRecord(Spec);
    if (!RD->hasDefinition())
      return RD;
    const CXXRecordDecl *Holder = nullptr;
    for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases()) {
      const auto *B = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
          Base.getType()->getAsCXXRecordDecl());
      if (B && B->getName() == "ModuleHolder" && isInTorchNn(B))
        Holder = B;
    }
    if (!Holder)
      return RD;
    RD = Holder;
  }
  return RD;
}

ModuleType moduleType(QualType T) {
  const CXXRecordDecl *RD = moduleClass(T);
  if (!RD || !RD->getIdentifier())
    return {};
  if (!isInTorchNn(RD))
    return {ModuleKind::Other, RD->getName().str()};
  StringRef Name = RD->getName();
  if (!Name.consume_back("Impl"))
    return {ModuleKind::Other, Name.str()};
  StringRef Dim = Name;
  if (!Dim.consume_back("d") || Dim.empty() ||
      !StringRef("123").contains(Dim.back()))
    return {ModuleKind::Other, Name.str()};
  Dim = Dim.drop_back();
  if (Dim == "Conv" || Dim == "ConvTranspose")
    return {ModuleKind::Conv, Name.str()};
  if (Dim == "BatchNorm")
    return {ModuleKind::BatchNorm, Name.str()};
  return {ModuleKind::Other, Name.str()};
}

/// `ConvOptions<D>` or `ConvTransposeOptions<D>`, through aliases.
bool isConvOptions(QualType T) {
  const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      T.getNonReferenceType()->getAsCXXRecordDecl());
  return Spec && isInTorchNn(Spec) &&
         (Spec->getName() == "ConvOptions" ||
          Spec->getName() == "ConvTransposeOptions");
}

bool isTorchNnModuleMethod(const FunctionDecl *FD, StringRef Name) {
  const auto *M = dyn_cast_or_null<CXXMethodDecl>(FD);
  return M && M->getIdentifier() && M->getName() == Name &&
         isInTorchNn(M->getParent()) && M->getParent()->getName() == "Module";
}

/// Implicit casts, parentheses and temporaries, but not the converting
/// constructors that ignoreWrappers also skips: a `Conv2d(options)` has to
/// stay a constructor here.
const Expr *strip(const Expr *E) { return utils::ignoreTemporaries(E); }

/// strip(), and also the copy and move constructors of \p E's own type, which
/// the AST puts around a value passed on by value.
const Expr *stripCopies(const Expr *E) {
  while (true) {
    E = strip(E);
    const auto *CE = dyn_cast_or_null<CXXConstructExpr>(E);
    if (!CE || CE->getNumArgs() != 1 ||
        !CE->getConstructor()->isCopyOrMoveConstructor())
      return E;
    E = CE->getArg(0);
  }
}

//===----------------------------------------------------------------------===//
// Is the bias on?
//===----------------------------------------------------------------------===//

enum class Bias { On, Off, Unknown };

/// Where a convolution's bias is decided, and how to turn it off there.
struct BiasSite {
  Bias State = Bias::Unknown;

  enum class FixKind {
    None,
    /// Append `.bias(false)` after Target, an options expression.
    AppendToOptions,
    /// Replace Target, the argument of `.bias(...)`, with `false`.
    ReplaceArgument,
    /// Replace the arguments Target..LastArg of the `(in, out, kernel)`
    /// constructor with `torch::nn::<Name>Options(...).bias(false)`.
    WrapArguments,
  };
  FixKind Fix = FixKind::None;
  const Expr *Target = nullptr;
  const Expr *LastArg = nullptr;
  std::string ConvName;
  /// Why the site itself cannot be rewritten.
  std::string NoFix;

  /// Built by a function of the user's: the call, and where the helper
  /// decides the bias, one site per return statement.
  const FunctionDecl *Helper = nullptr;
  const CallExpr *HelperCall = nullptr;
  std::vector<BiasSite> HelperReturns;

  /// The expression that builds the convolution module, where it is
  /// reported.
  const Expr *Built = nullptr;
};

class BiasAnalyzer {
public:
  BiasAnalyzer(ASTContext &Ctx, const SourceManager &SM) : Ctx(Ctx), SM(SM) {}

  /// \p E evaluates to a convolution module (holder, shared_ptr or impl).
  BiasSite ofModule(const Expr *E, unsigned Depth = 0);
  /// \p E evaluates to a ConvOptions.
  BiasSite ofOptions(const Expr *E, unsigned Depth = 0);

private:
  BiasSite ofOptionsChain(const Expr *E, unsigned Depth);
  BiasSite ofConstructorArgs(const Expr *const *Args, unsigned NumArgs,
                             const std::string &ConvName, unsigned Depth);
  BiasSite ofHelper(const CallExpr *Call, bool ReturnsOptions, unsigned Depth);
  BiasSite ofVariable(const DeclRefExpr *Ref, bool IsOptions, unsigned Depth);

  ASTContext &Ctx;
  const SourceManager &SM;
};

BiasSite BiasAnalyzer::ofModule(const Expr *E, unsigned Depth) {
  BiasSite Unknown;
  E = strip(E);
  if (!E || Depth > MaxHelperDepth)
    return Unknown;
  auto BuiltBy = [E](BiasSite Site) {
    if (!Site.Built)
      Site.Built = E;
    return Site;
  };
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    std::string Name = moduleType(CE->getType()).Name;
    if (CE->getNumArgs() == 1) {
      const Expr *Arg = CE->getArg(0);
      // An empty holder (`Conv2d conv{nullptr}`) builds nothing.
      if (strip(Arg)->getType()->isNullPtrType())
        return Unknown;
      if (isConvOptions(Arg->getType()))
        return BuiltBy(ofOptions(Arg, Depth));
      if (moduleType(Arg->getType()).Kind == ModuleKind::Conv)
        return ofModule(Arg, Depth);
      return Unknown;
    }
    return BuiltBy(
        ofConstructorArgs(CE->getArgs(), CE->getNumArgs(), Name, Depth));
  }
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = Call->getDirectCallee();
    if (!FD)
      return Unknown;
    if (isTorchNnModuleMethod(FD, "register_module") && Call->getNumArgs() == 2)
      return ofModule(Call->getArg(1), Depth);
    if (FD->getIdentifier() && FD->getName() == "make_shared" &&
        FD->isInStdNamespace()) {
      std::string Name = moduleType(Call->getType()).Name;
      if (Call->getNumArgs() == 1 && isConvOptions(Call->getArg(0)->getType()))
        return BuiltBy(ofOptions(Call->getArg(0), Depth));
      return BuiltBy(
          ofConstructorArgs(Call->getArgs(), Call->getNumArgs(), Name, Depth));
    }
    return BuiltBy(ofHelper(Call, /*ReturnsOptions=*/false, Depth));
  }
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return ofVariable(Ref, /*IsOptions=*/false, Depth);
  return Unknown;
}

/// The `(in_channels, out_channels, kernel_size)` constructor: bias on.
BiasSite BiasAnalyzer::ofConstructorArgs(const Expr *const *Args,
                                         unsigned NumArgs,
                                         const std::string &ConvName,
                                         unsigned Depth) {
  BiasSite Site;
  if (NumArgs != 3 || ConvName.empty())
    return Site;
  for (unsigned I = 0; I < 2; ++I)
    if (!strip(Args[I])->getType()->isIntegerType())
      return Site;
  Site.State = Bias::On;
  Site.Fix = BiasSite::FixKind::WrapArguments;
  Site.Target = Args[0];
  Site.LastArg = Args[2];
  Site.ConvName = ConvName;
  return Site;
}

BiasSite BiasAnalyzer::ofOptions(const Expr *E, unsigned Depth) {
  BiasSite Site = ofOptionsChain(E, Depth);
  // The default bias of the constructor at the root of the chain is turned
  // off at the end of the whole expression, after the other setters.
  if (Site.State == Bias::On &&
      Site.Fix == BiasSite::FixKind::AppendToOptions && !Site.Target)
    Site.Target = strip(E);
  return Site;
}

BiasSite BiasAnalyzer::ofOptionsChain(const Expr *E, unsigned Depth) {
  BiasSite Unknown;
  E = strip(E);
  if (!E || Depth > MaxHelperDepth)
    return Unknown;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) {
    const CXXMethodDecl *M = MC->getMethodDecl();
    if (!M || !M->getIdentifier() ||
        !isConvOptions(Ctx.getRecordType(M->getParent())))
      return Unknown;
    if (M->getName() == "bias" && MC->getNumArgs() == 1) {
      BiasSite Site;
      std::optional<bool> Value = utils::provableBool(MC->getArg(0), Ctx);
      if (!Value)
        return Unknown;
      Site.State = *Value ? Bias::On : Bias::Off;
      Site.Fix = BiasSite::FixKind::ReplaceArgument;
      Site.Target = MC->getArg(0);
      return Site;
    }
    // Another setter: the bias is whatever the object it is called on has.
    return ofOptionsChain(MC->getImplicitObjectArgument(), Depth);
  }
  if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
    if (!isConvOptions(CE->getType()))
      return Unknown;
    if (CE->getNumArgs() == 1 && isConvOptions(CE->getArg(0)->getType()))
      return ofOptionsChain(CE->getArg(0), Depth);
    if (CE->getNumArgs() != 3)
      return Unknown;
    BiasSite Site;
    Site.State = Bias::On;
    Site.Fix = BiasSite::FixKind::AppendToOptions;
    return Site;
  }
  if (const auto *Call = dyn_cast<CallExpr>(E))
    return ofHelper(Call, /*ReturnsOptions=*/true, Depth);
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return ofVariable(Ref, /*IsOptions=*/true, Depth);
  return Unknown;
}

/// Collects the return statements of a function, not those of the lambdas
/// and local classes in it.
class ReturnCollector : public RecursiveASTVisitor<ReturnCollector> {
public:
  std::vector<const ReturnStmt *> Returns;
  bool VisitReturnStmt(ReturnStmt *R) {
    Returns.push_back(R);
    return true;
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  bool TraverseCXXRecordDecl(CXXRecordDecl *) { return true; }
};

BiasSite BiasAnalyzer::ofHelper(const CallExpr *Call, bool ReturnsOptions,
                                unsigned Depth) {
  BiasSite Site;
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD || FD->isTemplateInstantiation() ||
      isa<CXXMethodDecl>(FD) &&
          cast<CXXMethodDecl>(FD)->getParent()->isLambda())
    return Site;
  const FunctionDecl *Def = FD->getDefinition();
  if (!Def || !Def->hasBody() || Def->isInStdNamespace() ||
      utils::isInLibTorchHeader(Def->getLocation(), SM))
    return Site;
  ReturnCollector Collector;
  Collector.TraverseStmt(Def->getBody());
  if (Collector.Returns.empty())
    return Site;
  bool AllOn = true, AllOff = true;
  for (const ReturnStmt *R : Collector.Returns) {
    if (!R->getRetValue())
      return Site;
    BiasSite Inner = ReturnsOptions ? ofOptions(R->getRetValue(), Depth + 1)
                                    : ofModule(R->getRetValue(), Depth + 1);
    AllOn &= Inner.State == Bias::On;
    AllOff &= Inner.State == Bias::Off;
    Site.HelperReturns.push_back(std::move(Inner));
  }
  if (!AllOn)
    return BiasSite{AllOff ? Bias::Off : Bias::Unknown};
  Site.State = Bias::On;
  Site.Built = nullptr;
  Site.Helper = Def;
  Site.HelperCall = Call;
  Site.ConvName = moduleType(Call->getType()).Name;
  // A helper that returns options can be fixed at the call site too.
  if (ReturnsOptions) {
    Site.Fix = BiasSite::FixKind::AppendToOptions;
    Site.Target = Call;
  }
  return Site;
}

/// A local variable holding the options or the module. Its initializer
/// decides, unless the variable is changed or used again: then the bias
/// depends on more than this expression, or a fix-it on the initializer would
/// change the other uses too.
BiasSite BiasAnalyzer::ofVariable(const DeclRefExpr *Ref, bool IsOptions,
                                  unsigned Depth) {
  BiasSite Unknown;
  const auto *VD = dyn_cast<VarDecl>(Ref->getDecl());
  if (!VD || isa<ParmVarDecl>(VD) || !VD->isLocalVarDecl() ||
      VD->isStaticLocal() || !VD->getInit() || VD->getType()->isReferenceType())
    return Unknown;
  const Stmt *Body = utils::enclosingFunctionBody(VD);
  if (!Body)
    return Unknown;
  auto Uses =
      match(findAll(declRefExpr(to(varDecl(equalsNode(VD)))).bind("use")),
            *Body, Ctx);
  ExprMutationAnalyzer Mutations(*Body, Ctx);
  unsigned OtherUses = 0;
  for (const BoundNodes &Use : Uses) {
    const auto *Other = Use.getNodeAs<DeclRefExpr>("use");
    if (Other == Ref)
      continue;
    if (!IsOptions)
      return Unknown;
    // `opts.stride(2);` keeps the bias; `opts.bias(...)`, an assignment or a
    // non-const reference may change it.
    bool Setter = false;
    for (const DynTypedNode &P : Ctx.getParents(*Other))
      if (const auto *ME = P.get<MemberExpr>())
        if (const auto *M = dyn_cast<CXXMethodDecl>(ME->getMemberDecl()))
          Setter = M->getIdentifier() && M->getName() != "bias" &&
                   isConvOptions(Ctx.getRecordType(M->getParent()));
    if (Setter)
      continue;
    if (Mutations.isMutated(Other))
      return Unknown;
    ++OtherUses;
  }
  BiasSite Site = IsOptions ? ofOptions(VD->getInit(), Depth + 1)
                            : ofModule(VD->getInit(), Depth + 1);
  if (Site.State == Bias::On && OtherUses && Site.NoFix.empty() &&
      !Site.Helper) {
    Site.Fix = BiasSite::FixKind::None;
    Site.NoFix =
        "options variable '" + VD->getName().str() + "' is used elsewhere too";
  }
  return Site;
}

//===----------------------------------------------------------------------===//
// Which BatchNorm takes the output
//===----------------------------------------------------------------------===//

struct BatchNormUse {
  std::string Description; // "BatchNorm2d 'bn1'"
  SourceLocation Loc;
};

/// The name a module is held under: a member, a variable, or the name of a
/// Sequential entry.
std::string nameOfHolder(const Expr *E) {
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
  U.Description = TypeName + (Name.empty() ? "" : " '" + Name + "'");
  U.Loc = Loc;
  return U;
}

/// For a call of a module's forward (`m(x)`, `m->forward(x)`), the module
/// expression and the input.
struct ModuleCall {
  const Expr *Module = nullptr;
  const Expr *Input = nullptr;
};

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
// Traversal of the user's code
//===----------------------------------------------------------------------===//

/// Visits the declarations of the translation unit that are not LibTorch's
/// or the standard library's.
template <typename Derived>
class UserCodeVisitor : public RecursiveASTVisitor<Derived> {
public:
  explicit UserCodeVisitor(const SourceManager &SM) : SM(SM) {}
  void visitUserCode(ASTContext &Ctx) {
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (!utils::isInLibTorchHeader(D->getLocation(), SM))
        this->TraverseDecl(D);
  }
  bool shouldVisitTemplateInstantiations() const { return false; }

protected:
  const SourceManager &SM;
};

/// The uses of some fields and functions.
class UseCollector : public UserCodeVisitor<UseCollector> {
public:
  using UserCodeVisitor::UserCodeVisitor;
  llvm::SmallPtrSet<const FieldDecl *, 8> Fields;
  llvm::SmallPtrSet<const FunctionDecl *, 8> Functions;
  llvm::DenseMap<const FieldDecl *, std::vector<const MemberExpr *>> FieldUses;
  llvm::DenseMap<const FunctionDecl *, std::vector<const Expr *>> FunctionUses;

  bool VisitMemberExpr(MemberExpr *ME) {
    if (const auto *FD = dyn_cast<FieldDecl>(ME->getMemberDecl()))
      if (Fields.count(FD))
        FieldUses[FD].push_back(ME);
    if (const auto *FD = dyn_cast<FunctionDecl>(ME->getMemberDecl()))
      if (Functions.count(FD->getCanonicalDecl()))
        FunctionUses[FD->getCanonicalDecl()].push_back(ME);
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *DRE) {
    if (const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
      if (Functions.count(FD->getCanonicalDecl()))
        FunctionUses[FD->getCanonicalDecl()].push_back(DRE);
    return true;
  }
};

struct Candidate {
  const Expr *Source = nullptr; // evaluates to the convolution
  BiasSite Site;
  BatchNormUse BatchNorm;

  /// Where the convolution is built, which is where it is reported.
  const Expr *reportAt() const { return Site.Built ? Site.Built : Source; }
};

} // namespace

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

struct ConvBiasBeforeBatchNormCheck::State {
  ASTContext *Ctx = nullptr;
  const SourceManager *SM = nullptr;
  std::vector<Candidate> Candidates;
  llvm::SetVector<const CXXRecordDecl *> ClassesWithConvs;
  SourceLocation CheckpointLoad;
  std::string CheckpointLoader;
};

ConvBiasBeforeBatchNormCheck::ConvBiasBeforeBatchNormCheck(
    StringRef Name, ClangTidyContext *Context)
    : TorchCheck(Name, Context), CheckpointLoaders([&] {
        std::vector<StringRef> Names;
        StringRef List = Options.get("CheckpointLoaders", "load_state_dict");
        SmallVector<StringRef, 4> Parts;
        List.split(Parts, ';', -1, /*KeepEmpty=*/false);
        for (StringRef P : Parts)
          if (!P.trim().empty())
            Names.push_back(P.trim());
        return Names;
      }()),
      TU(std::make_unique<State>()) {}

ConvBiasBeforeBatchNormCheck::~ConvBiasBeforeBatchNormCheck() = default;

void ConvBiasBeforeBatchNormCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(
      Opts, "CheckpointLoaders",
      llvm::join(CheckpointLoaders.begin(), CheckpointLoaders.end(), ";"));
}

void ConvBiasBeforeBatchNormCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto SequentialClass = cxxRecordDecl(
      hasAnyName("::torch::nn::Sequential", "::torch::nn::SequentialImpl"));
  Finder->addMatcher(cxxConstructExpr(utils::isOutsideLibTorch(),
                                      hasType(SequentialClass),
                                      unless(isInTemplateInstantiation()))
                         .bind("sequential"),
                     this);
  Finder->addMatcher(
      cxxMemberCallExpr(utils::isOutsideLibTorch(),
                        callee(cxxMethodDecl(
                            hasName("push_back"),
                            ofClass(hasName("::torch::nn::SequentialImpl")))),
                        unless(isInTemplateInstantiation()))
          .bind("push_back"),
      this);
  Finder->addMatcher(fieldDecl(utils::isOutsideLibTorch()).bind("field"),
                     this);

  std::vector<StringRef> Loaders(CheckpointLoaders);
  Finder->addMatcher(
      callExpr(utils::isOutsideLibTorch(),
               callee(functionDecl(anyOf(hasAnyName("::torch::load",
                                                    "::torch::jit::load"),
                                         hasAnyName(Loaders)))
                          .bind("loader")))
          .bind("load"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(
          utils::isOutsideLibTorch(),
          callee(cxxMethodDecl(hasName("load"),
                               ofClass(hasName("::torch::nn::Module")))
                     .bind("loader")))
          .bind("load"),
      this);
}

namespace {

/// The entries of a Sequential's constructor: the modules, with the names
/// of the `{"name", module}` form.
struct Entry {
  const Expr *Module;
  std::string Name;
};

std::string stringLiteralIn(const Expr *E) {
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

const Stmt *nextStatement(const Stmt *S, const CompoundStmt *C) {
  for (auto It = C->body_begin(), End = C->body_end(); It != End; ++It)
    if (*It == S)
      return std::next(It) == End ? nullptr : *std::next(It);
  return nullptr;
}

/// The declaration a Sequential is reached through: `seq->push_back` or
/// `this->seq->push_back`.
const ValueDecl *pushBackTarget(const CXXMemberCallExpr *Call) {
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

const CXXMemberCallExpr *asPushBack(const Stmt *S) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  const auto *Call = E ? dyn_cast<CXXMemberCallExpr>(strip(E)) : nullptr;
  const CXXMethodDecl *M = Call ? Call->getMethodDecl() : nullptr;
  if (!M || !M->getIdentifier() || M->getName() != "push_back" ||
      M->getParent()->getName() != "SequentialImpl" || Call->getNumArgs() == 0)
    return nullptr;
  return Call;
}

} // namespace

void ConvBiasBeforeBatchNormCheck::check(
    const MatchFinder::MatchResult &Result) {
  TU->Ctx = Result.Context;
  TU->SM = Result.SourceManager;
  const SourceManager &SM = *Result.SourceManager;
  ASTContext &Ctx = *Result.Context;
  BiasAnalyzer Analyzer(Ctx, SM);
  auto AddCandidate = [&](const Expr *Module, BatchNormUse BN) {
    BiasSite Site = Analyzer.ofModule(Module);
    if (Site.State == Bias::On)
      TU->Candidates.push_back({strip(Module), std::move(Site), std::move(BN)});
  };

  if (const auto *Load = Result.Nodes.getNodeAs<CallExpr>("load")) {
    if (utils::isInLibTorchHeader(Load->getBeginLoc(), SM))
      return;
    const auto *Loader = Result.Nodes.getNodeAs<FunctionDecl>("loader");
    // torch::load(optimizer, ...) and torch::load(tensor, ...) load no
    // module weights.
    if (Loader->getQualifiedNameAsString() == "torch::load" &&
        (Load->getNumArgs() == 0 ||
         !utils::isSameOrDerivedFrom(moduleClass(Load->getArg(0)->getType()),
                                     "torch::nn::Module")))
      return;
    if (TU->CheckpointLoad.isInvalid() ||
        SM.isBeforeInTranslationUnit(Load->getBeginLoc(), TU->CheckpointLoad)) {
      TU->CheckpointLoad = Load->getBeginLoc();
      TU->CheckpointLoader = Loader->getQualifiedNameAsString();
    }
    return;
  }

  if (const auto *Field = Result.Nodes.getNodeAs<FieldDecl>("field")) {
    const auto *RD = dyn_cast<CXXRecordDecl>(Field->getParent());
    if (RD && !isa<ClassTemplateSpecializationDecl>(RD) &&
        !utils::isInLibTorchHeader(Field->getLocation(), SM) &&
        moduleType(Field->getType()).Kind == ModuleKind::Conv)
      TU->ClassesWithConvs.insert(RD);
    return;
  }

  if (const auto *Seq =
          Result.Nodes.getNodeAs<CXXConstructExpr>("sequential")) {
    if (utils::isInLibTorchHeader(Seq->getBeginLoc(), SM))
      return;
    std::vector<Entry> Entries = sequentialEntries(Seq);
    for (size_t I = 0; I + 1 < Entries.size(); ++I) {
      ModuleType Next = moduleType(Entries[I + 1].Module->getType());
      if (moduleType(Entries[I].Module->getType()).Kind == ModuleKind::Conv &&
          Next.Kind == ModuleKind::BatchNorm)
        AddCandidate(
            Entries[I].Module,
            describeBatchNorm(Next.Name, Entries[I + 1].Name,
                              strip(Entries[I + 1].Module)->getBeginLoc()));
    }
    return;
  }

  if (const auto *Push =
          Result.Nodes.getNodeAs<CXXMemberCallExpr>("push_back")) {
    if (utils::isInLibTorchHeader(Push->getBeginLoc(), SM))
      return;
    const Expr *ConvArg = Push->getArg(Push->getNumArgs() - 1);
    if (moduleType(ConvArg->getType()).Kind != ModuleKind::Conv)
      return;
    auto [Statement, Compound] = utils::statementInBlock(Push, Ctx);
    if (!Compound || asPushBack(Statement) != Push)
      return;
    const CXXMemberCallExpr *NextPush =
        asPushBack(nextStatement(Statement, Compound));
    const ValueDecl *Target = pushBackTarget(Push);
    if (!NextPush || !Target || pushBackTarget(NextPush) != Target)
      return;
    const Expr *BNArg = NextPush->getArg(NextPush->getNumArgs() - 1);
    ModuleType BN = moduleType(BNArg->getType());
    if (BN.Kind != ModuleKind::BatchNorm)
      return;
    std::string Name =
        NextPush->getNumArgs() == 2 ? stringLiteralIn(NextPush->getArg(0)) : "";
    AddCandidate(ConvArg,
                 describeBatchNorm(BN.Name, Name, strip(BNArg)->getBeginLoc()));
    return;
  }
}

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
  std::optional<BatchNormUse> consumer(const Expr *Call);
  const Stmt *skipUp(const Stmt *S, const Stmt **Child);

  ASTContext &Ctx;
  const UseCollector &Uses;
};

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

/// The BatchNorm that takes the result of \p Call, a call of a convolution
/// module, as its input and nothing else does.
std::optional<BatchNormUse> MemberAnalysis::consumer(const Expr *Call) {
  const Stmt *Child = nullptr;
  const Stmt *Parent = skipUp(Call, &Child);
  auto BatchNormOf = [&](const Expr *E) -> std::optional<BatchNormUse> {
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
  };

  // bn(conv(x)), bn->forward(conv->forward(x))
  if (const auto *ParentCall = dyn_cast_or_null<Expr>(Parent))
    if (std::optional<ModuleCall> MC = asModuleCall(ParentCall);
        MC && stripCopies(MC->Input) == strip(Call))
      return BatchNormOf(ParentCall);

  // auto y = conv(x);  /  x = conv(x);  followed by  y = bn(y);
  const VarDecl *Var = nullptr;
  const Stmt *Statement = nullptr;
  bool Declared = false;
  DynTypedNodeList Parents = Ctx.getParents(*Child);
  if (!Parents.empty())
    if (const auto *VD = Parents[0].get<VarDecl>()) {
      Var = VD;
      Declared = true;
      Statement = nullptr;
      for (const DynTypedNode &P : Ctx.getParents(*VD))
        if (const auto *DS = P.get<DeclStmt>(); DS && DS->isSingleDecl())
          Statement = DS;
    }
  if (!Var)
    if (const auto *Assign = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
        Assign && Assign->getOperator() == OO_Equal &&
        Assign->getNumArgs() == 2 && Assign->getArg(1) == Child)
      if (const auto *DRE = dyn_cast<DeclRefExpr>(strip(Assign->getArg(0)))) {
        Var = dyn_cast<VarDecl>(DRE->getDecl());
        // The statement is the assignment with its cleanups; it has to be a
        // statement of the compound, not part of a larger expression.
        const Stmt *Above = Assign;
        skipUp(Assign, &Above);
        Statement = Above;
      }
  if (!Var || !Statement)
    return std::nullopt;
  auto [Stmt0, Compound] = utils::statementInBlock(Statement, Ctx);
  if (Stmt0 != Statement || !Compound)
    return std::nullopt;
  const Stmt *Next = nextStatement(Statement, Compound);
  if (!Next)
    return std::nullopt;
  // `x = bn(x);` overwrites the convolution's output: the variable is not
  // read after the BatchNorm.
  const DeclRefExpr *Overwritten = nullptr;
  if (const auto *NextExpr = dyn_cast<Expr>(Next))
    if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(strip(NextExpr));
        Assign && Assign->getOperator() == OO_Equal)
      if (const auto *LHS = dyn_cast<DeclRefExpr>(strip(Assign->getArg(0)));
          LHS && LHS->getDecl() == Var)
        Overwritten = LHS;
  const DeclRefExpr *Ref = nullptr;
  for (const BoundNodes &Found :
       match(findAll(declRefExpr(to(varDecl(equalsNode(Var)))).bind("ref")),
             *Next, Ctx)) {
    const auto *R = Found.getNodeAs<DeclRefExpr>("ref");
    if (R == Overwritten)
      continue;
    if (Ref)
      return std::nullopt;
    Ref = R;
  }
  if (!Ref)
    return std::nullopt;
  // The single reference must be the BatchNorm's input.
  const Stmt *RefChild = nullptr;
  const Stmt *RefParent = skipUp(Ref, &RefChild);
  const auto *BNCall = dyn_cast_or_null<Expr>(RefParent);
  std::optional<ModuleCall> MC = BNCall ? asModuleCall(BNCall) : std::nullopt;
  if (!MC || stripCopies(MC->Input) != Ref)
    return std::nullopt;
  std::optional<BatchNormUse> BN = BatchNormOf(BNCall);
  if (!BN)
    return std::nullopt;
  // The convolution's output must not be read after the BatchNorm: either
  // the next statement overwrites the variable, or nothing reads it again.
  if (Overwritten)
    return BN;
  if (!Declared)
    return std::nullopt;
  bool After = false;
  for (const Stmt *S : Compound->body()) {
    if (After &&
        !match(findAll(declRefExpr(to(varDecl(equalsNode(Var))))), *S, Ctx)
             .empty())
      return std::nullopt;
    if (S == Next)
      After = true;
  }
  return BN;
}

std::optional<std::pair<BatchNormUse, std::vector<const Expr *>>>
MemberAnalysis::analyze(const FieldDecl *Field, const CXXRecordDecl *RD) {
  std::vector<const Expr *> Sources;
  std::optional<BatchNormUse> First;
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
  auto It = Uses.FieldUses.find(Field);
  if (It == Uses.FieldUses.end())
    return std::nullopt;
  unsigned Calls = 0;
  for (const MemberExpr *Use : It->second) {
    const Stmt *Child = nullptr;
    const Stmt *Parent = skipUp(Use, &Child);
    const auto *OC = dyn_cast_or_null<CXXOperatorCallExpr>(Parent);
    // conv = register_module(...)  /  conv = Conv2d(...)
    if (OC && OC->getOperator() == OO_Equal && OC->getArg(0) == Child) {
      Sources.push_back(OC->getArg(1));
      continue;
    }
    // register_module("conv", conv)
    if (const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
        Call && !OC &&
        isTorchNnModuleMethod(Call->getDirectCallee(), "register_module"))
      continue;
    // if (conv)
    if (const auto *ME = dyn_cast_or_null<MemberExpr>(Parent);
        ME && isa<CXXConversionDecl>(ME->getMemberDecl()))
      continue;
    // conv(x)
    const Expr *Call = nullptr;
    if (OC && OC->getOperator() == OO_Call && OC->getArg(0) == Child)
      Call = OC;
    // conv->forward(x)
    if (OC && OC->getOperator() == OO_Arrow)
      if (const Stmt *Up = skipUp(OC, nullptr))
        if (const auto *ME = dyn_cast<MemberExpr>(Up))
          if (const Stmt *Up2 = skipUp(ME, nullptr))
            if (const auto *MC = dyn_cast<CXXMemberCallExpr>(Up2);
                MC && MC->getCallee()->IgnoreParens() == ME && asModuleCall(MC))
              Call = MC;
    if (!Call)
      return std::nullopt;
    std::optional<BatchNormUse> BN = consumer(Call);
    if (!BN)
      return std::nullopt;
    if (!First)
      First = BN;
    ++Calls;
  }
  if (!Calls || Sources.empty())
    return std::nullopt;
  return std::make_pair(*First, Sources);
}

std::string lineOf(SourceLocation Loc, const SourceManager &SM) {
  return std::to_string(SM.getExpansionLineNumber(Loc));
}

} // namespace

void ConvBiasBeforeBatchNormCheck::onEndOfTranslationUnit() {
  std::unique_ptr<State> S = std::move(TU);
  TU = std::make_unique<State>();
  if (!S->Ctx)
    return;
  ASTContext &Ctx = *S->Ctx;
  const SourceManager &SM = *S->SM;
  const LangOptions &LangOpts = getLangOpts();
  BiasAnalyzer Analyzer(Ctx, SM);

  // Convolution members of the user's classes.
  if (!S->ClassesWithConvs.empty()) {
    UseCollector Uses(SM);
    for (const CXXRecordDecl *RD : S->ClassesWithConvs)
      for (const FieldDecl *F : RD->fields())
        if (moduleType(F->getType()).Kind == ModuleKind::Conv)
          Uses.Fields.insert(F);
    Uses.visitUserCode(Ctx);
    MemberAnalysis Members(Ctx, Uses);
    for (const CXXRecordDecl *RD : S->ClassesWithConvs)
      for (const FieldDecl *F : RD->fields()) {
        if (!Uses.Fields.count(F))
          continue;
        auto Found = Members.analyze(F, RD);
        if (!Found)
          continue;
        for (const Expr *Source : Found->second) {
          BiasSite Site = Analyzer.ofModule(Source);
          if (Site.State == Bias::On)
            S->Candidates.push_back(
                {strip(Source), std::move(Site), Found->first});
        }
      }
  }

  // One diagnostic per construction, in source order.
  llvm::SmallPtrSet<const Expr *, 16> Seen;
  std::vector<Candidate> Candidates;
  for (Candidate &C : S->Candidates)
    if (!utils::isInLibTorchHeader(C.reportAt()->getBeginLoc(), SM) &&
        Seen.insert(C.reportAt()).second)
      Candidates.push_back(std::move(C));
  llvm::sort(Candidates, [&](const Candidate &A, const Candidate &B) {
    return SM.isBeforeInTranslationUnit(A.reportAt()->getBeginLoc(),
                                        B.reportAt()->getBeginLoc());
  });

  // Helpers: fixed in place when every call of the helper is one of ours.
  UseCollector HelperUses(SM);
  for (const Candidate &C : Candidates)
    if (C.Site.Helper)
      HelperUses.Functions.insert(C.Site.Helper->getCanonicalDecl());
  if (!HelperUses.Functions.empty())
    HelperUses.visitUserCode(Ctx);

  auto FixesAt = [&](const BiasSite &Site,
                     std::vector<FixItHint> &Fixes) -> bool {
    auto InMacro = [](SourceLocation L) { return L.isMacroID(); };
    switch (Site.Fix) {
    case BiasSite::FixKind::None:
      return false;
    case BiasSite::FixKind::AppendToOptions: {
      SourceLocation End =
          Lexer::getLocForEndOfToken(Site.Target->getEndLoc(), 0, SM, LangOpts);
      if (InMacro(Site.Target->getBeginLoc()) || End.isInvalid())
        return false;
      Fixes.push_back(FixItHint::CreateInsertion(End, ".bias(false)"));
      return true;
    }
    case BiasSite::FixKind::ReplaceArgument:
      if (InMacro(Site.Target->getBeginLoc()) ||
          InMacro(Site.Target->getEndLoc()))
        return false;
      Fixes.push_back(
          FixItHint::CreateReplacement(Site.Target->getSourceRange(), "false"));
      return true;
    case BiasSite::FixKind::WrapArguments: {
      SourceRange Args(Site.Target->getBeginLoc(), Site.LastArg->getEndLoc());
      if (InMacro(Args.getBegin()) || InMacro(Args.getEnd()))
        return false;
      std::string Text = utils::sourceText(Args, SM, LangOpts);
      if (Text.empty())
        return false;
      Fixes.push_back(FixItHint::CreateReplacement(
          CharSourceRange::getTokenRange(Args),
          "torch::nn::" + Site.ConvName + "Options(" + Text + ").bias(false)"));
      return true;
    }
    }
    return false;
  };

  llvm::SmallPtrSet<const FunctionDecl *, 4> HelpersFixed;
  for (const Candidate &C : Candidates) {
    const BiasSite &Site = C.Site;
    std::string Conv = moduleType(C.Source->getType()).Name;
    std::string What = Site.Helper ? "bias of the " + Conv + " from '" +
                                         Site.Helper->getNameAsString() + "'"
                                   : "bias of this " + Conv;
    std::string Message = What + " is cancelled by the " +
                          C.BatchNorm.Description + " at line " +
                          lineOf(C.BatchNorm.Loc, SM) +
                          ", which subtracts the per-channel mean right after; "
                          "build the convolution with .bias(false)";
    std::vector<FixItHint> Fixes;
    std::string NoFix;
    if (S->CheckpointLoad.isValid()) {
      NoFix = "weights are loaded from a checkpoint (" + S->CheckpointLoader +
              " at line " + lineOf(S->CheckpointLoad, SM) +
              ") and one saved with the bias would no longer load";
    } else if (Site.Helper) {
      auto It = HelperUses.FunctionUses.find(Site.Helper->getCanonicalDecl());
      bool AllCallsFollowed = It != HelperUses.FunctionUses.end();
      SourceLocation Elsewhere = Site.Helper->getLocation();
      if (AllCallsFollowed)
        for (const Expr *Use : It->second) {
          bool Ours = llvm::any_of(Candidates, [&](const Candidate &O) {
            return O.Site.HelperCall && O.Site.Helper == Site.Helper &&
                   O.Site.HelperCall->getCallee()->IgnoreParenImpCasts() == Use;
          });
          if (!Ours) {
            AllCallsFollowed = false;
            Elsewhere = Use->getBeginLoc();
            break;
          }
        }
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
      if (AllCallsFollowed && Direct && OnlyHere) {
        if (HelpersFixed.insert(Site.Helper).second) {
          for (const BiasSite &R : Site.HelperReturns)
            if (!FixesAt(R, Fixes)) {
              Fixes.clear();
              NoFix = "the bias is set in a macro in '" +
                      Site.Helper->getNameAsString() + "'";
              break;
            }
        }
        // Later calls share the fix made with the first one.
      } else if (!FixesAt(Site, Fixes)) {
        std::string Helper = "'" + Site.Helper->getNameAsString() + "'";
        if (!AllCallsFollowed)
          NoFix = Helper +
                  " also builds convolutions that no BatchNorm "
                  "follows (line " +
                  lineOf(Elsewhere, SM) + "); pass the bias as a parameter";
        else if (!OnlyHere)
          NoFix = Helper + " is declared in a header, so other files may "
                           "call it without a BatchNorm; pass the bias as a "
                           "parameter";
        else
          NoFix = Helper + " builds the convolution through another helper";
      }
    } else if (!FixesAt(Site, Fixes)) {
      NoFix = Site.NoFix.empty() ? "the options are written in a macro"
                                 : Site.NoFix;
    }
    if (!NoFix.empty())
      Message += "; no fix-it: " + NoFix;
    utils::recordStatementPayload("torch-conv-bias-before-batchnorm",
                                  C.reportAt()->getBeginLoc(), C.reportAt(),
                                  Ctx);
    auto Diag = diag(C.reportAt()->getBeginLoc(), Message);
    for (const FixItHint &F : Fixes)
      Diag << F;
  }
}

} // namespace clang::tidy::torch
