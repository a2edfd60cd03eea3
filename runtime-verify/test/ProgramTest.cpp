//===--- ProgramTest.cpp - libtorch-tidy-verify ---------------------------===//
//
// Unit tests of program mode's parts that need no build: the CMake cache it
// reads, the initial-cache script it writes, the numbers it compares and
// the program-mode options.
//
//===----------------------------------------------------------------------===//

#include "../Options.h"
#include "../ProgramRun.h"
#include "../ProjectTree.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace torchtidy;

TEST(ProgramTest, ReadsTheCMakeCache) {
  std::filesystem::path Dir =
      std::filesystem::temp_directory_path() /
      ("program-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(Dir);
  std::ofstream(Dir / "CMakeCache.txt")
      << "# comment\n// help\nCMAKE_BUILD_TYPE:STRING=Release\n"
         "Torch_DIR:PATH=/usr/lib/cmake/Torch\n"
         "CMAKE_HOME_DIRECTORY:INTERNAL=/src/proj\n"
         "CMAKE_GENERATOR:INTERNAL=Ninja\nproj_BINARY_DIR:STATIC=/b\n"
         "OUT:PATH=" +
             Dir.string() + "/out\nX:UNINITIALIZED=a\"b$c\n";
  ErrorOr<CMakeProject> P = readCMakeCache(Dir.string());
  std::filesystem::remove_all(Dir);
  ASSERT_TRUE(P) << P.error();
  EXPECT_EQ(P->SourceDir, "/src/proj");
  EXPECT_EQ(P->Generator, "Ninja");
  ASSERT_EQ(P->Cache.size(), 4u);
  std::string Script = initialCacheScript(*P, "/s", "/b2");
  EXPECT_NE(Script.find("set(CMAKE_BUILD_TYPE \"Release\" CACHE STRING"),
            std::string::npos);
  EXPECT_NE(Script.find("set(OUT \"/b2/out\" CACHE PATH"), std::string::npos);
  EXPECT_NE(Script.find("set(X \"a\\\"b\\$c\" CACHE STRING"),
            std::string::npos);
  EXPECT_FALSE(readCMakeCache("/nonexistent-dir"));
}

TEST(ProgramTest, Placeholders) {
  EXPECT_EQ(withPlaceholders("{build}/train --data {source}/d {build}", "/B",
                             "/S"),
            "/B/train --data /S/d /B");
}

TEST(ProgramTest, FirstError) {
  EXPECT_EQ(firstError("[1/2] cc\nmain.cpp:3:1: error: x\nmore error: y\n"),
            "main.cpp:3:1: error: x");
  EXPECT_EQ(firstError("a\nlast\n\n"), "last");
}

TEST(ProgramTest, NumbersLeaveOutTheMetric) {
  std::regex Metric("time ([0-9.]+) ms");
  EXPECT_EQ(numbersIn("step 1 loss 0.5e-3 time 12.5 ms nan\n", &Metric),
            (std::vector<std::string>{"1", "0.5e-3", "nan"}));
}

TEST(ProgramTest, ComparesStableNumbers) {
  std::string A = "loss 1.25 at 10:01\nacc 0.5\n";
  std::string B = "loss 1.25 at 10:02\nacc 0.5\n";
  Comparison C = baselineComparison("numbers", A, B, nullptr, 0);
  ASSERT_EQ(C.Mode, "numbers");
  EXPECT_EQ(C.Stable, (std::vector<bool>{true, true, false, true}));
  EXPECT_FALSE(firstDifference(C, "loss 1.25 at 10:59\nacc 0.5\n", nullptr, 0));
  std::optional<NumberDifference> D =
      firstDifference(C, "loss 1.25 at 10:01\nacc 0.75\n", nullptr, 0);
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Position, 4);
  EXPECT_EQ(D->Baseline, "0.5");
  EXPECT_EQ(D->Variant, "0.75");
  EXPECT_FALSE(firstDifference(C, "loss 1.2500001 at 10:7\nacc 0.5\n",
                               nullptr, 1e-4));
  EXPECT_TRUE(firstDifference(C, "loss 1.25 at 1:1\n", nullptr, 0));
}

TEST(ProgramTest, NothingToCompare) {
  EXPECT_EQ(baselineComparison("numbers", "done\n", "done\n", nullptr, 0).Mode,
            "none");
  Comparison Seedless =
      baselineComparison("numbers", "loss 0.3\n", "loss 0.4\n", nullptr, 0);
  EXPECT_EQ(Seedless.Mode, "none");
  EXPECT_NE(Seedless.Reason.find("manual_seed"), std::string::npos);
  EXPECT_EQ(baselineComparison("none", "1", "1", nullptr, 0).Reason,
            "--compare none");
  Comparison Exact = baselineComparison("exact", "a\nb\n", "a\nc\n", nullptr, 0);
  EXPECT_EQ(Exact.Mode, "exact");
  EXPECT_TRUE(firstDifference(Exact, "x\nb\n", nullptr, 0));
}

TEST(ProgramTest, Options) {
  ErrorOr<VerifyOptions> O = parseOptions(
      {"f.json", "--project", "b", "--run", "{build}/t", "--runs", "5",
       "--compare", "exact", "--metric", "t ([0-9]+)", "--time-cap", "30"});
  ASSERT_TRUE(O) << O.error();
  EXPECT_TRUE(O->programMode());
  EXPECT_EQ(O->Runs, 5);
  EXPECT_EQ(O->Compare, "exact");
  EXPECT_TRUE(O->TimeCapSet);
  EXPECT_FALSE(parseOptions({"f.json", "--run", "x"}));
  EXPECT_FALSE(parseOptions({"f.json", "--project", "b"}));
  EXPECT_FALSE(parseOptions(
      {"f.json", "--project", "b", "--run", "x", "--compare", "some"}));
}
