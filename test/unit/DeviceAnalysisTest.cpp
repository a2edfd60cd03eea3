//===--- DeviceAnalysisTest.cpp - libtorch-tidy ---------------------------===//
//
// utils::DeviceAnalysis and the expression helpers of DeviceAnalysis.h on
// small programs against the mock LibTorch headers.
//
//===----------------------------------------------------------------------===//

#include "utils/DeviceAnalysis.h"
#include "MockAst.h"
#include <gtest/gtest.h>

namespace torchtidy {
namespace {

using clang::tidy::torch::utils::DeviceAnalysis;
using clang::tidy::torch::utils::DeviceKind;
namespace utils = clang::tidy::torch::utils;

/// A program whose function f() declares the probes the tests ask about.
std::string program(llvm::StringRef Body) {
  return "#include <torch/torch.h>\n"
         "void f(torch::Tensor Param, torch::Device Dev, float *Buf, "
         "bool Flag) {\n" +
         Body.str() + "\n}\n";
}

/// Where the tensor the probe \p Name is initialized with lives.
DeviceKind tensorDevice(llvm::StringRef Body, llvm::StringRef Name = "Probe") {
  std::unique_ptr<clang::ASTUnit> AST = buildMockAst(program(Body));
  if (!AST) {
    ADD_FAILURE() << "does not compile: " << Body.str();
    return DeviceKind::Pending;
  }
  clang::ASTContext &Ctx = AST->getASTContext();
  const clang::Expr *Init = initOf(Ctx, Name);
  if (!Init) {
    ADD_FAILURE() << "no variable " << Name.str();
    return DeviceKind::Pending;
  }
  DeviceAnalysis Devices(Ctx);
  return Devices.ofTensor(Init);
}

/// Which device the Device, DeviceType or TensorOptions value of the probe
/// names.
DeviceKind deviceNamed(llvm::StringRef Body, llvm::StringRef Name = "Probe") {
  std::unique_ptr<clang::ASTUnit> AST = buildMockAst(program(Body));
  if (!AST) {
    ADD_FAILURE() << "does not compile: " << Body.str();
    return DeviceKind::Pending;
  }
  clang::ASTContext &Ctx = AST->getASTContext();
  const clang::Expr *Init = initOf(Ctx, Name);
  if (!Init) {
    ADD_FAILURE() << "no variable " << Name.str();
    return DeviceKind::Pending;
  }
  DeviceAnalysis Devices(Ctx);
  return Devices.ofDevice(Init);
}

TEST(DeviceAnalysisTest, FactoryWithoutDeviceIsOnTheCpu) {
  EXPECT_EQ(tensorDevice("auto Probe = torch::ones({2});"), DeviceKind::Cpu);
  EXPECT_EQ(tensorDevice("auto Probe = torch::from_blob(Buf, {2});"),
            DeviceKind::Cpu);
}

TEST(DeviceAnalysisTest, CudaMovesAndDeviceOptions) {
  EXPECT_EQ(tensorDevice("auto Probe = torch::ones({2}).cuda();"),
            DeviceKind::Cuda);
  EXPECT_EQ(tensorDevice("auto Probe = torch::ones({2}).to(torch::kCUDA);"),
            DeviceKind::Cuda);
  EXPECT_EQ(tensorDevice(
                "auto Probe = torch::ones({2}, torch::device(torch::kCUDA));"),
            DeviceKind::Cuda);
}

TEST(DeviceAnalysisTest, OpsKeepTheDeviceOfTheirOperands) {
  EXPECT_EQ(tensorDevice("auto Probe = torch::ones({2}) + torch::zeros({2});"),
            DeviceKind::Cpu);
  EXPECT_EQ(tensorDevice("auto Probe = torch::ones({2}).view({1, 2});"),
            DeviceKind::Cpu);
}

TEST(DeviceAnalysisTest, UnknownWhereTheCodeProvesNothing) {
  EXPECT_EQ(tensorDevice("auto Probe = Param;"), DeviceKind::Unknown);
  EXPECT_EQ(tensorDevice("auto Probe = Param.to(Dev);"), DeviceKind::Unknown);
  // Mixed: one operand's device is not known.
  EXPECT_EQ(tensorDevice("auto Probe = torch::ones({2}) + Param;"),
            DeviceKind::Unknown);
}

TEST(DeviceAnalysisTest, LocalVariableIsWhereAllItsValuesAre) {
  EXPECT_EQ(tensorDevice("torch::Tensor X = torch::ones({2});\n"
                         "auto Probe = X * 2;"),
            DeviceKind::Cpu);
  EXPECT_EQ(tensorDevice("torch::Tensor X = torch::ones({2});\n"
                         "X = X.cuda();\n"
                         "auto Probe = X;"),
            DeviceKind::Unknown);
}

TEST(DeviceAnalysisTest, DevicesNamedByConstants) {
  EXPECT_EQ(deviceNamed("auto Probe = torch::kCUDA;"), DeviceKind::Cuda);
  EXPECT_EQ(deviceNamed("auto Probe = torch::kCPU;"), DeviceKind::Cpu);
  EXPECT_EQ(deviceNamed("auto Probe = torch::Device(torch::kCUDA);"),
            DeviceKind::Cuda);
  EXPECT_EQ(deviceNamed("auto Probe = Dev;"), DeviceKind::Unknown);
}

TEST(DeviceAnalysisTest, ConstantConditionsAndDeadBranches) {
  std::unique_ptr<clang::ASTUnit> AST =
      buildMockAst(program("bool Verbose = false;\n"
                           "bool Cond = !Verbose && true;\n"
                           "if (Verbose) { int Dead = 1; (void)Dead; }\n"
                           "int Live = 2; (void)Live;\n"
                           "bool FromParam = Flag;"));
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  DeviceAnalysis Devices(Ctx);
  EXPECT_EQ(Devices.constantCondition(initOf(Ctx, "Cond")),
            std::optional<bool>(true));
  EXPECT_TRUE(Devices.isInDeadBranch(initOf(Ctx, "Dead")));
  EXPECT_FALSE(Devices.isInDeadBranch(initOf(Ctx, "Live")));
  // A parameter can be anything.
  EXPECT_EQ(Devices.constantCondition(initOf(Ctx, "FromParam")), std::nullopt);
}

TEST(DeviceAnalysisTest, ExpressionHelpers) {
  std::unique_ptr<clang::ASTUnit> AST =
      buildMockAst(program("auto Moved = Param.cuda();\n"
                           "auto Sum = torch::ones({2}) + Param;\n"
                           "auto Copy = Param;\n"
                           "int Count = 3;"));
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  const clang::CXXMethodDecl *Cuda = utils::tensorMethod(initOf(Ctx, "Moved"));
  ASSERT_NE(Cuda, nullptr);
  EXPECT_EQ(Cuda->getName(), "cuda");
  EXPECT_EQ(utils::tensorMethod(initOf(Ctx, "Sum")), nullptr);
  EXPECT_TRUE(utils::isTensorType(findVar(Ctx, "Copy")->getType()));
  EXPECT_TRUE(utils::isTensorType(findVar(Ctx, "Param")->getType()));
  EXPECT_FALSE(utils::isTensorType(findVar(Ctx, "Count")->getType()));
  EXPECT_TRUE(utils::isDeviceValueType(findVar(Ctx, "Dev")->getType()));
  EXPECT_TRUE(utils::isRecordNamed(findVar(Ctx, "Dev")->getType(), "Device"));
  // The copy constructor around `Param` is a wrapper.
  const clang::Expr *Bare = utils::ignoreWrappers(initOf(Ctx, "Copy"));
  ASSERT_NE(Bare, nullptr);
  EXPECT_TRUE(llvm::isa<clang::DeclRefExpr>(Bare));
}

TEST(DeviceAnalysisTest, TorchFunctions) {
  std::unique_ptr<clang::ASTUnit> AST =
      buildMockAst(program("auto Probe = torch::ones({2});"));
  ASSERT_TRUE(AST);
  clang::ASTContext &Ctx = AST->getASTContext();
  const auto *Call = llvm::dyn_cast<clang::CallExpr>(
      utils::ignoreWrappers(initOf(Ctx, "Probe")));
  ASSERT_NE(Call, nullptr);
  const clang::FunctionDecl *Ones = Call->getDirectCallee();
  ASSERT_NE(Ones, nullptr);
  EXPECT_TRUE(utils::isInTorchNamespace(Ones));
  EXPECT_TRUE(utils::isTensorFactory(Ones));
  EXPECT_TRUE(utils::isTorchFunction(Ones, {"zeros", "ones"}));
  EXPECT_FALSE(utils::isTorchFunction(Ones, {"zeros"}));
}

TEST(DeviceAnalysisTest, OperatorKinds) {
  EXPECT_TRUE(utils::isComparisonOperator(clang::OO_Less));
  EXPECT_TRUE(utils::isArithmeticOperator(clang::OO_Star));
  EXPECT_FALSE(utils::isArithmeticOperator(clang::OO_Less));
  EXPECT_TRUE(utils::isBitwiseOrLogicalOperator(clang::OO_Caret));
}

} // namespace
} // namespace torchtidy
