//===--- MockAst.h - libtorch-tidy ------------------------------*- C++ -*-===//
//
// ASTs of small code strings against the mock LibTorch headers of
// test/checkers/Inputs/libtorch, for the unit tests of checks/utils.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_TEST_UNIT_MOCKAST_H
#define LIBTORCH_TIDY_TEST_UNIT_MOCKAST_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringRef.h"
#include <memory>
#include <string>
#include <vector>

namespace torchtidy {

/// The compiler arguments of the mock headers, as %torch_mock_2 of
/// test/lit.cfg.py spells them ("v2.1"; "v1.13" and "unversioned" too).
inline std::vector<std::string> mockArgs(llvm::StringRef Version = "v2.1") {
  std::string Mock =
      std::string(LIBTORCH_TIDY_SOURCE_DIR) + "/test/checkers/Inputs/libtorch/";
  std::string Api = "/include/torch/csrc/api/include";
  return {"-std=c++17", "-resource-dir=" LIBTORCH_TIDY_CLANG_RESOURCE_DIR,
          "-isystem",   Mock + Version.str() + Api,
          "-isystem",   Mock + "common/include",
          "-isystem",   Mock + "common" + Api};
}

/// The AST of \p Code, which may include <torch/torch.h>; null when it does
/// not compile.
inline std::unique_ptr<clang::ASTUnit>
buildMockAst(llvm::StringRef Code, llvm::StringRef Version = "v2.1") {
  std::unique_ptr<clang::ASTUnit> AST =
      clang::tooling::buildASTFromCodeWithArgs(Code, mockArgs(Version),
                                               "input.cc");
  if (!AST || AST->getDiagnostics().hasErrorOccurred())
    return nullptr;
  return AST;
}

/// The variable \p Name declared in the main file, or null.
inline const clang::VarDecl *findVar(clang::ASTContext &Ctx,
                                     llvm::StringRef Name) {
  using namespace clang::ast_matchers;
  auto Found =
      match(varDecl(hasName(Name), isExpansionInMainFile()).bind("var"), Ctx);
  return Found.empty() ? nullptr
                       : Found.front().getNodeAs<clang::VarDecl>("var");
}

/// The initializer of the variable \p Name: the expression a test asks
/// about is written as `auto Probe = <expression>;`.
inline const clang::Expr *initOf(clang::ASTContext &Ctx, llvm::StringRef Name) {
  const clang::VarDecl *VD = findVar(Ctx, Name);
  return VD ? VD->getInit() : nullptr;
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_TEST_UNIT_MOCKAST_H
