//===--- ConvBiasAnalysis.h - libtorch-tidy ---------------------*- C++ -*-===//
//
// Whether a convolution torch-conv-bias-before-batchnorm looks at has its
// bias on, and where that is decided: the options expression, a local
// options variable, a helper of the user's (one site per return), or a
// parameter of a helper or of a module's constructor whose call passes or
// defaults the value. Also the module and options types the check reads.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_CONVBIASANALYSIS_H
#define LIBTORCH_TIDY_CHECKS_CONVBIASANALYSIS_H

#include "DiagMessage.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include <string>
#include <utility>
#include <vector>

namespace clang::tidy::torch::convbias {

/// How many helper calls the analysis follows into.
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

/// \p D is declared directly in namespace torch::nn.
bool isInTorchNn(const Decl *D);

/// The module class behind a ModuleHolder (`Conv2d`), a shared_ptr to it, or
/// the class itself: `Conv2dImpl`.
const CXXRecordDecl *moduleClass(QualType T);

ModuleType moduleType(QualType T);

/// `ConvOptions<D>` or `ConvTransposeOptions<D>`, through aliases.
bool isConvOptions(QualType T);

/// \p FD is torch::nn::Module's method \p Name.
bool isTorchNnModuleMethod(const FunctionDecl *FD, StringRef Name);

/// Implicit casts, parentheses and temporaries, but not the converting
/// constructors that ignoreWrappers also skips: a `Conv2d(options)` has to
/// stay a constructor here.
const Expr *strip(const Expr *E);

/// strip(), and also the copy and move constructors of \p E's own type, which
/// the AST puts around a value passed on by value.
const Expr *stripCopies(const Expr *E);

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
    /// Insert Before + the value that turns the bias off at InsertAt, the
    /// closing parenthesis of a call that takes a parameter's default.
    AddArgument,
  };
  FixKind Fix = FixKind::None;
  const Expr *Target = nullptr;
  const Expr *LastArg = nullptr;
  std::string ConvName;
  /// Why the site itself cannot be rewritten.
  DiagMessage NoFix;

  /// Built by a function of the user's: the call, and where the helper
  /// decides the bias, one site per return statement.
  const FunctionDecl *Helper = nullptr;
  const CallExpr *HelperCall = nullptr;
  std::vector<BiasSite> HelperReturns;

  /// The expression that builds the convolution module, where it is
  /// reported.
  const Expr *Built = nullptr;

  /// Decided by a parameter of ParamOwner (a helper or a module's
  /// constructor) at the call that is followed: `.bias(with_bias)`.
  const ParmVarDecl *FromParameter = nullptr;
  const FunctionDecl *ParamOwner = nullptr;
  /// The `.bias(...)` argument that names the parameter.
  const Expr *BiasArgument = nullptr;
  /// The call takes the parameter's default, which is DefaultArg.
  const Expr *DefaultArg = nullptr;
  /// Where another file sets the bias from FromParameter ("file:line"),
  /// when the project index says so and BiasArgument is not in this one.
  std::string SetElsewhere;
  SourceLocation InsertAt;
  std::string Before;
};

/// The arguments of the call whose callee's body is being read: a helper, or
/// the constructor a module's construction reaches. Args are as written, or
/// as forwarded by a ModuleHolder or std::make_shared: fewer than the
/// parameters when the call takes defaults.
struct Binding {
  const FunctionDecl *Callee = nullptr;
  std::vector<const Expr *> Args;
  /// The closing parenthesis or brace of the call.
  SourceLocation Close;
};

class BiasAnalyzer {
public:
  BiasAnalyzer(ASTContext &Ctx, const SourceManager &SM) : Ctx(Ctx), SM(SM) {}

  /// \p E evaluates to a convolution module (holder, shared_ptr or impl).
  BiasSite ofModule(const Expr *E, unsigned Depth = 0);
  /// \p E evaluates to a ConvOptions.
  BiasSite ofOptions(const Expr *E, unsigned Depth = 0);

private:
  BiasSite ofModuleConstruction(const CXXConstructExpr *CE, unsigned Depth);
  BiasSite ofModuleCall(const CallExpr *Call, unsigned Depth);
  BiasSite ofOptionsChain(const Expr *E, unsigned Depth);
  BiasSite ofConstructorArgs(const Expr *const *Args, unsigned NumArgs,
                             const std::string &ConvName, unsigned Depth);
  BiasSite ofHelper(const CallExpr *Call, bool ReturnsOptions, unsigned Depth);
  BiasSite ofVariable(const DeclRefExpr *Ref, bool IsOptions, unsigned Depth);
  BiasSite ofVariableSetters(const VarDecl *VD, const DeclRefExpr *Ref,
                             const std::vector<const CXXMemberCallExpr *> &Set);
  BiasSite ofBiasArgument(const Expr *Arg);
  BiasSite ofParameter(const ParmVarDecl *P, const Expr *BiasArg);
  BiasSite unboundParameter(const ParmVarDecl *P, const FunctionDecl *Owner,
                            const Expr *BiasArg);
  void addArgumentFix(BiasSite &Site, const ParmVarDecl *P);
  BiasSite ofHelperReturns(const CallExpr *Call, const FunctionDecl *Def,
                           bool ReturnsOptions, unsigned Depth);

public:
  /// ofModule() for the project index: a constructor's parameters are not
  /// bound, and a bias set from one that the body never changes gives
  /// FromParameter and ParamOwner (state Unknown).
  BiasSite ofModuleUnbound(const Expr *E) {
    bool Saved = std::exchange(Unbound, true);
    BiasSite Site = ofModule(E);
    Unbound = Saved;
    return Site;
  }
  /// The bias set from parameter \p P of \p B.Callee, whose body is in
  /// another file (the project index says it sets the bias from \p P and
  /// never changes it), at the call \p B.
  BiasSite ofParameterElsewhere(const ParmVarDecl *P, const Binding &B) {
    const Binding *Saved = std::exchange(Bound, &B);
    bool SavedElsewhere = std::exchange(BodyElsewhere, true);
    BiasSite Site = ofParameter(P, nullptr);
    Bound = Saved;
    BodyElsewhere = SavedElsewhere;
    return Site;
  }

  /// ofModule() with the parameters of \p B->Callee bound to its arguments.
  BiasSite ofModuleWith(const Expr *E, const Binding &B) {
    const Binding *Saved = std::exchange(Bound, &B);
    BiasSite Site = ofModule(E);
    Bound = Saved;
    return Site;
  }

private:
  ASTContext &Ctx;
  const SourceManager &SM;
  const Binding *Bound = nullptr;
  bool Unbound = false, BodyElsewhere = false;
};

} // namespace clang::tidy::torch::convbias

#endif // LIBTORCH_TIDY_CHECKS_CONVBIASANALYSIS_H
