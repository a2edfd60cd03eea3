//===--- LibTorchNames.cpp - libtorch-tidy --------------------------------===//

#include "LibTorchNames.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"

namespace clang::tidy::torch::utils {

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

std::string torchNamespace(const ASTContext &Ctx) {
  auto &Idents = const_cast<ASTContext &>(Ctx).Idents;
  return Ctx.getTranslationUnitDecl()->lookup(&Idents.get("torch")).empty()
             ? "at"
             : "torch";
}

bool declaresInAt(ASTContext &Ctx, llvm::StringRef Name) {
  for (const NamedDecl *NS :
       Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get("at")))
    if (const auto *DC = dyn_cast<NamespaceDecl>(NS))
      if (!DC->lookup(&Ctx.Idents.get(Name)).empty())
        return true;
  return false;
}

bool isSameOrDerivedFrom(const CXXRecordDecl *RD,
                         llvm::StringRef QualifiedName) {
  return sameOrDerived(RD, QualifiedName, 0);
}

} // namespace clang::tidy::torch::utils
