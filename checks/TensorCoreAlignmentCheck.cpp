//===--- TensorCoreAlignmentCheck.cpp - libtorch-tidy ---------------------===//
//
// Tensor cores multiply half-precision (and bfloat16) matrices in tiles of 8
// elements along each dimension: a Linear or convolution whose features or
// channels are not multiples of 8 makes cuBLAS and cuDNN pad the operands or
// pick kernels without tensor cores (the profiler's MatMulDimInFP16
// pattern). The check knows the sizes where they are literals, or constants
// of the arguments a module class is constructed with, and reports only in a
// program that runs half precision and names CUDA. No fix-it: padding a
// layer changes the model's shapes and its checkpoints.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreAlignmentCheck.h"
#include "TorchTidyModule.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/DenseSet.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch {

namespace {

using ParamValues = llvm::DenseMap<const ParmVarDecl *, int64_t>;

enum class LayerKind { None, Linear, Conv };

LayerKind layerKind(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier())
    return LayerKind::None;
  std::string Qualified = RD->getQualifiedNameAsString();
  llvm::StringRef Name(Qualified);
  if (!Name.consume_front("torch::nn::"))
    return LayerKind::None;
  Name.consume_front("detail::");
  Name.consume_back("Options");
  Name.consume_back("Impl");
  if (Name == "Linear")
    return LayerKind::Linear;
  if (Name == "Conv" || Name == "ConvTranspose" || Name == "ConvNd" ||
      Name == "ConvTransposeNd")
    return LayerKind::Conv;
  bool Numbered = Name.consume_front("ConvTranspose") ||
                  Name.consume_front("Conv");
  return Numbered && (Name == "1d" || Name == "2d" || Name == "3d")
             ? LayerKind::Conv
             : LayerKind::None;
}

bool isIntegral(const Expr *E) {
  return E->IgnoreParenImpCasts()->getType()->isIntegralOrEnumerationType();
}

/// A module class of the user's code (derived from torch::nn::Module).
bool isUserModule(const CXXRecordDecl *RD, const SourceManager &SM) {
  return RD && RD->hasDefinition() &&
         !utils::isInLibTorchHeader(RD->getLocation(), SM) &&
         utils::isSameOrDerivedFrom(RD, "torch::nn::Module");
}

/// The module class a ModuleHolder (TORCH_MODULE) type holds.
const CXXRecordDecl *heldModule(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return nullptr;
  for (const CXXBaseSpecifier &B : RD->getDefinition()->bases()) {
    const auto *Spec = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
        B.getType()->getAsCXXRecordDecl());
    if (Spec && Spec->getQualifiedNameAsString() == "torch::nn::ModuleHolder" &&
        Spec->getTemplateArgs().size() == 1)
      return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  }
  return nullptr;
}

/// The one constructor of \p RD that takes \p N arguments (its defaulted
/// parameters aside), copies and moves aside; null when none or several.
const CXXConstructorDecl *constructorTaking(const CXXRecordDecl *RD,
                                            unsigned N) {
  const CXXConstructorDecl *Found = nullptr;
  for (const CXXConstructorDecl *C : RD->ctors()) {
    if (C->isCopyOrMoveConstructor() || C->getMinRequiredArguments() > N ||
        C->getNumParams() < N)
      continue;
    if (Found)
      return nullptr;
    Found = C;
  }
  return Found;
}

std::optional<int64_t> evalSize(const Expr *E, const ParamValues *Params,
                                const ASTContext &Ctx, unsigned Depth = 0) {
  E = utils::ignoreWrappers(E);
  if (!E || Depth > 8 || E->isValueDependent())
    return std::nullopt;
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *P = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
      auto It = Params ? Params->find(P) : ParamValues::const_iterator();
      return Params && It != Params->end() ? std::optional(It->second)
                                           : std::nullopt;
    }
  }
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    auto L = evalSize(B->getLHS(), Params, Ctx, Depth + 1);
    auto R = evalSize(B->getRHS(), Params, Ctx, Depth + 1);
    if (!L || !R)
      return std::nullopt;
    switch (B->getOpcode()) {
    case BO_Add:
      return *L + *R;
    case BO_Sub:
      return *L - *R;
    case BO_Mul:
      return *L * *R;
    case BO_Div:
      return *R ? std::optional(*L / *R) : std::nullopt;
    default:
      return std::nullopt;
    }
  }
  Expr::EvalResult R;
  if (!E->EvaluateAsInt(R, Ctx))
    return std::nullopt;
  return R.Val.getInt().getExtValue();
}

/// The constructor of a module class whose parameters \p E reads; null
/// when it reads none, or other variables too.
const CXXConstructorDecl *moduleConstructorOf(const Expr *E, ASTContext &Ctx) {
  const CXXConstructorDecl *Ctor = nullptr;
  for (const BoundNodes &N :
       match(findAll(declRefExpr(to(varDecl())).bind("ref")), *E, Ctx)) {
    const auto *VD = cast<VarDecl>(N.getNodeAs<DeclRefExpr>("ref")->getDecl());
    const auto *P = dyn_cast<ParmVarDecl>(VD);
    if (!P) {
      if (VD->getType().isConstQualified() && VD->getAnyInitializer())
        continue; // a named constant
      return nullptr;
    }
    const auto *C = dyn_cast<CXXConstructorDecl>(P->getDeclContext());
    if (!C || (Ctor && Ctor != C))
      return nullptr;
    Ctor = C;
  }
  return Ctor && utils::isSameOrDerivedFrom(Ctor->getParent(),
                                            "torch::nn::Module")
             ? Ctor
             : nullptr;
}

} // namespace

void TensorCoreAlignmentCheck::storeOptions(
    ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "IgnoreOutputsBelow", IgnoreOutputsBelow);
}

void TensorCoreAlignmentCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  auto User = allOf(utils::isOutsideLibTorch(),
                    unless(isInTemplateInstantiation()));
  Finder->addMatcher(
      cxxConstructExpr(User, hasArgument(1, expr())).bind("construct"), this);
  Finder->addMatcher(
      callExpr(User, callee(functionDecl(hasName("::std::make_shared"))))
          .bind("make-shared"),
      this);
  Finder->addMatcher(
      declRefExpr(User, to(namedDecl(hasAnyName(
                            "::c10::kHalf", "::c10::kBFloat16",
                            "::c10::ScalarType::Half",
                            "::c10::ScalarType::BFloat16"))))
          .bind("half"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(User, callee(cxxMethodDecl(
                                  hasAnyName("half", "bfloat16"),
                                  ofClass(hasName("::at::Tensor")))))
          .bind("half"),
      this);
  Finder->addMatcher(
      callExpr(User, callee(functionDecl(
                         hasAnyName("::at::autocast::set_enabled",
                                    "::at::autocast::set_autocast_enabled"))))
          .bind("autocast"),
      this);
  Finder->addMatcher(
      declRefExpr(User, to(namedDecl(hasAnyName("::c10::kCUDA",
                                                "::c10::DeviceType::CUDA"))))
          .bind("cuda"),
      this);
  Finder->addMatcher(
      cxxMemberCallExpr(User, callee(cxxMethodDecl(
                                  hasName("cuda"),
                                  ofClass(hasName("::at::Tensor")))))
          .bind("cuda"),
      this);
  Finder->addMatcher(
      callExpr(User,
               callee(functionDecl(hasName("::torch::cuda::is_available"))))
          .bind("cuda"),
      this);
  Finder->addMatcher(stringLiteral(User).bind("device-string"), this);
}

void TensorCoreAlignmentCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  const auto &Nodes = Result.Nodes;
  if (const auto *E = Nodes.getNodeAs<Expr>("half")) {
    if (HalfAt.isInvalid())
      HalfAt = E->getBeginLoc();
    return;
  }
  if (const auto *Call = Nodes.getNodeAs<CallExpr>("autocast")) {
    const Expr *On = Call->getArg(Call->getNumArgs() - 1);
    if (HalfAt.isInvalid() && utils::provableBool(On, *Ctx).value_or(false))
      HalfAt = Call->getBeginLoc();
    return;
  }
  if (const auto *E = Nodes.getNodeAs<Expr>("cuda")) {
    if (CudaAt.isInvalid())
      CudaAt = E->getBeginLoc();
    return;
  }
  if (const auto *S = Nodes.getNodeAs<StringLiteral>("device-string")) {
    if (CudaAt.isInvalid() && S->getCharByteWidth() == 1 &&
        S->getString().starts_with("cuda"))
      CudaAt = S->getBeginLoc();
    return;
  }
  if (const auto *Call = Nodes.getNodeAs<CallExpr>("make-shared")) {
    const FunctionDecl *FD = Call->getDirectCallee();
    const TemplateArgumentList *Args =
        FD ? FD->getTemplateSpecializationArgs() : nullptr;
    if (!Args || Args->size() < 1 ||
        Args->get(0).getKind() != TemplateArgument::Type)
      return;
    const CXXRecordDecl *RD = Args->get(0).getAsType()->getAsCXXRecordDecl();
    if (isUserModule(RD, SM))
      Uses.push_back({RD, constructorTaking(RD, Call->getNumArgs()), Call,
                      {Call->arg_begin(), Call->arg_end()}});
    return;
  }
  const auto *CE = Nodes.getNodeAs<CXXConstructExpr>("construct");
  const CXXRecordDecl *RD = CE->getConstructor()->getParent();
  if (LayerKind K = layerKind(RD); K != LayerKind::None) {
    if (isIntegral(CE->getArg(0)) && isIntegral(CE->getArg(1)))
      Layers.push_back({CE, K == LayerKind::Linear, CE->getArg(0),
                        CE->getArg(1)});
    return;
  }
  llvm::SmallVector<const Expr *, 4> Args(CE->arg_begin(), CE->arg_end());
  if (isUserModule(RD, SM)) {
    Uses.push_back({RD, CE->getConstructor(), CE, Args});
  } else if (const CXXRecordDecl *Held = heldModule(RD);
             isUserModule(Held, SM)) {
    Uses.push_back({Held, constructorTaking(Held, Args.size()), CE, Args});
  }
}

void TensorCoreAlignmentCheck::report(const Layer &L, bool IsOut,
                                      int64_t Value, SourceLocation At,
                                      bool ThroughModule) {
  static const char *const Sizes[2][2] = {{"in_channels", "out_channels"},
                                          {"in_features", "out_features"}};
  diag(At, "%0 %1 of %2 is not a multiple of 8, which tensor cores need for "
           "half-precision matrix multiplies")
      << (L.Linear ? "Linear" : "convolution") << Sizes[L.Linear][IsOut]
      << static_cast<int>(Value);
  diag(At, "pad it to %0", DiagnosticIDs::Note)
      << static_cast<int>((Value + 7) / 8 * 8);
  if (ThroughModule)
    diag((IsOut ? L.Out : L.In)->getBeginLoc(), "the layer it sizes",
         DiagnosticIDs::Note);
  diag(HalfAt, "half precision here", DiagnosticIDs::Note);
}

void TensorCoreAlignmentCheck::checkThroughUses(
    const Layer &L, const Expr *Size, bool IsOut,
    const CXXConstructorDecl *Ctor) {
  const auto *Direct =
      dyn_cast<DeclRefExpr>(utils::ignoreWrappers(Size));
  const auto *DirectParam =
      Direct ? dyn_cast<ParmVarDecl>(Direct->getDecl()) : nullptr;
  for (const ModuleUse &U : Uses) {
    if (!U.Ctor || U.Ctor->getCanonicalDecl() != Ctor->getCanonicalDecl())
      continue;
    ParamValues Values;
    for (unsigned I = 0; I < Ctor->getNumParams(); ++I) {
      const ParmVarDecl *P = Ctor->getParamDecl(I);
      const Expr *Arg = I < U.Args.size() ? U.Args[I]
                        : P->hasDefaultArg() ? P->getDefaultArg()
                                             : nullptr;
      if (std::optional<int64_t> V = Arg ? evalSize(Arg, nullptr, *Ctx)
                                         : std::nullopt)
        Values[P] = *V;
    }
    std::optional<int64_t> V = evalSize(Size, &Values, *Ctx);
    if (!V || *V % 8 == 0 ||
        (IsOut && L.Linear && *V < static_cast<int64_t>(IgnoreOutputsBelow)))
      continue;
    unsigned Index = DirectParam ? DirectParam->getFunctionScopeIndex() : ~0U;
    SourceLocation At = Index < U.Args.size() ? U.Args[Index]->getBeginLoc()
                                              : U.Site->getBeginLoc();
    if (!At.isMacroID())
      report(L, IsOut, *V, At, /*ThroughModule=*/true);
  }
}

void TensorCoreAlignmentCheck::checkSize(const Layer &L, const Expr *Size,
                                         bool IsOut) {
  if (std::optional<int64_t> V = evalSize(Size, nullptr, *Ctx)) {
    bool SmallOutput = IsOut && L.Linear &&
                       *V < static_cast<int64_t>(IgnoreOutputsBelow);
    if (*V % 8 != 0 && *V > 0 && !SmallOutput &&
        !Size->getBeginLoc().isMacroID())
      report(L, IsOut, *V, Size->getBeginLoc(), /*ThroughModule=*/false);
    return;
  }
  if (const CXXConstructorDecl *Ctor = moduleConstructorOf(Size, *Ctx))
    checkThroughUses(L, Size, IsOut, Ctor);
}

void TensorCoreAlignmentCheck::onEndOfTranslationUnit() {
  if (Ctx && HalfAt.isValid() && CudaAt.isValid())
    for (const Layer &L : Layers) {
      checkSize(L, L.In, /*IsOut=*/false);
      checkSize(L, L.Out, /*IsOut=*/true);
    }
  Layers.clear();
  Uses.clear();
  HalfAt = CudaAt = SourceLocation();
  Ctx = nullptr;
}

TORCH_TIDY_CHECK_FACTORY(TensorCoreAlignmentCheck)

} // namespace clang::tidy::torch
