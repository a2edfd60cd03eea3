//===--- FreshName.cpp - libtorch-tidy ------------------------------------===//

#include "FreshName.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch::utils {

namespace {

bool templateParameterNamed(const TemplateDecl *TD, llvm::StringRef Name) {
  if (!TD)
    return false;
  return llvm::any_of(*TD->getTemplateParameters(), [&](const NamedDecl *P) {
    return P->getIdentifier() && P->getName() == Name;
  });
}

/// A declaration named \p Name in a class or namespace around \p Fn.
bool visibleFromContexts(const FunctionDecl &Fn, llvm::StringRef Name,
                         ASTContext &Ctx) {
  DeclarationName Id(&Ctx.Idents.get(Name));
  for (const DeclContext *DC = Fn.getDeclContext(); DC; DC = DC->getParent()) {
    if (!DC->lookup(Id).empty())
      return true;
    if (const auto *RD = dyn_cast<CXXRecordDecl>(DC);
        RD && templateParameterNamed(RD->getDescribedClassTemplate(), Name))
      return true;
  }
  return false;
}

} // namespace

bool isNameFreeIn(const FunctionDecl &Fn, llvm::StringRef Name,
                  ASTContext &Ctx) {
  if (llvm::any_of(Fn.parameters(), [&](const ParmVarDecl *P) {
        return P->getIdentifier() && P->getName() == Name;
      }))
    return false;
  if (templateParameterNamed(Fn.getDescribedFunctionTemplate(), Name) ||
      visibleFromContexts(Fn, Name, Ctx))
    return false;
  const Stmt *Body = Fn.getBody();
  if (!Body)
    return true;
  auto Named = namedDecl(hasName(Name));
  return match(findAll(Named), *Body, Ctx).empty() &&
         match(findAll(expr(anyOf(declRefExpr(to(Named)),
                                  memberExpr(member(Named))))),
               *Body, Ctx)
             .empty();
}

std::string freshNameIn(const FunctionDecl &Fn, llvm::StringRef Base,
                        ASTContext &Ctx, const llvm::StringSet<> &Taken) {
  std::string Name = Base.str();
  while (Taken.contains(Name) || !isNameFreeIn(Fn, Name, Ctx))
    Name += "_";
  return Name;
}

} // namespace clang::tidy::torch::utils
