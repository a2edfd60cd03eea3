//===--- CommandLineTest.cpp - libtorch-tidy ------------------------------===//
//
// The driver's command-line model: our options parsed once and taken out of
// clang-tidy's arguments, and the facts of clang-tidy's options the driver
// reads (--fix=false is no fix, --verify-config and --help-hidden analyze
// nothing, -j in all its spellings).
//
//===----------------------------------------------------------------------===//

#include "cli/CommandLine.h"
#include "cache/AnalysisCache.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

namespace torchtidy {
namespace {

CommandLine parse(std::vector<const char *> Args) {
  Args.insert(Args.begin(), "libtorch-tidy");
  llvm::Expected<CommandLine> CL = parseCommandLine(Args);
  EXPECT_TRUE(static_cast<bool>(CL)) << llvm::toString(CL.takeError());
  return CL ? std::move(*CL) : CommandLine();
}

/// The message and exit code of the UsageError \p Args gets.
std::pair<std::string, int> refusal(std::vector<const char *> Args) {
  Args.insert(Args.begin(), "libtorch-tidy");
  llvm::Expected<CommandLine> CL = parseCommandLine(Args);
  if (CL)
    return {"", 0};
  std::pair<std::string, int> Result;
  llvm::handleAllErrors(CL.takeError(), [&](const UsageError &E) {
    Result = {E.message(), E.exitCode()};
  });
  return Result;
}

using Strings = std::vector<std::string>;

TEST(CommandLineTest, OursAreTakenOutOfClangTidysArguments) {
  CommandLine CL =
      parse({"--export-findings=f.json", "--checks=-*,torch-*", "--no-cache",
             "-export-sarif", "s.sarif", "--sarif-root=.", "a.cpp",
             "--cache-dir", "/c", "--verify-html=v.html", "--", "-DX"});
  EXPECT_EQ(CL.Torch.Findings, "f.json");
  EXPECT_EQ(CL.Torch.Sarif, "s.sarif");
  EXPECT_EQ(CL.Torch.SarifRoot, ".");
  EXPECT_FALSE(CL.Torch.Cache);
  EXPECT_TRUE(CL.Torch.Pch);
  EXPECT_EQ(CL.Torch.CacheDir, "/c");
  EXPECT_TRUE(CL.Torch.Verify);
  EXPECT_EQ(CL.Torch.VerifyHtml, "v.html");
  EXPECT_EQ(CL.clangTidyArgs(),
            (Strings{"--checks=-*,torch-*", "a.cpp", "--", "-DX"}));
  EXPECT_EQ(CL.Sources, Strings{"a.cpp"});
  EXPECT_EQ(CL.CompilerArgs, Strings{"-DX"});
  EXPECT_EQ(CL.Checks, "-*,torch-*");
}

TEST(CommandLineTest, AfterDashDashNothingIsOurs) {
  CommandLine CL = parse({"a.cpp", "--", "--no-cache", "-j4"});
  EXPECT_TRUE(CL.Torch.Cache);
  EXPECT_EQ(CL.Torch.Jobs, 0u);
  EXPECT_EQ(CL.CompilerArgs, (Strings{"--no-cache", "-j4"}));
  EXPECT_EQ(CL.FixedArgs, (Strings{"--no-cache", "-j4"}));
}

TEST(CommandLineTest, ExtraArgsKeepTheirSide) {
  CommandLine CL = parse({"--extra-arg-before", "-DA", "-extra-arg=-DB",
                          "a.cpp"});
  EXPECT_EQ(CL.ExtraArgsBefore, Strings{"-DA"});
  EXPECT_EQ(CL.ExtraArgs, Strings{"-DB"});
  CL.addCompilerArgs({"-std=c++17"});
  EXPECT_EQ(CL.FixedArgs, Strings{"-std=c++17"});
}

TEST(CommandLineTest, FixFalseIsNoFix) {
  EXPECT_TRUE(parse({"--fix", "a.cpp"}).Fix);
  EXPECT_TRUE(parse({"-fix-errors", "a.cpp"}).Fix);
  EXPECT_TRUE(parse({"--fix-notes=true", "a.cpp"}).Fix);
  EXPECT_FALSE(parse({"--fix=false", "a.cpp"}).Fix);
  EXPECT_FALSE(parse({"--fix=0", "--fix-errors=false", "a.cpp"}).Fix);
  // A file analyzed and not fixed goes through the result cache.
  EXPECT_TRUE(isCacheable(parse({"--fix=false", "a.cpp"})));
  EXPECT_FALSE(isCacheable(parse({"--fix", "a.cpp"})));
}

TEST(CommandLineTest, Jobs) {
  for (std::vector<const char *> Args :
       {std::vector<const char *>{"-j", "3"}, {"-j3"}, {"--jobs=3"},
        {"--jobs", "3"}, {"-j=3"}}) {
    Args.insert(Args.end(), {"-p", "build"});
    CommandLine CL = parse(Args);
    EXPECT_EQ(CL.Torch.Jobs, 3u);
    EXPECT_EQ(CL.clangTidyArgs(), (Strings{"-p", "build"}));
    EXPECT_TRUE(CL.isProjectRun());
    EXPECT_FALSE(static_cast<bool>(checkUsage(CL)));
  }
  std::pair<std::string, int> Bad = {"-j needs a positive number of jobs", 2};
  EXPECT_EQ(refusal({"-j", "0", "-p", "build"}), Bad);
  EXPECT_EQ(refusal({"-j", "x", "-p", "build"}), Bad);
  EXPECT_EQ(refusal({"-jx", "-p", "build"}), Bad);
  EXPECT_EQ(refusal({"--jobs=", "-p", "build"}), Bad);
  EXPECT_EQ(refusal({"-p", "build", "-j"}), Bad);
}

TEST(CommandLineTest, JobsWithoutAWholeProjectRun) {
  for (const CommandLine &CL :
       {parse({"-j", "2", "a.cpp", "--"}), parse({"-j2", "-p", "b", "a.cpp"}),
        parse({"--fail-on-findings", "-p", "b", "--", "-DX"}),
        parse({"-j2", "-p", "b", "--list-checks"})}) {
    EXPECT_FALSE(CL.isProjectRun());
    llvm::Error E = checkUsage(CL);
    ASSERT_TRUE(static_cast<bool>(E));
    int Code = 0;
    llvm::handleAllErrors(std::move(E), [&](const UsageError &U) {
      Code = U.exitCode();
    });
    EXPECT_EQ(Code, 2);
  }
}

TEST(CommandLineTest, MissingValues) {
  EXPECT_EQ(refusal({"a.cpp", "--export-sarif"}),
            std::make_pair(std::string("--export-sarif needs a file name"), 1));
  EXPECT_EQ(refusal({"--sarif-root=", "a.cpp"}),
            std::make_pair(std::string("--sarif-root needs a directory"), 1));
  EXPECT_EQ(refusal({"--cache-dir=", "a.cpp"}),
            std::make_pair(std::string("--cache-dir needs a directory"), 2));
}

TEST(CommandLineTest, OptionsThatAnalyzeNothing) {
  for (const char *Option :
       {"--list-checks", "--dump-config", "--verify-config", "--help",
        "--help-hidden", "--help-list", "--version", "-explain-config"}) {
    CommandLine CL = parse({Option, "-p", "build"});
    EXPECT_FALSE(CL.Analyzes) << Option;
    EXPECT_FALSE(CL.isProjectRun()) << Option;
    EXPECT_FALSE(needsDefaultFlags(CL)) << Option;
    EXPECT_FALSE(isCacheable(CL)) << Option;
  }
}

TEST(CommandLineTest, DefaultFlagsOnlyWithoutADatabase) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("cl-test", Dir));
  std::string File = (Dir + "/a.cpp").str();
  {
    std::error_code EC;
    llvm::raw_fd_ostream(File, EC) << "int x;\n";
  }
  EXPECT_TRUE(needsDefaultFlags(parse({File.c_str()})));
  EXPECT_FALSE(needsDefaultFlags(parse({File.c_str(), "--", "-DX"})));
  EXPECT_FALSE(needsDefaultFlags(parse({"-p", "build", File.c_str()})));
  EXPECT_FALSE(needsDefaultFlags(parse({"--verify-config", File.c_str()})));
  EXPECT_FALSE(needsDefaultFlags(parse({"--help-hidden", File.c_str()})));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(CommandLineTest, BuildPathAndProjectRun) {
  CommandLine CL = parse({"--checks=-*", "-p", "build", "--fix"});
  EXPECT_TRUE(CL.isProjectRun());
  EXPECT_EQ(CL.BuildPath, "build");
  EXPECT_EQ(CL.clangTidyArgs(/*WithBuildPath=*/false),
            (Strings{"--checks=-*", "--fix"}));
  EXPECT_EQ(parse({"-p=b"}).BuildPath, "b");
  EXPECT_FALSE(parse({"-p", "b", "x.cpp"}).isProjectRun());
  EXPECT_FALSE(parse({"-p", "b", "--", "-DX"}).isProjectRun());
  // -p without its value is clang-tidy's error to report.
  EXPECT_FALSE(parse({"--checks=-*", "-p"}).BuildPath);
}

TEST(CommandLineTest, ClangTidyFacts) {
  CommandLine CL = parse({"--config-file", "c.yaml", "--export-fixes", "f.yaml",
                          "--use-color=false", "--extra-arg=-DY", "a.cpp"});
  EXPECT_EQ(CL.ConfigFile, "c.yaml");
  EXPECT_EQ(CL.ExportFixes, "f.yaml");
  EXPECT_TRUE(CL.UseColor);
  EXPECT_EQ(CL.CompilerArgs, Strings{"-DY"});
  EXPECT_EQ(CL.ExtraArgs, Strings{"-DY"});
  EXPECT_TRUE(CL.ExtraArgsBefore.empty());
  EXPECT_TRUE(CL.FixedArgs.empty());
  EXPECT_EQ(CL.Sources, Strings{"a.cpp"});
  EXPECT_EQ(parse({"--config={}", "a.cpp"}).Config, "{}");
  EXPECT_FALSE(isCacheable(parse({"--enable-check-profile", "a.cpp"})));
  EXPECT_FALSE(isCacheable(parse({"--no-cache", "--no-pch", "a.cpp"})));
  EXPECT_FALSE(isCacheable(parse({"a.cpp", "b.cpp"})));
}

TEST(CommandLineTest, DroppedSourcesAndAddedFlags) {
  CommandLine CL = parse({"a.cpp", "--checks=x", "b.cpp"});
  CL.dropSources({"a.cpp"});
  EXPECT_EQ(CL.Sources, Strings{"b.cpp"});
  CL.addCompilerArgs({"-std=c++17"});
  EXPECT_TRUE(CL.DashDash);
  EXPECT_EQ(CL.clangTidyArgs(),
            (Strings{"--checks=x", "b.cpp", "--", "-std=c++17"}));
}

TEST(CommandLineTest, ChildArgumentsPassUnread) {
  CommandLine CL = parse({ChildFlag.data(), "--payloads=p.json", "--fix",
                          "--no-cache", "a.cpp"});
  EXPECT_TRUE(CL.Child);
  EXPECT_EQ(CL.PayloadFile, "p.json");
  EXPECT_EQ(CL.clangTidyArgs(), (Strings{"--fix", "--no-cache", "a.cpp"}));
  EXPECT_TRUE(parse({ChildFlag.data(), "a.cpp"}).PayloadFile.empty());
}

TEST(CommandLineTest, HelpListsEveryOption) {
  std::string Help = torchOptionsHelp();
  for (const char *Name :
       {"--export-findings=FILE", "--export-sarif=FILE", "--sarif-root=DIR",
        "--jobs=N", "--fail-on-findings", "--no-cache", "--no-pch",
        "--cache-explain", "--cache-max-size=SIZE", "--cache-dir=DIR",
        "--verify ", "--verify-html=FILE", "--verify-json=FILE"})
    EXPECT_NE(Help.find(Name), std::string::npos) << Name;
}

} // namespace
} // namespace torchtidy
