//===--- PrecompiledHeadersTest.cpp - libtorch-tidy-verify ----------------===//
//
// Unit tests of program mode's precompiled LibTorch headers: which sources
// the PCH may serve (their includes, read without a compiler), the CMake
// hook's text, and the hook itself configuring a small project (CMake only,
// no compile).
//
//===----------------------------------------------------------------------===//

#include "../PrecompiledHeaders.h"
#include "../Process.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace torchtidy;
namespace fs = std::filesystem;

namespace {

SourceFiles files(std::map<std::string, std::string> Text) {
  SourceFiles F;
  F.Text = std::move(Text);
  return F;
}

TEST(PrecompiledHeadersTest, FollowsTheProjectsHeaders) {
  SourceFiles F = files({
      {"src/main.cpp", "// Trains.\n#include \"data.h\"\n#include <vector>\n"
                       "#include \"model.h\"\nint main() {}\n"},
      {"src/data.h", "#pragma once\n#include <torch/torch.h>\n"},
      // Found through an include directory, guarded, a define after.
      {"include/net/model.h",
       "#ifndef NET_MODEL_H\n#define NET_MODEL_H\n"
       "#include <torch/torch.h>\n#include <ATen/ATen.h>\n"
       "#define WIDTH 4\n#endif\n"},
      {"src/model.cpp", "#include <net/model.h>\n"},
  });
  IncludeScan S = scanIncludes(F, "src/main.cpp");
  EXPECT_EQ(S.Unsafe, "");
  EXPECT_EQ(S.Headers,
            (std::vector<std::string>{"torch/torch.h", "ATen/ATen.h"}));
  EXPECT_EQ(scanIncludes(F, "src/model.cpp").Headers,
            (std::vector<std::string>{"torch/torch.h", "ATen/ATen.h"}));
}

TEST(PrecompiledHeadersTest, AnIncludeAgainChangesNothing) {
  SourceFiles F = files({
      {"a.cpp", "#include \"x.h\"\n#include \"y.h\"\n"},
      {"x.h", "#include <torch/torch.h>\nstruct X {};\n#define Y 1\n"},
      {"y.h", "#include <torch/torch.h>\nstruct Z {};\n"},
  });
  IncludeScan S = scanIncludes(F, "a.cpp");
  EXPECT_EQ(S.Unsafe, "");
  EXPECT_EQ(S.Headers, (std::vector<std::string>{"torch/torch.h"}));
}

TEST(PrecompiledHeadersTest, WhatComesFirstMayChangeTheHeaders) {
  auto Unsafe = [](const std::string &Text) {
    return scanIncludes(files({{"a.cpp", Text}, {"cfg.h", "#define X 1\n"}}),
                        "a.cpp")
        .Unsafe;
  };
  EXPECT_EQ(Unsafe("#define TORCH_X 1\n#include <torch/torch.h>\n"),
            "#define TORCH_X 1 at a.cpp:1 comes before #include "
            "<torch/torch.h>");
  EXPECT_NE(Unsafe("#ifdef GPU\n#include <c10/cuda/CUDAGuard.h>\n#endif\n"),
            "");
  EXPECT_NE(Unsafe("#include \"cfg.h\"\n#include <torch/torch.h>\n"), "");
  // A header the tree does not have (generated into the build directory).
  EXPECT_NE(Unsafe("#include \"config.h\"\n#include <torch/torch.h>\n"), "");
  EXPECT_NE(Unsafe("namespace a {}\n#include <torch/torch.h>\n"), "");
  EXPECT_NE(Unsafe("#pragma pack(1)\n#include <torch/torch.h>\n"), "");
  // Comments, diagnostics pragmas, system headers and anything after the
  // last LibTorch include are fine.
  EXPECT_EQ(Unsafe("/* #define X\n */ #include <vector> // #undef Y\n"
                   "#pragma GCC diagnostic push\n#include <torch/torch.h>\n"
                   "#define AFTER\nint f();\n"),
            "");
}

TEST(PrecompiledHeadersTest, ScansTheSources) {
  SourceFiles F = files({
      {"main.cpp", "#include <torch/torch.h>\n"},
      {"late.cc", "#define NDEBUG\n#include <torch/script.h>\n"},
      {"plain.cpp", "#include <cstdio>\n"},
      {"a;b.cpp", "#include <torch/torch.h>\n"},
      {"only.h", "#include <torch/torch.h>\n"},
  });
  PchScan Scan = scanSources(F);
  ASSERT_EQ(Scan.Sources.size(), 1u);
  EXPECT_EQ(Scan.Sources[0].File, "main.cpp");
  ASSERT_EQ(Scan.Skipped.size(), 2u);
  EXPECT_EQ(Scan.Skipped[0].File, "a;b.cpp");
  EXPECT_EQ(Scan.Skipped[1].File, "late.cc");
}

TEST(PrecompiledHeadersTest, HookText) {
  PchScan Scan;
  Scan.Sources = {{"src/main.cpp", {"torch/torch.h", "ATen/ATen.h"}}};
  std::string Hook = pchHookScript(Scan, "/u/own$.cmake", "/t/report.txt");
  EXPECT_LT(Hook.find("include(\"/u/own\\$.cmake\")"),
            Hook.find("cmake_language(DEFER"));
  EXPECT_NE(Hook.find("set(LIBTORCH_TIDY_PCH_FILES\n  \"src/main.cpp\")"),
            std::string::npos);
  EXPECT_NE(Hook.find("\"torch/torch.h|ATen/ATen.h\")"), std::string::npos);
  EXPECT_NE(Hook.find("$<$<COMPILE_LANGUAGE:CXX>:<${header}>>"),
            std::string::npos);
  EXPECT_EQ(pchHookScript(Scan, "", "/r").find("include(\""),
            std::string::npos);
}

TEST(PrecompiledHeadersTest, ParsesTheReport) {
  std::vector<PchTarget> T =
      parsePchReport("train\ttorch/torch.h|ATen/ATen.h\t3\t1\nbad line\n");
  ASSERT_EQ(T.size(), 1u);
  EXPECT_EQ(T[0].Name, "train");
  EXPECT_EQ(T[0].Headers.size(), 2u);
  EXPECT_EQ(T[0].Sources, 3);
  EXPECT_EQ(T[0].Skipped, 1);
}

void write(const fs::path &P, const std::string &Text) {
  fs::create_directories(P.parent_path());
  std::ofstream(P) << Text;
}

/// Configures a small project with the hook and \p Compiler; the hook's
/// report.
std::string configureWithHook(bool AnyCompiler, const std::string &Compiler) {
  fs::path Dir = fs::temp_directory_path() /
                 ("pch-test-" + std::to_string(::getpid()));
  fs::remove_all(Dir);
  write(Dir / "src/CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.5)\nproject(p LANGUAGES CXX)\n"
        "add_subdirectory(app)\n"
        "add_library(own STATIC own.cpp)\n"
        "target_precompile_headers(own PRIVATE <vector>)\n");
  write(Dir / "src/app/CMakeLists.txt",
        "add_executable(train main.cpp model.cpp plain.cpp flags.cpp)\n"
        "set_source_files_properties(flags.cpp PROPERTIES "
        "COMPILE_DEFINITIONS X=1)\n");
  for (const char *F : {"app/main.cpp", "app/model.cpp", "app/plain.cpp",
                        "app/flags.cpp", "own.cpp"})
    write(Dir / "src" / F, ""); // CMake needs them to exist, not to compile
  PchScan Scan;
  for (const char *F : {"app/main.cpp", "app/model.cpp", "app/flags.cpp",
                        "own.cpp"})
    Scan.Sources.push_back({F, {"torch/torch.h"}});
  write(Dir / "hook.cmake",
        pchHookScript(Scan, "", (Dir / "report.txt").string(), AnyCompiler));
  std::string Cmd = "cmake -S " + (Dir / "src").string() + " -B " +
                    (Dir / "build").string() + " -DCMAKE_CXX_COMPILER=" +
                    Compiler + " -DCMAKE_PROJECT_INCLUDE=" +
                    (Dir / "hook.cmake").string() + " > " +
                    (Dir / "log.txt").string() + " 2>&1";
  int Rc = std::system(Cmd.c_str());
  std::ifstream In(Dir / "report.txt");
  std::string Report((std::istreambuf_iterator<char>(In)),
                     std::istreambuf_iterator<char>());
  fs::remove_all(Dir);
  return Rc == 0 ? Report : "configure failed";
}

bool have(const char *Program) {
  return std::system(("command -v " + std::string(Program) +
                      " > /dev/null 2>&1").c_str()) == 0;
}

// The hook in a real configure: targets in subdirectories, sources that
// keep off the PCH, targets that have one of their own. No compiler runs
// but CMake's detection; LibTorch is not needed to configure.
TEST(PrecompiledHeadersTest, HookConfiguresTheTargets) {
  if (!have("cmake") || !have("g++"))
    GTEST_SKIP() << "no cmake or g++";
  // main.cpp and model.cpp with the PCH; plain.cpp (no LibTorch) and
  // flags.cpp (its own definitions) without; the own PCH left alone.
  EXPECT_EQ(configureWithHook(/*AnyCompiler=*/true, "g++"),
            "train\ttorch/torch.h\t2\t2\n");
}

// By default only Clang gets the PCH; GCC's is left out and said so.
TEST(PrecompiledHeadersTest, HookKeepsToClang) {
  if (!have("cmake") || !have("g++"))
    GTEST_SKIP() << "no cmake or g++";
  std::string Gnu = configureWithHook(/*AnyCompiler=*/false, "g++");
  EXPECT_EQ(Gnu, "compiler\tGNU\n");
  EXPECT_EQ(pchReportCompiler(Gnu), "GNU");
  EXPECT_TRUE(parsePchReport(Gnu).empty());
  if (have("clang++-19"))
    EXPECT_EQ(configureWithHook(/*AnyCompiler=*/false, "clang++-19"),
              "train\ttorch/torch.h\t2\t2\n");
}

} // namespace
