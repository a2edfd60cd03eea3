//===--- ProgramTest.cpp - libtorch-tidy-verify ---------------------------===//
//
// Unit tests of program mode's parts that need no build: the CMake cache it
// reads, the initial-cache script it writes, the numbers it compares (as far
// as each fix may change them) and the program-mode options.
//
//===----------------------------------------------------------------------===//

#include "../Options.h"
#include "../ProgramRun.h"
#include "../ProjectTree.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

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
  EXPECT_FALSE(
      firstDifference(C, "loss 1.25 at 10:59\nacc 0.5\n", nullptr, {}));
  std::optional<NumberDifference> D =
      firstDifference(C, "loss 1.25 at 10:01\nacc 0.75\n", nullptr, {});
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Position, 4);
  EXPECT_EQ(D->Baseline, "0.5");
  EXPECT_EQ(D->Variant, "0.75");
  EXPECT_FALSE(firstDifference(C, "loss 1.2500001 at 10:7\nacc 0.5\n", nullptr,
                               {ResultChange::Rounding, 1e-4}));
  EXPECT_TRUE(firstDifference(C, "loss 1.25 at 1:1\n", nullptr, {}));
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
  EXPECT_TRUE(firstDifference(Exact, "x\nb\n", nullptr, {}));
}

/// The reason a variant printing \p Output is changes-results, or "" when
/// its numbers are what \p A allows of the baseline's \p C.
std::string verdictOn(const Comparison &C, const std::string &Output,
                      const Allowance &A) {
  std::optional<NumberDifference> D = firstDifference(C, Output, nullptr, A);
  return D ? differenceReason(C, *D, A) : "";
}

TEST(ProgramTest, NothingMayChangeMeansEqual) {
  Comparison C = baselineComparison("numbers", "loss 1.9928\n", "loss 1.9928\n",
                                    nullptr, 0);
  EXPECT_EQ(verdictOn(C, "loss 1.99280\n", {}), "");
  EXPECT_EQ(verdictOn(C, "loss 1.9927\n", {}),
            "the number at position 1 is '1.9927', the baseline prints "
            "'1.9928'");
}

TEST(ProgramTest, RoundingMayFlipTheLastDigitPrinted) {
  // A fused op rounds differently and training amplifies it: at four
  // decimals the loss flips its last digit, 5e-5 relative, beyond 1e-5.
  Comparison C = baselineComparison("numbers", "step 10 loss 1.9928\n",
                                    "step 10 loss 1.9928\n", nullptr, 0);
  Allowance Fused{ResultChange::Rounding, 1e-5};
  EXPECT_EQ(verdictOn(C, "step 10 loss 1.9927\n", Fused), "");
  EXPECT_EQ(verdictOn(C, "step 10 loss 1.9926\n", Fused),
            "the number at position 2 is '1.9926', the baseline prints "
            "'1.9928' (1.0e-04 relative, beyond the 1.0e-05 that rounding "
            "may make)");
  // A count is printed exactly: no digit of it is rounding's.
  EXPECT_NE(verdictOn(C, "step 11 loss 1.9928\n", Fused), "");
  // In exponent notation the last digit is the mantissa's.
  Comparison E =
      baselineComparison("numbers", "lr 1.25e-3\n", "lr 1.25e-3\n", nullptr, 0);
  EXPECT_EQ(verdictOn(E, "lr 1.26e-3\n", Fused), "");
  EXPECT_NE(verdictOn(E, "lr 1.27e-3\n", Fused), "");
}

TEST(ProgramTest, RoundingProbeWidensTheTolerancePerNumber) {
  Comparison C = baselineComparison("numbers", "loss 0.500000 acc 0.250000\n",
                                    "loss 0.500000 acc 0.250000\n", nullptr, 0);
  EXPECT_EQ(withRoundingProbe("{build}/train"),
            "export ATEN_CPU_CAPABILITY=default && {build}/train");
  // The probe moved the loss by 1e-4 (2e-4 relative, less one printed unit);
  // the accuracy not at all.
  ASSERT_TRUE(addRoundingProbe(C, "loss 0.500100 acc 0.250000\n", nullptr));
  ASSERT_EQ(C.Sensitivity.size(), 2u);
  EXPECT_NEAR(C.Sensitivity[0], 99e-6 / 0.5001, 1e-12);
  EXPECT_EQ(C.Sensitivity[1], 0);
  Allowance A{ResultChange::Rounding, 1e-5};
  EXPECT_NEAR(allowedRelative(C, 0, A.Tolerance), ProbeFactor * 99e-6 / 0.5001,
              1e-12);
  EXPECT_EQ(allowedRelative(C, 1, A.Tolerance), 1e-5);
  EXPECT_EQ(verdictOn(C, "loss 0.500900 acc 0.250000\n", A), "");
  EXPECT_NE(verdictOn(C, "loss 0.502000 acc 0.250000\n", A), "");
  EXPECT_NE(verdictOn(C, "loss 0.500000 acc 0.250100\n", A), "");
  // What may not change stays exact, probe or not.
  EXPECT_NE(verdictOn(C, "loss 0.500001 acc 0.250000\n", {}), "");
}

TEST(ProgramTest, RoundingProbeThatFlipsOneDigitMovedNothing) {
  Comparison C = baselineComparison("numbers", "loss 1.9928\n", "loss 1.9928\n",
                                    nullptr, 0);
  ASSERT_TRUE(addRoundingProbe(C, "loss 1.9927\n", nullptr));
  EXPECT_EQ(C.Sensitivity, std::vector<double>{0});
  // Another count, or a comparison of lines: no probe.
  Comparison Again = C;
  Again.Sensitivity.clear();
  EXPECT_FALSE(addRoundingProbe(Again, "loss 1.9927 1\n", nullptr));
  EXPECT_TRUE(Again.Sensitivity.empty());
  Comparison Lines =
      baselineComparison("exact", "loss 1\n", "loss 1\n", nullptr, 0);
  EXPECT_FALSE(addRoundingProbe(Lines, "loss 1\n", nullptr));
}

TEST(ProgramTest, RandomDrawsAreReportedNotJudged) {
  // The time (unstable) is left out of both the check and the size.
  Comparison C = baselineComparison(
      "numbers", "step 0 loss 1.4512\nstep 2 loss 1.4789\ntime 31\n",
      "step 0 loss 1.4512\nstep 2 loss 1.4789\ntime 35\n", nullptr, 0);
  Allowance Draws{ResultChange::RandomDraws, 1e-4};
  std::string Other = "step 0 loss 1.5020\nstep 2 loss 1.4790\ntime 99\n";
  EXPECT_EQ(verdictOn(C, Other, Draws), "");
  std::optional<ExpectedDifference> E = largestDifference(C, Other, nullptr);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Largest.Position, 2);
  EXPECT_EQ(E->Largest.Baseline, "1.4512");
  EXPECT_EQ(E->Largest.Variant, "1.5020");
  ASSERT_TRUE(E->Relative);
  EXPECT_NEAR(*E->Relative, 0.0508 / 1.502, 1e-9);
  EXPECT_FALSE(largestDifference(C,
                                 "step 0 loss 1.4512\nstep 2 loss 1.47890\n"
                                 "time 1\n",
                                 nullptr));
  // Beyond other draws: a number missing, or a training that diverged.
  EXPECT_EQ(verdictOn(C, "step 0 loss 1.5020\nstep 2 loss 1.4790\n", Draws),
            "the number at position 5 is '(missing)', the baseline prints "
            "'31' (more than other random draws explain: another count of "
            "numbers)");
  EXPECT_EQ(verdictOn(C, "step 0 loss 1.5\nstep 2 loss nan\ntime 9\n", Draws),
            "the number at position 4 is 'nan', the baseline prints '1.4789' "
            "(more than other random draws explain: not finite)");
  // Lines: the first that differs, with no relative size.
  Comparison Lines =
      baselineComparison("exact", "a\nb\n", "a\nb\n", nullptr, 0);
  EXPECT_EQ(verdictOn(Lines, "a\nc\n", Draws), "");
  E = largestDifference(Lines, "a\nc\n", nullptr);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->Largest.Position, 2);
  EXPECT_FALSE(E->Relative);
}

// The shell's `times`: its own line, then its children's user and system.
TEST(ProgramTest, CpuTimeFromTheShellsTimes) {
  std::filesystem::path File = std::filesystem::temp_directory_path() /
                               ("times-" + std::to_string(::getpid()));
  std::ofstream(File) << "0m0.010000s 0m0.000000s\n1m2.500000s 0m0.250000s\n";
  EXPECT_DOUBLE_EQ(childCpuMicroseconds(File.string()), 62.75e6);
  EXPECT_FALSE(std::filesystem::exists(File)) << "read once, then removed";
  EXPECT_EQ(childCpuMicroseconds(File.string()), 0) << "missing: unknown";
  std::ofstream(File) << "0m0.01s 0m0.00s\n";
  EXPECT_EQ(childCpuMicroseconds(File.string()), 0) << "no children's line";
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
