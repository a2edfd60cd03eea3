//===--- LibTorchNames.h - libtorch-tidy ------------------------*- C++ -*-===//
//
// How the code names LibTorch: the namespace fix-its spell its types with,
// and classes derived from one of its classes.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHNAMES_H
#define LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHNAMES_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang {
class ASTContext;
class CXXRecordDecl;
} // namespace clang

namespace clang::tidy::torch::utils {

/// "torch" when the translation unit declares namespace torch, else "at":
/// the namespace fix-its spell Tensor, kFloat and kCUDA with.
std::string torchNamespace(const ASTContext &Ctx);

/// Whether namespace at declares \p Name here (at::globalContext, the fused
/// ops that came with later LibTorch versions: at::mish since 1.9).
bool declaresInAt(ASTContext &Ctx, llvm::StringRef Name);

/// \p RD is the class \p QualifiedName ("torch::nn::Module") or derives
/// from it.
bool isSameOrDerivedFrom(const CXXRecordDecl *RD,
                         llvm::StringRef QualifiedName);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_LIBTORCHNAMES_H
