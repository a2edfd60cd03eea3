//===--- SampleCostAnalysis.cpp - libtorch-tidy ---------------------------===//

#include "SampleCostAnalysis.h"
#include "utils/DeviceAnalysis.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::dataloader {

namespace {

constexpr unsigned MaxCallDepth = 3;

/// The outermost named namespace around \p D ("std", "cv", "torch").
StringRef topNamespace(const Decl *D) {
  const NamespaceDecl *Top = nullptr;
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC); NS && !NS->isInline())
      Top = NS;
  return Top && Top->getIdentifier() ? Top->getName() : "";
}

bool inNamespaceNamed(const Decl *D, StringRef Name) {
  for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC);
        NS && NS->getIdentifier() && NS->getName().contains(Name))
      return true;
  return false;
}

/// Tensor calls that only index or view a tensor in memory.
bool isIndexingOp(StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("operator[]", "index", "select", "slice", "narrow", "view",
             "reshape", "unsqueeze", "squeeze", true)
      .Cases("size", "sizes", "dim", "numel", "clone", "contiguous", "to",
             "item", true)
      .Cases("data_ptr", "options", "dtype", "device", "defined",
             "scalar_type", "Tensor", "get", "operator=", true)
      .Default(false);
}

/// What a standard-library or C function does per sample, or "".
StringRef libraryCost(const FunctionDecl *FD) {
  StringRef Name = FD->getIdentifier() ? FD->getName() : "";
  const auto *M = dyn_cast<CXXMethodDecl>(FD);
  const CXXRecordDecl *Class = M ? M->getParent() : nullptr;
  if (const auto *Ctor = dyn_cast<CXXConstructorDecl>(FD))
    Class = Ctor->getParent();
  StringRef ClassName =
      Class && Class->getIdentifier() ? Class->getName() : "";
  if (ClassName.contains("fstream") || ClassName.contains("filebuf") ||
      ClassName == "basic_istream")
    return "file or stream I/O";
  if (ClassName.contains("stringstream") || ClassName.contains("regex"))
    return "string parsing";
  if (inNamespaceNamed(FD, "filesystem") || inNamespaceNamed(FD, "__fs"))
    return "file system access";
  return llvm::StringSwitch<StringRef>(Name)
      .Cases("fopen", "fread", "fgets", "fscanf", "read", "getline",
             "file or stream I/O")
      .Cases("stoi", "stol", "stoll", "stof", "stod", "string parsing")
      .Cases("atoi", "atof", "strtol", "strtof", "strtod", "sscanf",
             "string parsing")
      .Cases("regex_search", "regex_match", "regex_replace", "string parsing")
      .Default("");
}

/// What a call does per sample, when it is known to be real work.
std::string callCost(const FunctionDecl *FD) {
  StringRef NS = topNamespace(FD);
  StringRef Name = FD->getIdentifier() ? FD->getName() : "";
  if (NS == "cv")
    return "OpenCV calls";
  if (Name.starts_with("stbi_") || Name.starts_with("png_") ||
      Name.starts_with("jpeg_") || Name.starts_with("tjDecompress"))
    return "image decoding";
  if (NS == "torch" && (Name == "load" || Name == "pickle_load"))
    return "deserialization";
  if (NS == "std" || NS == "")
    return libraryCost(FD).str();
  return "";
}

} // namespace

Work SampleCost::ofDataset(QualType T, const Expr *Built) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return {};
  if (const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(RD);
      Spec && Spec->getQualifiedNameAsString() ==
                  "torch::data::datasets::MapDataset") {
    const TemplateArgumentList &Args = Spec->getTemplateArgs();
    if (Args.size() < 2 || Args[0].getKind() != TemplateArgument::Type ||
        Args[1].getKind() != TemplateArgument::Type)
      return {};
    // Every transform of the chain runs on every sample.
    Work W = ofDataset(Args[0].getAsType(), Built);
    W.add(ofTransform(Args[1].getAsType(), Built));
    return W;
  }
  if (!isUserCode(RD))
    return {};
  return ofMethods(RD, {"get", "get_batch"});
}

Work SampleCost::ofTransform(QualType T, const Expr *Built) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (!RD || !RD->hasDefinition())
    return {};
  if (isUserCode(RD))
    return ofMethods(RD, {"apply", "apply_batch", "operator()"});
  if (!RD->getIdentifier() || !RD->getName().contains("Lambda") || !Built)
    return {};
  // LibTorch's Lambda transforms call the lambdas written where the data
  // set is built.
  Work W;
  for (const BoundNodes &N :
       match(findAll(lambdaExpr().bind("lambda")), *Built, Ctx))
    W.add(ofBody(N.getNodeAs<LambdaExpr>("lambda")->getBody(),
                 "a lambda transform", 0));
  return W;
}

/// The most expensive of the methods \p Names of \p RD (or of its bases):
/// one of them runs per sample (get() or get_batch(), apply() or the
/// operator() it calls).
Work SampleCost::ofMethods(const CXXRecordDecl *RD,
                           std::initializer_list<StringRef> Names,
                           unsigned Depth) {
  Work Most;
  if (!RD || !RD->hasDefinition() || !isUserCode(RD) || Depth > 4)
    return Most;
  auto Keep = [&](const Work &W) {
    if ((W.Op && !Most.Op) || (!Most.Op && W.TensorOps > Most.TensorOps))
      Most = W;
  };
  for (const CXXMethodDecl *M : RD->methods()) {
    std::string Name = M->getNameAsString();
    if (llvm::none_of(Names, [&](StringRef N) { return N == Name; }))
      continue;
    std::string In = "'" + RD->getNameAsString() + "::" + Name + "'";
    const FunctionDecl *Def = M->getDefinition();
    if (!Def && M->getTemplateInstantiationPattern())
      Def = M->getTemplateInstantiationPattern()->getDefinition();
    Keep(Def && Def->hasBody() ? ofBody(Def->getBody(), In, 0)
                               : ofIndexed(M, In));
  }
  for (const CXXBaseSpecifier &Base : RD->bases())
    Keep(ofMethods(Base.getType()->getAsCXXRecordDecl(), Names, Depth + 1));
  return Most;
}

/// A function defined in another file: what the project index says it does,
/// with what it calls.
Work SampleCost::ofIndexed(const FunctionDecl *FD, StringRef In) const {
  Work W;
  if (!Index || !FollowCalls)
    return W;
  const utils::SampleCostFact *Fact = Index->sampleCost(utils::usrOf(FD));
  if (!Fact)
    return W;
  // The warning names the function this file calls; the note, the one the
  // operation is in.
  ExpensiveOp Op{Fact->What, FD->getLocation(), In.str(),
                 Fact->Where.File + ":" + std::to_string(Fact->Where.Line),
                 Fact->In};
  if (!Fact->What.empty())
    W.Op = Op;
  W.TensorOps = Fact->TensorOps;
  W.FirstTensorOp = Op;
  return W;
}

Work SampleCost::ofCall(const CallExpr *Call, const FunctionDecl *FD,
                        StringRef In, unsigned Depth) {
  Work W;
  std::string Cost = callCost(FD);
  if (!Cost.empty()) {
    W.Op = ExpensiveOp{Cost, Call->getBeginLoc(), In.str()};
    return W;
  }
  if (utils::isInTorchNamespace(FD)) {
    std::string Name = FD->getNameAsString();
    if (!isIndexingOp(Name) && !isa<CXXConstructorDecl>(FD)) {
      W.TensorOps = 1;
      W.FirstTensorOp = ExpensiveOp{"", Call->getBeginLoc(), In.str()};
    }
    return W;
  }
  if (!FollowCalls || !isUserCode(FD) || Depth + 1 >= MaxCallDepth)
    return W;
  const FunctionDecl *Def = FD->getDefinition();
  if (Def && Def->hasBody())
    return isUserCode(Def) ? ofBody(Def->getBody(), In, Depth + 1) : W;
  return ofIndexed(FD, In);
}

/// Whether \p FD is the standard library's (std, its inline namespaces, its
/// classes' members).
static bool isStandardLibrary(const FunctionDecl *FD) {
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (DC->isStdNamespace())
      return true;
  return false;
}

/// A loop whose calls are all the standard library's only moves memory (a
/// token vector padded with push_back, a row copied): microseconds per
/// sample, not worth a worker. One that calls anything else (a tensor
/// operation per element, the project's code, another library) is work.
static bool callsBeyondStd(const Stmt *Loop, ASTContext &Ctx) {
  for (const BoundNodes &N :
       match(findAll(expr(anyOf(callExpr(), cxxConstructExpr())).bind("c")),
             *Loop, Ctx)) {
    const FunctionDecl *FD = nullptr;
    if (const auto *CE = N.getNodeAs<CallExpr>("c"))
      FD = CE->getDirectCallee();
    else
      FD = N.getNodeAs<CXXConstructExpr>("c")->getConstructor();
    if (!FD || !isStandardLibrary(FD))
      return true;
  }
  return false;
}

Work SampleCost::ofBody(const Stmt *Body, StringRef In, unsigned Depth) {
  Work W;
  if (!Body || !Visited.insert(Body).second)
    return W;
  for (const BoundNodes &N : match(
           findAll(expr(anyOf(callExpr(), cxxConstructExpr())).bind("call")),
           *Body, Ctx)) {
    const auto *E = N.getNodeAs<Expr>("call");
    if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
      std::string Cost = callCost(CE->getConstructor());
      if (!Cost.empty()) {
        W.Op = ExpensiveOp{Cost, CE->getBeginLoc(), In.str()};
        return W;
      }
      continue;
    }
    if (const FunctionDecl *FD = cast<CallExpr>(E)->getDirectCallee()) {
      W.add(ofCall(cast<CallExpr>(E), FD, In, Depth));
      if (W.Op)
        return W;
    }
  }
  for (const BoundNodes &N :
       match(findAll(stmt(anyOf(forStmt(), whileStmt(), doStmt(),
                                cxxForRangeStmt()))
                         .bind("loop")),
             *Body, Ctx)) {
    const auto *Loop = N.getNodeAs<Stmt>("loop");
    if (callsBeyondStd(Loop, Ctx)) {
      W.Op = ExpensiveOp{"a loop", Loop->getBeginLoc(), In.str()};
      break;
    }
  }
  return W;
}

std::optional<OwnWork> ownWork(const FunctionDecl *Def, ASTContext &Ctx) {
  if (!Def || !Def->hasBody())
    return std::nullopt;
  std::string In = "'" + Def->getNameAsString() + "'";
  if (const auto *M = dyn_cast<CXXMethodDecl>(Def);
      M && M->getParent()->getIdentifier())
    In = "'" + M->getParent()->getNameAsString() + "::" +
         Def->getNameAsString() + "'";
  Work W = SampleCost(Ctx, nullptr, /*FollowCalls=*/false)
               .ofBody(Def->getBody(), In, 0);
  if (!W.Op && !W.TensorOps)
    return std::nullopt;
  return OwnWork{W.Op ? *W.Op : W.FirstTensorOp, W.Op ? 0 : W.TensorOps};
}

} // namespace clang::tidy::torch::dataloader
