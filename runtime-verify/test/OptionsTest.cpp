//===--- OptionsTest.cpp - libtorch-tidy-verify ---------------------------===//
//
// Unit tests of the verifier's command line: what each option sets, and the
// one-line errors for what it refuses.
//
//===----------------------------------------------------------------------===//

#include "../Options.h"

#include <gtest/gtest.h>

using namespace torchtidy;

namespace {

ErrorOr<VerifyOptions> parse(std::vector<std::string> Args) {
  return parseOptions(Args);
}

} // namespace

TEST(VerifyOptionsTest, Defaults) {
  ErrorOr<VerifyOptions> O = parse({"findings.json"});
  ASSERT_TRUE(O) << O.error();
  EXPECT_EQ(O->Findings, "findings.json");
  EXPECT_EQ(O->TimeCap, 10);
  EXPECT_EQ(O->Timeout, 120);
  EXPECT_EQ(O->MemoryMiB, 8192);
  EXPECT_GE(O->MaxTasks, 68);
  EXPECT_FALSE(O->NoCache || O->NoSandbox || O->MeasureOnCpu || O->Help ||
               O->ReferencesOnly);
}

TEST(VerifyOptionsTest, EveryOption) {
  ErrorOr<VerifyOptions> O = parse(
      {"--json", "r.json", "--html", "r.html", "--merge-into", "m.sarif",
       "--torch-dir", "/t", "--cxx", "g++", "--cache-dir", "c", "--time-cap",
       "2.5", "--timeout", "30", "--memory-limit", "0", "--max-processes", "9",
       "--shape", "x=4x8", "--value", "n=3", "--no-cache", "--no-sandbox",
       "--measure-on-cpu", "--references-only", "f.json"});
  ASSERT_TRUE(O) << O.error();
  EXPECT_EQ(O->Json, "r.json");
  EXPECT_EQ(O->Html, "r.html");
  EXPECT_EQ(O->MergeInto, "m.sarif");
  EXPECT_EQ(O->TorchDir, "/t");
  EXPECT_EQ(O->Cxx, "g++");
  EXPECT_EQ(O->CacheDir, "c");
  EXPECT_EQ(O->TimeCap, 2.5);
  EXPECT_EQ(O->Timeout, 30);
  EXPECT_EQ(O->MemoryMiB, 0);
  EXPECT_EQ(O->MaxTasks, 9);
  EXPECT_EQ(O->Config.Tensors.at("x").Sizes, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(O->Config.Values.at("n"), "3");
  EXPECT_TRUE(O->NoCache && O->NoSandbox && O->MeasureOnCpu &&
              O->ReferencesOnly);
  EXPECT_EQ(O->Findings, "f.json");
}

TEST(VerifyOptionsTest, Help) {
  ErrorOr<VerifyOptions> O = parse({"--help", "--bogus"});
  ASSERT_TRUE(O);
  EXPECT_TRUE(O->Help);
  EXPECT_TRUE(parse({"-h"})->Help);
  // An error before it still counts.
  EXPECT_FALSE(parse({"--bogus", "--help"}));
}

TEST(VerifyOptionsTest, Errors) {
  EXPECT_EQ(parse({}).error(), usage());
  EXPECT_EQ(parse({"f.json", "--bogus"}).error(),
            std::string("unknown option --bogus\n") + usage());
  EXPECT_EQ(parse({"a.json", "b.json"}).error(),
            "one findings file at a time");
  EXPECT_EQ(parse({"f.json", "--json"}).error(), "--json needs a value");
  for (const char *Bad : {"0", "-1", "x", "3s", ""})
    EXPECT_EQ(parse({"f.json", "--time-cap", Bad}).error(),
              "--time-cap needs a positive number")
        << Bad;
  EXPECT_EQ(parse({"f.json", "--max-processes", "0.5"}).error(),
            "--max-processes needs a positive number");
  EXPECT_EQ(parse({"f.json", "--memory-limit", "-1"}).error(),
            "--memory-limit needs a positive number");
  EXPECT_EQ(parse({"f.json", "--references-only", "--project", "b", "--run",
                   "x"})
                .error(),
            "--references-only measures reference benchmarks, not the "
            "program of --project");
  EXPECT_EQ(parse({"f.json", "--shape", "x=4,8"}).error(),
            "--shape 'x=4,8': expected NAME=DIMS like x=16x3x32x32 or "
            "labels=16:kLong");
}
