//===--- TorchUtilsTest.cpp - libtorch-tidy -------------------------------===//
//
// The pure functions of checks/utils' topic files: LibTorch versions and
// paths, and the facts about code they read from small programs.
//
//===----------------------------------------------------------------------===//

#include "utils/ConstantFacts.h"
#include "utils/LibTorchHeaders.h"
#include "utils/LibTorchNames.h"
#include "utils/LibTorchVersion.h"
#include "utils/ParentWalk.h"
#include "utils/SourceText.h"
#include "utils/TrainingCode.h"
#include "MockAst.h"
#include "clang/AST/DeclCXX.h"
#include <gtest/gtest.h>

namespace torchtidy {
namespace {

namespace utils = clang::tidy::torch::utils;
using namespace clang::ast_matchers;

TEST(TorchUtilsTest, ParseTorchVersion) {
  std::optional<utils::TorchVersion> V = utils::parseTorchVersion("1.13");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Major, 1u);
  EXPECT_EQ(V->Minor, 13u);
  EXPECT_EQ(V->str(), "1.13");
  V = utils::parseTorchVersion("2.1.0");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Major, 2u);
  EXPECT_EQ(V->Minor, 1u);
  V = utils::parseTorchVersion("2");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Major, 2u);
  EXPECT_EQ(V->Minor, 0u);
  EXPECT_FALSE(utils::parseTorchVersion(""));
  EXPECT_FALSE(utils::parseTorchVersion("x.1"));
  EXPECT_FALSE(utils::parseTorchVersion("2.x"));
}

TEST(TorchUtilsTest, TorchVersionAtLeast) {
  utils::TorchVersion V{1, 13};
  EXPECT_TRUE(V.atLeast(1, 13));
  EXPECT_TRUE(V.atLeast(1, 2));
  EXPECT_FALSE(V.atLeast(2, 0));
  EXPECT_FALSE(V.atLeast(1, 14));
}

TEST(TorchUtilsTest, IsLibTorchPath) {
  EXPECT_TRUE(utils::isLibTorchPath(
      "/usr/include/torch/csrc/api/include/torch/nn/module.h"));
  EXPECT_TRUE(utils::isLibTorchPath("/opt/libtorch/include/ATen/Tensor.h"));
  EXPECT_TRUE(utils::isLibTorchPath("/opt/libtorch/include/c10/core/Device.h"));
  EXPECT_FALSE(utils::isLibTorchPath("/home/me/project/src/train.cpp"));
  EXPECT_FALSE(utils::isLibTorchPath("/home/me/project/torch_utils.h"));
  // A file named like a LibTorch directory is not under one.
  EXPECT_FALSE(utils::isLibTorchPath("/home/me/project/c10"));
}

/// A function f() whose locals the tests ask about.
std::unique_ptr<clang::ASTUnit> buildF(llvm::StringRef Body) {
  return buildMockAst("#include <torch/torch.h>\n"
                      "void take(bool &);\n"
                      "void f(bool Param) {\n" +
                      Body.str() + "\n}\n");
}

TEST(TorchUtilsTest, ProvableBool) {
  std::unique_ptr<clang::ASTUnit> AST =
      buildF("bool On = true;\n"
             "bool Off = false;\n"
             "bool Changed = false; Changed = Param;\n"
             "bool Passed = false; take(Passed);\n"
             "bool A = On, B = Off, C = Changed, D = Passed, E = Param;");
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  EXPECT_EQ(utils::provableBool(initOf(Ctx, "A"), Ctx), std::optional(true));
  EXPECT_EQ(utils::provableBool(initOf(Ctx, "B"), Ctx), std::optional(false));
  EXPECT_EQ(utils::provableBool(initOf(Ctx, "C"), Ctx), std::nullopt);
  EXPECT_EQ(utils::provableBool(initOf(Ctx, "D"), Ctx), std::nullopt);
  EXPECT_EQ(utils::provableBool(initOf(Ctx, "E"), Ctx), std::nullopt);
}

// Of tensors, the variables the checks ask about: their assignments are
// operator calls.
TEST(TorchUtilsTest, IsNeverReassigned) {
  std::unique_ptr<clang::ASTUnit> AST =
      buildF("torch::Tensor Kept = torch::ones({2});\n"
             "torch::Tensor Assigned = torch::ones({2});\n"
             "Assigned = torch::zeros({2});\n"
             "torch::Tensor Bumped = torch::ones({2}); Bumped -= 1.0;\n"
             "torch::Tensor Addressed = torch::ones({2});\n"
             "torch::Tensor *P = &Addressed; (void)P;");
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  EXPECT_TRUE(utils::isNeverReassigned(findVar(Ctx, "Kept"), Ctx));
  EXPECT_FALSE(utils::isNeverReassigned(findVar(Ctx, "Assigned"), Ctx));
  EXPECT_FALSE(utils::isNeverReassigned(findVar(Ctx, "Bumped"), Ctx));
  EXPECT_FALSE(utils::isNeverReassigned(findVar(Ctx, "Addressed"), Ctx));
}

// Of built-in types (bool flags, device-type enums): plain assignments,
// compound ones and increments.
TEST(TorchUtilsTest, IsNeverReassignedBuiltin) {
  std::unique_ptr<clang::ASTUnit> AST =
      buildF("bool Kept = true; (void)Kept;\n"
             "bool Flag = false; Flag = true;\n"
             "int Count = 0; Count += 2;\n"
             "int Steps = 0; ++Steps;\n"
             "c10::DeviceType Type = torch::kCPU; Type = torch::kCUDA;");
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  EXPECT_TRUE(utils::isNeverReassigned(findVar(Ctx, "Kept"), Ctx));
  EXPECT_FALSE(utils::isNeverReassigned(findVar(Ctx, "Flag"), Ctx));
  EXPECT_FALSE(utils::isNeverReassigned(findVar(Ctx, "Count"), Ctx));
  EXPECT_FALSE(utils::isNeverReassigned(findVar(Ctx, "Steps"), Ctx));
  EXPECT_FALSE(utils::isNeverReassigned(findVar(Ctx, "Type"), Ctx));
}

TEST(TorchUtilsTest, EnclosingFunctionOfBodiesAndInitializers) {
  std::unique_ptr<clang::ASTUnit> AST = buildMockAst(
      "#include <torch/torch.h>\n"
      "struct Frame {\n"
      "  explicit Frame(float *Buf) : Pixels(torch::from_blob(Buf, {4})) {}\n"
      "  torch::Tensor Pixels;\n"
      "};\n"
      "torch::Tensor g() { return torch::ones({2}); }\n"
      "torch::Tensor Global = torch::zeros({2});\n");
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  auto CallOf = [&](llvm::StringRef Name) -> const clang::CallExpr * {
    auto Found = match(
        callExpr(callee(functionDecl(hasName(Name))), isExpansionInMainFile())
            .bind("call"),
        Ctx);
    return Found.empty() ? nullptr
                         : Found.front().getNodeAs<clang::CallExpr>("call");
  };
  // A member initializer belongs to its constructor.
  const clang::FunctionDecl *Ctor =
      utils::enclosingFunction(CallOf("from_blob"), Ctx);
  ASSERT_NE(Ctor, nullptr);
  EXPECT_TRUE(llvm::isa<clang::CXXConstructorDecl>(Ctor));
  const clang::FunctionDecl *G = utils::enclosingFunction(CallOf("ones"), Ctx);
  ASSERT_NE(G, nullptr);
  EXPECT_EQ(G->getName(), "g");
  // A global's initializer is in no function.
  EXPECT_EQ(utils::enclosingFunction(CallOf("zeros"), Ctx), nullptr);
}

TEST(TorchUtilsTest, TorchNamespaceAndSourceText) {
  std::unique_ptr<clang::ASTUnit> AST =
      buildF("auto Probe = torch::ones({2}) * 2;");
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  EXPECT_EQ(utils::torchNamespace(Ctx), "torch");
  const clang::Expr *Init = initOf(Ctx, "Probe");
  ASSERT_NE(Init, nullptr);
  EXPECT_EQ(utils::sourceText(Init->getSourceRange(), Ctx.getSourceManager(),
                              Ctx.getLangOpts()),
            "torch::ones({2}) * 2");
}

TEST(TorchUtilsTest, TrainingLoopDepth) {
  // The loop is three calls down from run(); the training two calls further.
  std::unique_ptr<clang::ASTUnit> AST = buildMockAst(
      "#include <torch/torch.h>\n"
      "void step2(torch::Tensor &L) { L.backward(); }\n"
      "void step1(torch::Tensor &L) { step2(L); }\n"
      "void loop(torch::Tensor &L) { for (int I = 0; I < 9; ++I) step1(L); }\n"
      "void mid(torch::Tensor &L) { loop(L); }\n"
      "void top(torch::Tensor &L) { mid(L); }\n"
      "void run(torch::Tensor &L) { top(L); }\n");
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  auto BodyOf = [&](llvm::StringRef Name) -> const clang::Stmt * {
    auto Found = match(functionDecl(hasName(Name), isDefinition()).bind("f"),
                       Ctx);
    return Found.empty()
               ? nullptr
               : Found.front().getNodeAs<clang::FunctionDecl>("f")->getBody();
  };
  utils::TrainingCode Training(Ctx);
  // trains() follows three calls: step2's backward() from mid(), not top().
  EXPECT_TRUE(Training.trains(BodyOf("mid")));
  EXPECT_FALSE(Training.trains(BodyOf("top")));
  EXPECT_FALSE(Training.trains(nullptr));
  // firstTrainingLoop() counts the calls from run(): the training is too deep.
  EXPECT_EQ(Training.firstTrainingLoop(BodyOf("run")), nullptr);
  // firstLoopThatTrains() counts them again from the loop.
  const clang::Stmt *Loop = Training.firstLoopThatTrains(BodyOf("run"));
  ASSERT_NE(Loop, nullptr);
  EXPECT_TRUE(llvm::isa<clang::ForStmt>(Loop));
  EXPECT_EQ(Training.firstLoopThatTrains(BodyOf("step1")), nullptr);
}

} // namespace
} // namespace torchtidy
