//===--- CudaLibrarySettings.cpp - libtorch-tidy --------------------------===//

#include "CudaLibrarySettings.h"
#include "ConvBiasAnalysis.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Regex.h"
#include "utils/ConstantFacts.h"
#include "utils/DeviceAnalysis.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/ParentWalk.h"
#include "utils/ProjectIndex.h"
#include "utils/TorchCheck.h"
#include "utils/TrainingCode.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::cudalib {

namespace {

constexpr unsigned MaxVariableDepth = 3;

bool isDeviceVariableType(QualType T) {
  return utils::isRecordNamed(T, "Device") ||
         utils::isEnumNamed(T, "DeviceType");
}

bool isCudaString(const StringLiteral *S) {
  return S->getCharByteWidth() == 1 && S->getString().contains("cuda");
}

class CudaValues {
public:
  CudaValues(ASTContext &Ctx, const std::vector<Decl *> &Decls)
      : Ctx(Ctx), Decls(Decls) {}

  /// What in \p E names a CUDA device: itself, or in the value of a device
  /// variable it reads. Null when nothing can.
  const Stmt *cudaSource(const Stmt *E, unsigned Depth) {
    for (const BoundNodes &N :
         match(findAll(stmt(anyOf(declRefExpr().bind("ref"),
                                  stringLiteral().bind("str"),
                                  callExpr().bind("call")))),
               *E, Ctx)) {
      if (const auto *S = N.getNodeAs<StringLiteral>("str")) {
        if (isCudaString(S))
          return S;
        continue;
      }
      if (const auto *Call = N.getNodeAs<CallExpr>("call")) {
        const FunctionDecl *FD = Call->getDirectCallee();
        if (FD && FD->getIdentifier() && FD->getName() == "is_available" &&
            FD->getQualifiedNameAsString().find("cuda") != std::string::npos)
          return Call;
        continue;
      }
      const auto *Ref = N.getNodeAs<DeclRefExpr>("ref");
      const ValueDecl *D = Ref->getDecl();
      if (D->getIdentifier() &&
          (D->getName() == "kCUDA" ||
           (isa<EnumConstantDecl>(D) && D->getName() == "CUDA")))
        return Ref;
      if (const auto *VD = dyn_cast<VarDecl>(D);
          VD && Depth < MaxVariableDepth && !isa<ParmVarDecl>(VD) &&
          isDeviceVariableType(VD->getType()))
        if (const Stmt *Source = cudaSourceOfVar(VD, Depth + 1))
          return Source;
    }
    return nullptr;
  }

  /// What names CUDA in the variable's initializer or in an assignment to
  /// it; null when neither can.
  const Stmt *cudaSourceOfVar(const VarDecl *VD, unsigned Depth) {
    if (VD->getInit())
      if (const Stmt *Source = cudaSource(VD->getInit(), Depth))
        return Source;
    auto Assign = expr(
        anyOf(binaryOperator(isAssignmentOperator(),
                             hasLHS(declRefExpr(to(varDecl(equalsNode(VD))))),
                             hasRHS(expr().bind("rhs"))),
              cxxOperatorCallExpr(
                  hasOverloadedOperatorName("="),
                  hasArgument(0, declRefExpr(to(varDecl(equalsNode(VD))))),
                  hasArgument(1, expr().bind("rhs")))));
    for (Decl *D : Decls)
      for (const BoundNodes &N :
           match(decl(forEachDescendant(Assign)), *D, Ctx))
        if (const Stmt *Source = cudaSource(N.getNodeAs<Expr>("rhs"), Depth))
          return Source;
    return nullptr;
  }

private:
  ASTContext &Ctx;
  const std::vector<Decl *> &Decls;
};

const Stmt *parentStmt(const Stmt *S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  return Parents.empty() ? nullptr : Parents[0].get<Stmt>();
}

/// The declaration statement of a local \p VD, when it is directly in a
/// block.
const Stmt *declStatement(const VarDecl *VD, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*VD);
  const auto *DS = Parents.empty() ? nullptr : Parents[0].get<DeclStmt>();
  if (!DS || !isa_and_nonnull<CompoundStmt>(parentStmt(DS, Ctx)))
    return nullptr;
  return DS;
}

std::string indentOf(SourceLocation Loc, const SourceManager &SM) {
  auto [FID, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buf = SM.getBufferData(FID);
  size_t LineStart = Buf.rfind('\n', Offset ? Offset - 1 : 0);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  if (LineStart > Offset)
    LineStart = Offset;
  StringRef Before = Buf.slice(LineStart, Offset);
  return Before.take_while([](char C) { return C == ' ' || C == '\t'; }).str();
}

/// A local variable nothing reads.
bool isUnreadLocal(const VarDecl *VD) {
  return VD->hasLocalStorage() && !VD->isReferenced();
}

/// The start of the first #include line of the main file.
std::optional<SourceLocation> firstInclude(const SourceManager &SM) {
  FileID Main = SM.getMainFileID();
  StringRef Buf = SM.getBufferData(Main);
  for (size_t Pos = 0; Pos < Buf.size();) {
    size_t End = Buf.find('\n', Pos);
    if (End == StringRef::npos)
      End = Buf.size();
    StringRef Line = Buf.slice(Pos, End).ltrim();
    if (Line.consume_front("#") && Line.ltrim().starts_with("include"))
      return SM.getLocForStartOfFile(Main).getLocWithOffset(Pos);
    Pos = End + 1;
  }
  return std::nullopt;
}

} // namespace

ProgramFacts::ProgramFacts(ASTContext &Ctx, const utils::ProjectIndex *Index)
    : Ctx(Ctx), Index(Index), Decls(declsOutsideLibTorch(Ctx)) {
  CudaValues Values(Ctx, Decls);
  std::optional<DeviceSelection> DeviceType;
  for (Decl *D : Decls) {
    for (const BoundNodes &N :
         match(findAll(varDecl(unless(parmVarDecl())).bind("var")), *D, Ctx)) {
      const auto *VD = N.getNodeAs<VarDecl>("var");
      // A local device nothing reads (made to probe for CUDA) puts nothing
      // there; a global may be read in other files.
      if (!isDeviceVariableType(VD->getType()) ||
          VD->getType()->isReferenceType() || isUnreadLocal(VD) ||
          utils::isWriteOnlyDevice(VD, Ctx))
        continue;
      const Stmt *Source = Values.cudaSourceOfVar(VD, 0);
      if (!Source)
        continue;
      DeviceSelection Sel{VD->getLocation(), declStatement(VD, Ctx),
                          Source->getBeginLoc()};
      if (utils::isRecordNamed(VD->getType(), "Device") && better(Device, Sel))
        Device = Sel;
      if (better(DeviceType, Sel))
        DeviceType = Sel;
    }
    if (!Main)
      for (const BoundNodes &N :
           match(findAll(functionDecl(isMain(), isDefinition()).bind("main")),
                 *D, Ctx))
        Main = N.getNodeAs<FunctionDecl>("main");
  }
  if (!Device)
    Device = DeviceType;
  utils::TrainingCode Training(Ctx);
  for (Decl *D : Decls) {
    for (const BoundNodes &N :
         match(findAll(functionDecl(isDefinition(), hasBody(stmt()))
                           .bind("fn")),
               *D, Ctx)) {
      TrainingLoop = Training.firstTrainingLoop(
          N.getNodeAs<FunctionDecl>("fn")->getBody());
      if (TrainingLoop)
        break;
    }
    if (TrainingLoop)
      break;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  if (Device && SM.isInMainFile(SM.getExpansionLoc(Device->Loc)))
    return;
  // No device variable (in the main file): the first expression that names
  // CUDA.
  for (Decl *D : Decls)
    for (const BoundNodes &N :
         match(decl(forEachDescendant(
                   expr(anyOf(declRefExpr(to(namedDecl(
                                  hasAnyName("kCUDA", "CUDA")))),
                              cxxMemberCallExpr(
                                  callee(cxxMethodDecl(hasName("cuda")))),
                              stringLiteral()))
                       .bind("e"))),
               *D, Ctx)) {
      const auto *E = N.getNodeAs<Expr>("e");
      if (const auto *S = dyn_cast<StringLiteral>(E); S && !isCudaString(S))
        continue;
      if (utils::storedOnlyInUnreadDevice(E, Ctx))
        continue;
      DeviceSelection Sel{E->getBeginLoc(), nullptr, E->getBeginLoc()};
      if (better(Device, Sel))
        Device = Sel;
    }
}

/// The main file's own device selection is where a reader looks for it,
/// not one in a header it includes (a debug helper that prints is_cuda()).
bool ProgramFacts::better(const std::optional<DeviceSelection> &Current,
                          const DeviceSelection &Candidate) const {
  const SourceManager &SM = Ctx.getSourceManager();
  return !Current || (!SM.isInMainFile(SM.getExpansionLoc(Current->Loc)) &&
                      SM.isInMainFile(SM.getExpansionLoc(Candidate.Loc)));
}

bool ProgramFacts::callsSetting(std::initializer_list<StringRef> Names,
                                bool UnlessFalse) const {
  // Another file of the project may make the setting (a helper that
  // configures LibTorch, called from main).
  if (Index)
    for (StringRef Name : Names)
      if (Index->makesSetting(Name) ||
          (!UnlessFalse && Index->makesSetting((Name + "=off").str())))
        return true;
  for (Decl *D : Decls)
    for (const BoundNodes &N :
         match(decl(forEachDescendant(
                   cxxMemberCallExpr(callee(cxxMethodDecl(
                                         ofClass(hasName("::at::Context")))))
                       .bind("set"))),
               *D, Ctx)) {
      const auto *Call = N.getNodeAs<CXXMemberCallExpr>("set");
      StringRef Name = Call->getMethodDecl()->getName();
      if (llvm::none_of(Names, [&](StringRef W) { return W == Name; }))
        continue;
      std::optional<bool> On =
          Call->getNumArgs() ? utils::provableBool(Call->getArg(0), Ctx)
                             : std::nullopt;
      if (!UnlessFalse || !On || *On)
        return true;
    }
  return false;
}

/// An expression or declaration whose type is a layer class
/// \p TypePattern names.
static auto layerOfType(StringRef TypePattern) {
  return hasType(hasUnqualifiedDesugaredType(
      recordType(hasDeclaration(cxxRecordDecl(matchesName(TypePattern))))));
}

/// The LibTorch functions that run a matmul.
static constexpr StringRef MatmulCalls[] = {
    "matmul", "mm",     "bmm",      "einsum",
    "addmm",  "baddbmm", "linear", "bilinear", "scaled_dot_product_attention"};

/// A type or call of one of the layers \p TypePattern names, or a call of a
/// LibTorch function in \p Functions.
static bool hasLayer(ASTContext &Ctx, const std::vector<Decl *> &Decls,
                     StringRef TypePattern, ArrayRef<StringRef> Functions) {
  auto LayerType = layerOfType(TypePattern);
  auto Use = stmt(anyOf(
      expr(LayerType),
      callExpr(callee(functionDecl(hasAnyName(Functions))))
          .bind("call")));
  for (Decl *D : Decls) {
    if (!match(findAll(declaratorDecl(LayerType)), *D, Ctx).empty())
      return true;
    for (const BoundNodes &N :
         match(decl(forEachDescendant(Use.bind("use"))), *D, Ctx)) {
      const auto *Call = N.getNodeAs<CallExpr>("call");
      if (!Call || utils::isInTorchNamespace(Call->getDirectCallee()))
        return true;
    }
  }
  return false;
}

bool ProgramFacts::hasConvolution() const {
  return buildsConvolution(Ctx, Decls) || indexedModuleBuilds(/*Conv=*/true);
}

bool buildsConvolution(ASTContext &Ctx, const std::vector<Decl *> &Decls) {
  return hasLayer(Ctx, Decls,
                  "^::torch::nn::(Conv|ConvTranspose)([123]d)?(Impl|Options)?$",
                  {"conv1d", "conv2d", "conv3d", "conv_transpose1d",
                   "conv_transpose2d", "conv_transpose3d"});
}

enum class LayerSize { Placeholder, Small, Large };

/// A layer built with sizes that are all constants below \p Limit
/// (`Linear(1, 1)`) makes no matmul worth a tensor core; `Linear(nullptr)`,
/// copies and moves build nothing.
static LayerSize layerSize(const CXXConstructExpr *CE, ASTContext &Ctx,
                           int64_t Limit) {
  if (CE->getConstructor()->isCopyOrMoveConstructor() || CE->getNumArgs() == 0)
    return LayerSize::Placeholder;
  for (const Expr *Arg : CE->arguments()) {
    const Expr *E = Arg->IgnoreImplicit();
    if (isa<CXXNullPtrLiteralExpr>(E))
      return LayerSize::Placeholder;
    Expr::EvalResult R;
    if (isa<CXXDefaultArgExpr>(Arg) || E->isValueDependent())
      continue;
    if (!E->getType()->isIntegerType() || !E->EvaluateAsInt(R, Ctx) ||
        R.Val.getInt().getExtValue() >= Limit)
      return LayerSize::Large;
  }
  return LayerSize::Small;
}

bool ProgramFacts::hasMatmul() const {
  return buildsMatmul(Ctx, Decls) || indexedModuleBuilds(/*Conv=*/false);
}

/// \p RD and its bases, as far as they are the user's module classes.
static void
userModuleClasses(const CXXRecordDecl *RD, const SourceManager &SM,
                  llvm::SmallPtrSetImpl<const CXXRecordDecl *> &Out) {
  if (!RD || !RD->hasDefinition())
    return;
  RD = RD->getDefinition();
  if (utils::isInLibTorchHeader(RD->getLocation(), SM) ||
      !utils::isSameOrDerivedFrom(RD, "torch::nn::Module") ||
      !Out.insert(RD).second)
    return;
  for (const CXXBaseSpecifier &B : RD->bases())
    userModuleClasses(B.getType()->getAsCXXRecordDecl(), SM, Out);
}

bool ProgramFacts::indexedModuleBuilds(bool Conv) const {
  if (!Index)
    return false;
  llvm::SmallPtrSet<const CXXRecordDecl *, 8> Classes;
  const SourceManager &SM = Ctx.getSourceManager();
  for (Decl *D : Decls) {
    for (const BoundNodes &N :
         match(findAll(declaratorDecl().bind("d")), *D, Ctx))
      userModuleClasses(
          convbias::moduleClass(N.getNodeAs<DeclaratorDecl>("d")->getType()),
          SM, Classes);
    for (const BoundNodes &N :
         match(findAll(cxxConstructExpr().bind("c")), *D, Ctx))
      userModuleClasses(
          convbias::moduleClass(N.getNodeAs<CXXConstructExpr>("c")->getType()),
          SM, Classes);
  }
  for (const CXXRecordDecl *RD : Classes)
    if (const utils::ModuleLayersFact *L =
            Index->moduleLayers(utils::usrOf(RD));
        L && (Conv ? L->Convolution : L->Matmul))
      return true;
  return false;
}

bool buildsMatmul(ASTContext &Ctx, const std::vector<Decl *> &Decls) {
  StringRef Layers =
      "^::torch::nn::(Linear|Bilinear|MultiheadAttention|Transformer[A-Za-z]*)"
      "(Impl|Options)?$";
  auto LayerType = layerOfType(Layers);
  bool Declared = false, Small = false;
  for (Decl *D : Decls) {
    Declared |= !match(findAll(declaratorDecl(LayerType)), *D, Ctx).empty();
    for (const BoundNodes &N :
         match(decl(forEachDescendant(cxxConstructExpr(LayerType).bind("c"))),
               *D, Ctx)) {
      LayerSize Size =
          layerSize(N.getNodeAs<CXXConstructExpr>("c"), Ctx, /*Limit=*/64);
      if (Size == LayerSize::Large)
        return true;
      Small |= Size == LayerSize::Small;
    }
  }
  if (hasLayer(Ctx, Decls, "^$", MatmulCalls))
    return true;
  // Layers whose sizes are built elsewhere count; those built here small
  // do not.
  return Declared && !Small;
}

bool ProgramFacts::isConvolutionalNetwork() const {
  return !indexedModuleBuilds(/*Conv=*/false) &&
         buildsConvolutionalNetwork(Ctx, Decls);
}

/// The layers \p Decls construct whose class \p Pattern names: constructor
/// calls that build a layer (not `Linear(nullptr)`, copies or moves).
static unsigned countBuiltLayers(ASTContext &Ctx,
                                 const std::vector<Decl *> &Decls,
                                 StringRef Pattern) {
  auto LayerType = layerOfType(Pattern);
  unsigned Count = 0;
  for (Decl *D : Decls)
    for (const BoundNodes &N :
         match(decl(forEachDescendant(cxxConstructExpr(LayerType).bind("c"))),
               *D, Ctx))
      Count += layerSize(N.getNodeAs<CXXConstructExpr>("c"), Ctx,
                         /*Limit=*/0) != LayerSize::Placeholder;
  return Count;
}

bool buildsConvolutionalNetwork(ASTContext &Ctx,
                                const std::vector<Decl *> &Decls) {
  // Each convolution does its per-pixel matmul at every output position, so
  // three convolutions per Linear layer leave the head a small share of the
  // work; attention and explicit matmuls are not a head.
  if (hasLayer(Ctx, Decls,
               "^::torch::nn::(MultiheadAttention|Transformer[A-Za-z]*|"
               "Bilinear)(Impl|Options)?$",
               MatmulCalls))
    return false;
  unsigned Convolutions = countBuiltLayers(
      Ctx, Decls, "^::torch::nn::(Conv|ConvTranspose)[123]d(Impl)?$");
  unsigned Linears =
      countBuiltLayers(Ctx, Decls, "^::torch::nn::Linear(Impl)?$");
  return Convolutions > 0 && Convolutions >= 3 * Linears;
}

/// The variable \p E names (`model`, `model->`, `this->model`), or null.
static const ValueDecl *namedObject(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
      OC && OC->getOperator() == OO_Arrow && OC->getNumArgs() == 1)
    E = OC->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return Ref->getDecl();
  if (const auto *ME = dyn_cast<MemberExpr>(E))
    return ME->getMemberDecl();
  return nullptr;
}

/// Whether the training loop, or a function it calls, runs \p S or names
/// \p D.
bool ProgramFacts::inTraining(const Stmt *S, const ValueDecl *D) const {
  const SourceManager &SM = Ctx.getSourceManager();
  if (S && utils::isWrittenWithin(S, TrainingLoop, SM))
    return true;
  auto Names = expr(anyOf(declRefExpr(to(valueDecl(equalsNode(D)))),
                          memberExpr(member(equalsNode(D)))));
  if (D && !match(stmt(hasDescendant(Names)), *TrainingLoop, Ctx).empty())
    return true;
  if (!S)
    return false;
  for (const BoundNodes &N :
       match(stmt(forEachDescendant(callExpr(callee(
                 functionDecl(isDefinition(), hasBody(stmt().bind("body"))))))),
             *TrainingLoop, Ctx))
    if (utils::isWrittenWithin(S, N.getNodeAs<Stmt>("body"), SM))
      return true;
  return false;
}

/// The object whose method or call operator \p S calls, when it is not a
/// tensor (a module, a container), or null.
static const Expr *calledObject(const Stmt *S) {
  const Expr *Object = nullptr;
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S))
    Object = MC->getImplicitObjectArgument();
  else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S);
           OC && OC->getOperator() == OO_Call && OC->getNumArgs() > 0)
    Object = OC->getArg(0);
  return Object && !utils::isTensorType(Object->getType()) ? Object : nullptr;
}

/// Whether a mention of half or bfloat16 may reach the training: it is in
/// the training loop (or a function it calls), it converts or feeds a module
/// the loop runs (`model->to(device, torch::kHalf)`, `model->half()`), or it
/// is the value of a variable that one of these uses. Only a mention shown
/// to serve another module (a second model converted for inference) does
/// not count: where the walk cannot tell, it counts.
bool ProgramFacts::reachesTraining(const Stmt *Mention, unsigned Depth) const {
  if (inTraining(Mention, nullptr))
    return true;
  const Stmt *Cur = Mention;
  for (unsigned Step = 0; Step < 12 && Cur; ++Step) {
    // A parameter may be the trained model, whatever its callers pass.
    if (const Expr *Object = calledObject(Cur))
      if (const ValueDecl *Module = namedObject(Object))
        return isa<ParmVarDecl>(Module) || inTraining(nullptr, Module);
    DynTypedNodeList Parents = Ctx.getParents(*Cur);
    if (Parents.empty())
      return true;
    if (const auto *VD = Parents[0].get<VarDecl>())
      return Depth >= MaxVariableDepth || usedForTraining(VD, Depth + 1);
    const auto *P = Parents[0].get<Stmt>();
    if (const auto *BO = dyn_cast_or_null<BinaryOperator>(P);
        BO && BO->getOpcode() == BO_Assign && BO->getRHS() == Cur)
      if (const auto *VD = dyn_cast_or_null<VarDecl>(namedObject(BO->getLHS())))
        return Depth >= MaxVariableDepth || usedForTraining(VD, Depth + 1);
    Cur = P;
  }
  return true;
}

/// Whether a use of \p VD may reach the training (reachesTraining); a
/// variable that is not a function's local may be read anywhere.
bool ProgramFacts::usedForTraining(const VarDecl *VD, unsigned Depth) const {
  const auto *Fn =
      dyn_cast_or_null<FunctionDecl>(VD->getParentFunctionOrMethod());
  if (!VD->isLocalVarDecl() || !Fn || !Fn->getBody())
    return true;
  for (const BoundNodes &N :
       match(stmt(forEachDescendant(
                 declRefExpr(to(varDecl(equalsNode(VD)))).bind("ref"))),
             *Fn->getBody(), Ctx))
    if (reachesTraining(N.getNodeAs<Stmt>("ref"), Depth))
      return true;
  return false;
}

bool ProgramFacts::usesReducedPrecision() const {
  auto Autocast = callExpr(
      callee(functionDecl(hasAncestor(namespaceDecl(hasName("autocast"))))));
  auto Reduced =
      stmt(anyOf(declRefExpr(to(namedDecl(hasAnyName(
                     "kHalf", "kBFloat16", "kFloat16", "Half", "BFloat16")))),
                 cxxMemberCallExpr(
                     callee(cxxMethodDecl(hasAnyName("half", "bfloat16"))))));
  for (Decl *D : Decls) {
    // Autocast is a setting of the thread: it holds wherever it is made.
    if (!match(decl(forEachDescendant(Autocast)), *D, Ctx).empty())
      return true;
    // A second model converted to half precision (for inference, for a
    // teacher) leaves the FP32 model that trains as it is.
    for (const BoundNodes &N :
         match(decl(forEachDescendant(Reduced.bind("r"))), *D, Ctx))
      if (!TrainingLoop || reachesTraining(N.getNodeAs<Stmt>("r"), 0))
        return true;
  }
  return false;
}

bool ProgramFacts::isTestFile() const {
  static const llvm::Regex TestFile("(^|/)(test|tests|testing)/([^/]+/)?[^/"
                                    "]+$|_(unit)?tests?\\.(cc|cpp|cxx)$");
  const SourceManager &SM = Ctx.getSourceManager();
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  return Main && TestFile.match(Main->getName());
}

/// A non-constant value that changes from one iteration of \p Loop to the
/// next: a variable declared in the loop (its own included) or assigned in
/// it.
static bool changesInLoop(const VarDecl *VD, const Stmt *Loop,
                          ASTContext &Ctx) {
  if (!VD->getType()->isIntegerType())
    return false;
  auto Ref = declRefExpr(to(varDecl(equalsNode(VD))));
  if (!match(stmt(hasDescendant(expr(anyOf(
                 binaryOperator(isAssignmentOperator(), hasLHS(Ref)),
                 unaryOperator(hasAnyOperatorName("++", "--"),
                               hasUnaryOperand(Ref)))))),
             *Loop, Ctx)
           .empty())
    return true;
  Expr::EvalResult R;
  const Expr *Init = VD->getInit();
  if (Init && Init->EvaluateAsInt(R, Ctx))
    return false;
  // A batch's own size (`x.size(0)`) is the same from step to step.
  auto SizeCall = cxxMemberCallExpr(
      callee(cxxMethodDecl(hasAnyName("size", "sizes", "numel"))));
  if (Init && !match(expr(anyOf(SizeCall, hasDescendant(SizeCall))), *Init,
                     Ctx)
                   .empty())
    return false;
  SourceRange Range = Loop->getSourceRange();
  return Ctx.getSourceManager().isPointWithin(VD->getLocation(),
                                              Range.getBegin(), Range.getEnd());
}

const Expr *ProgramFacts::varyingShape() const {
  auto Padding = callExpr(callee(functionDecl(
      hasAnyName("pad_sequence", "pack_padded_sequence", "pack_sequence"),
      hasAncestor(namespaceDecl(hasName("rnn"))))));
  for (Decl *D : Decls)
    for (const BoundNodes &N :
         match(decl(forEachDescendant(Padding.bind("pad"))), *D, Ctx))
      return N.getNodeAs<Expr>("pad");
  if (!TrainingLoop)
    return nullptr;
  // Factories and resizes whose first argument holds the sizes.
  auto Sized = callExpr(
      callee(functionDecl(hasAnyName("randn", "rand", "zeros", "ones",
                                     "empty", "full", "resize_"))),
      hasArgument(0, expr().bind("sizes")));
  for (const BoundNodes &N :
       match(stmt(forEachDescendant(Sized)), *TrainingLoop, Ctx)) {
    const auto *Sizes = N.getNodeAs<Expr>("sizes");
    for (const BoundNodes &R :
         match(findAll(declRefExpr(to(varDecl().bind("v")))), *Sizes, Ctx))
      if (changesInLoop(R.getNodeAs<VarDecl>("v"), TrainingLoop, Ctx))
        return Sizes;
  }
  return nullptr;
}

std::optional<SourceLocation> ProgramFacts::cudaNamedElsewhere() const {
  if (!Device || Device->CudaLoc.isInvalid())
    return std::nullopt;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation At = SM.getExpansionLoc(Device->Loc);
  SourceLocation Cuda = SM.getExpansionLoc(Device->CudaLoc);
  if (!SM.isInMainFile(Cuda) ||
      SM.getExpansionLineNumber(At) == SM.getExpansionLineNumber(Cuda))
    return std::nullopt;
  return Cuda;
}

llvm::SmallVector<FixItHint, 2>
ProgramFacts::insertSetting(StringRef Statement, const LangOptions &LO) const {
  const SourceManager &SM = Ctx.getSourceManager();
  llvm::SmallVector<FixItHint, 2> Fixes;
  std::string Text = Statement.str();
  if (Device && Device->Statement &&
      Device->Statement->getEndLoc().isFileID()) {
    SourceLocation After =
        Lexer::getLocForEndOfToken(Device->Statement->getEndLoc(), 0, SM, LO);
    Fixes.push_back(FixItHint::CreateInsertion(
        After, "\n" + indentOf(Device->Statement->getBeginLoc(), SM) + Text));
  } else if (const auto *Body =
                 Main ? dyn_cast_or_null<CompoundStmt>(Main->getBody())
                      : nullptr;
             Body && !Body->body_empty() &&
             Body->body_front()->getBeginLoc().isFileID()) {
    SourceLocation At = Body->body_front()->getBeginLoc();
    Fixes.push_back(
        FixItHint::CreateInsertion(At, Text + "\n" + indentOf(At, SM)));
  }
  if (!Fixes.empty() && !utils::declaresInAt(Ctx, "globalContext"))
    if (std::optional<SourceLocation> Include = firstInclude(SM))
      Fixes.push_back(
          FixItHint::CreateInsertion(*Include, "#include <ATen/Context.h>\n"));
  return Fixes;
}

void ProgramSettingCheck::registerMatchers(MatchFinder *Finder) {
  TorchCheck::registerMatchers(Finder);
  // Any function of the user's code: the analysis runs once, at the end of
  // the translation unit.
  Finder->addMatcher(
      functionDecl(utils::isOutsideLibTorch(), isDefinition()).bind("fn"),
      this);
}

void ProgramSettingCheck::check(const MatchFinder::MatchResult &Result) {
  Ctx = Result.Context;
}

void ProgramSettingCheck::onEndOfTranslationUnit() {
  if (!Ctx)
    return;
  ProgramFacts Program(*Ctx, projectIndex(Ctx->getSourceManager()));
  checkProgram(Program);
}

} // namespace clang::tidy::torch::cudalib
