//===--- CudaScanTest.cpp - libtorch-tidy ---------------------------------===//
//
// The whole-project token scan: which texts define a program's main().
//
//===----------------------------------------------------------------------===//

#include "project/CudaScan.h"
#include <gtest/gtest.h>

namespace {

using torchtidy::definesProgram;

TEST(CudaScanTest, AProgramsMainIsAProgram) {
  EXPECT_TRUE(definesProgram("int main() { return 0; }"));
  EXPECT_TRUE(definesProgram(
      "#include <torch/torch.h>\nint main(int argc, char **argv) {\n"
      "  torch::Device D(torch::kCPU);\n  return train(D);\n}\n"));
  EXPECT_TRUE(definesProgram("auto main() -> int { return run(); }"));
}

TEST(CudaScanTest, ATestOrBenchmarkRunnerIsNoProgram) {
  EXPECT_FALSE(definesProgram(
      "int main(int argc, char **argv) {\n"
      "  return doctest::Context(argc, argv).run();\n}\n"));
  EXPECT_FALSE(definesProgram(
      "int main(int argc, char **argv) {\n"
      "  ::testing::InitGoogleTest(&argc, argv);\n"
      "  return RUN_ALL_TESTS();\n}\n"));
  EXPECT_FALSE(definesProgram(
      "int main(int argc, char *argv[]) {\n"
      "  return Catch::Session().run(argc, argv);\n}\n"));
  EXPECT_FALSE(definesProgram(
      "int main(int argc, char **argv) {\n"
      "  ::benchmark::Initialize(&argc, argv);\n"
      "  ::benchmark::RunSpecifiedBenchmarks();\n}\n"));
}

TEST(CudaScanTest, NoMainDefinitionIsNoProgram) {
  EXPECT_FALSE(definesProgram(""));
  EXPECT_FALSE(definesProgram("int main();\nvoid train() {}\n"));
  // Not at file scope: a member or a local named main.
  EXPECT_FALSE(definesProgram("struct App { int main() { return 0; } };"));
  EXPECT_FALSE(definesProgram("void f() { int main = 0; (void)main; }"));
  // In a comment or a string.
  EXPECT_FALSE(definesProgram("// int main() { return 0; }\n"
                              "const char *S = \"int main() {}\";\n"));
  // Unbalanced text ends without a crash.
  EXPECT_FALSE(definesProgram("int main(int argc"));
  EXPECT_TRUE(definesProgram("int main() { if (x) {"));
}

} // namespace
