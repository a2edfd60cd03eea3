//===--- FreshName.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// Names for the variables fix-its declare: free in the function they go
// into, so that the declaration neither redefines nor hides a name there.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_FRESHNAME_H
#define LIBTORCH_TIDY_CHECKS_UTILS_FRESHNAME_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include <string>

namespace clang {
class ASTContext;
class FunctionDecl;
} // namespace clang

namespace clang::tidy::torch::utils {

/// Whether a local variable named \p Name in the body of \p Fn would clash
/// with nothing: no declaration in the body, no parameter or template
/// parameter, no declaration the body refers to (a global, a member), and
/// no member or namespace-scope declaration visible from \p Fn.
bool isNameFreeIn(const FunctionDecl &Fn, llvm::StringRef Name,
                  ASTContext &Ctx);

/// \p Base, with `_` appended until it is free in \p Fn and not in
/// \p Taken (the names other fix-its already declare there).
std::string freshNameIn(const FunctionDecl &Fn, llvm::StringRef Base,
                        ASTContext &Ctx,
                        const llvm::StringSet<> &Taken = llvm::StringSet<>());

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_FRESHNAME_H
