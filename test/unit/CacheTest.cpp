//===--- CacheTest.cpp - libtorch-tidy ------------------------------------===//
//
// The result cache's pure parts: byte sizes (--cache-max-size and
// $LIBTORCH_TIDY_CACHE_MAX_SIZE), the dependency lines of a stored result,
// and the key a result is stored under.
//
//===----------------------------------------------------------------------===//

#include "cache/AnalysisCache.h"
#include "cache/AutoPch.h"
#include "cache/CacheTrim.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>
#include <cstdlib>
#include <optional>
#include <string>

namespace torchtidy {
namespace {

namespace fs = llvm::sys::fs;

uint64_t sizeOf(llvm::StringRef Text) {
  llvm::Expected<uint64_t> Size = parseByteSize(Text);
  EXPECT_TRUE(static_cast<bool>(Size)) << Text.str();
  if (!Size) {
    llvm::consumeError(Size.takeError());
    return ~uint64_t(0);
  }
  return *Size;
}

std::string errorOf(llvm::StringRef Text) {
  llvm::Expected<uint64_t> Size = parseByteSize(Text);
  if (Size)
    return "";
  return llvm::toString(Size.takeError());
}

TEST(ByteSize, PlainNumbersAreBytes) {
  EXPECT_EQ(sizeOf("0"), 0u);
  EXPECT_EQ(sizeOf("1234"), 1234u);
  EXPECT_EQ(sizeOf(" 42 "), 42u);
}

TEST(ByteSize, UnitsArePowersOf1024InEitherCase) {
  EXPECT_EQ(sizeOf("64K"), uint64_t(64) << 10);
  EXPECT_EQ(sizeOf("500m"), uint64_t(500) << 20);
  EXPECT_EQ(sizeOf("5G"), uint64_t(5) << 30);
  EXPECT_EQ(sizeOf("2t"), uint64_t(2) << 40);
}

TEST(ByteSize, MalformedSizesAreErrorsNamingTheText) {
  for (llvm::StringRef Bad : {"", "G", "5X", "-1", "1.5G", "five", "5 G"})
    EXPECT_NE(errorOf(Bad), "") << Bad.str();
  EXPECT_EQ(errorOf("5X"),
            "'5X' is not a size such as 5G, 500M, or 0 for no limit");
}

TEST(ByteSize, SizesFrom2To63BytesUpAreErrors) {
  EXPECT_EQ(sizeOf("9223372036854775807"), (uint64_t(1) << 63) - 1);
  EXPECT_NE(errorOf("9223372036854775808"), "");
  EXPECT_NE(errorOf("18446744073709551616"), "");
  EXPECT_EQ(sizeOf("8388607T"), uint64_t(8388607) << 40);
  EXPECT_NE(errorOf("8388608T"), ""); // 2^63 bytes
}

/// Sets $LIBTORCH_TIDY_CACHE_MAX_SIZE for one test.
class CacheMaxSizeVariable : public ::testing::Test {
protected:
  void SetUp() override {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
  }
  void TearDown() override {
    if (Saved)
      ::setenv(Name, Saved->c_str(), 1);
    else
      ::unsetenv(Name);
  }
  static constexpr const char *Name = "LIBTORCH_TIDY_CACHE_MAX_SIZE";
  std::optional<std::string> Saved;
};

TEST_F(CacheMaxSizeVariable, UnsetOrEmptyIsTheDefault) {
  ::unsetenv(Name);
  llvm::Expected<uint64_t> Max = defaultCacheMaxBytes();
  ASSERT_TRUE(static_cast<bool>(Max));
  EXPECT_EQ(*Max, DefaultCacheMaxBytes);
  ::setenv(Name, "", 1);
  Max = defaultCacheMaxBytes();
  ASSERT_TRUE(static_cast<bool>(Max));
  EXPECT_EQ(*Max, DefaultCacheMaxBytes);
}

TEST_F(CacheMaxSizeVariable, SetIsParsed) {
  ::setenv(Name, "3M", 1);
  llvm::Expected<uint64_t> Max = defaultCacheMaxBytes();
  ASSERT_TRUE(static_cast<bool>(Max));
  EXPECT_EQ(*Max, uint64_t(3) << 20);
  ::setenv(Name, "0", 1);
  Max = defaultCacheMaxBytes();
  ASSERT_TRUE(static_cast<bool>(Max));
  EXPECT_EQ(*Max, 0u);
}

TEST_F(CacheMaxSizeVariable, MalformedIsAnError) {
  ::setenv(Name, "lots", 1);
  llvm::Expected<uint64_t> Max = defaultCacheMaxBytes();
  ASSERT_FALSE(static_cast<bool>(Max));
  EXPECT_EQ(llvm::toString(Max.takeError()),
            "'lots' is not a size such as 5G, 500M, or 0 for no limit");
}

TEST(Dependencies, RoundTrip) {
  std::vector<Dependency> Deps = {
      {"/usr/include/torch/torch.h", 123, 1700000000123456789, 42},
      {"/home/u/my project/a file.h", 0, -5, ~uint64_t(0)},
  };
  std::string Text = serializeDependencies(Deps);
  EXPECT_EQ(Text.substr(0, Text.find('\n')),
            "dep 123 1700000000123456789 42 /usr/include/torch/torch.h");
  llvm::Expected<std::vector<Dependency>> Back = parseDependencies(Text);
  ASSERT_TRUE(static_cast<bool>(Back)) << llvm::toString(Back.takeError());
  ASSERT_EQ(Back->size(), Deps.size());
  for (size_t I = 0; I < Deps.size(); ++I) {
    EXPECT_EQ((*Back)[I].Path, Deps[I].Path);
    EXPECT_EQ((*Back)[I].Size, Deps[I].Size);
    EXPECT_EQ((*Back)[I].MTime, Deps[I].MTime);
    EXPECT_EQ((*Back)[I].Hash, Deps[I].Hash);
  }
}

TEST(Dependencies, EmptyTextIsNoDependencies) {
  llvm::Expected<std::vector<Dependency>> Back = parseDependencies("");
  ASSERT_TRUE(static_cast<bool>(Back));
  EXPECT_TRUE(Back->empty());
}

TEST(Dependencies, MalformedLinesAreErrors) {
  for (llvm::StringRef Bad :
       {"dep 1 2 3\n", "dep x 2 3 /a\n", "dep 1 2 /a\n", "file 1 2 3 /a\n",
        "dep 1 2 3 /a\ngarbage\n"}) {
    llvm::Expected<std::vector<Dependency>> Back = parseDependencies(Bad);
    EXPECT_FALSE(static_cast<bool>(Back)) << Bad.str();
    if (!Back)
      llvm::consumeError(Back.takeError());
  }
}

/// A fresh directory for one test, removed after it.
class TempDir : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("libtorch-tidy-unit", Dir));
  }
  void TearDown() override { fs::remove_directories(Dir); }

  std::string write(llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    EXPECT_FALSE(EC);
    OS << Text;
    return Path.str().str();
  }

  llvm::SmallString<256> Dir;
};

using DependencyFiles = TempDir;

TEST_F(DependencyFiles, DescribedFileIsUnchangedUntilItsTextChanges) {
  std::string Path = write("a.h", "int a;\n");
  llvm::Expected<Dependency> D = describeDependency(Path);
  ASSERT_TRUE(static_cast<bool>(D)) << llvm::toString(D.takeError());
  EXPECT_EQ(D->Path, Path);
  EXPECT_EQ(D->Size, 7u);
  EXPECT_TRUE(isUnchanged(*D));
  // Touched, same text: still unchanged (the hash decides).
  Dependency Touched = *D;
  Touched.MTime -= 1000;
  EXPECT_TRUE(isUnchanged(Touched));
  write("a.h", "int b;\n");
  Dependency Old = *D;
  Old.MTime -= 1000; // as if the rewrite came later than the description
  EXPECT_FALSE(isUnchanged(Old));
  fs::remove(Path);
  EXPECT_FALSE(isUnchanged(*D));
}

TEST_F(DependencyFiles, MissingFileIsAnError) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, "missing.h");
  llvm::Expected<Dependency> D = describeDependency(Path);
  ASSERT_FALSE(static_cast<bool>(D));
  EXPECT_NE(llvm::toString(D.takeError()).find("missing.h"), std::string::npos);
}

TEST_F(DependencyFiles, HeaderListAddsEachFileOnce) {
  std::string A = write("a.h", "a"), B = write("b.h", "bb");
  std::string List = write("list", ". " + A + "\n.. " + B + "\n. " + A + "\n");
  std::vector<Dependency> Deps;
  ASSERT_FALSE(llvm::errorToBool(readHeaderList(List, Deps)));
  ASSERT_EQ(Deps.size(), 2u);
  EXPECT_EQ(Deps[0].Path, A);
  EXPECT_EQ(Deps[1].Path, B);
  std::string Broken = write("broken", ". " + Dir.str().str() + "/gone.h\n");
  llvm::Error E = readHeaderList(Broken, Deps);
  EXPECT_TRUE(static_cast<bool>(E));
  llvm::consumeError(std::move(E));
}

using ResultKey = TempDir;

CacheOptions optionsFor(llvm::StringRef Source) {
  CacheOptions O;
  O.Self = "/nonexistent/libtorch-tidy";
  O.Source = Source.str();
  O.Args = {"--checks=-*,torch-*", Source.str(), "--", "-std=c++17"};
  return O;
}

TEST_F(ResultKey, SameInputsSameKey) {
  std::string Source = write("f.cpp", "int main() {}\n");
  CacheOptions O = optionsFor(Source);
  EXPECT_EQ(resultKey(O, nullptr), resultKey(O, nullptr));
  EXPECT_EQ(resultKey(O, nullptr).size(), 64u);
}

TEST_F(ResultKey, AnArgumentChangesIt) {
  std::string Source = write("f.cpp", "int main() {}\n");
  CacheOptions O = optionsFor(Source);
  std::string Key = resultKey(O, nullptr);
  CacheOptions Other = O;
  Other.Args.back() = "-std=c++20";
  EXPECT_NE(resultKey(Other, nullptr), Key);
  Other = O;
  Other.Payloads = true;
  EXPECT_NE(resultKey(Other, nullptr), Key);
  Other = O;
  Other.Pch = false;
  EXPECT_NE(resultKey(Other, nullptr), Key);
  // The exported fixes file is a new temporary name every run.
  Other = O;
  Other.Args.insert(Other.Args.begin(), "--export-fixes=/tmp/x-123.yaml");
  EXPECT_EQ(resultKey(Other, nullptr), Key);
}

TEST_F(ResultKey, TheCompileCommandChangesIt) {
  std::string Source = write("f.cpp", "int main() {}\n");
  CacheOptions O = optionsFor(Source);
  SourceCommand Cmd{Dir.str().str(), {"clang++", "-std=c++17", Source}};
  std::string Key = resultKey(O, &Cmd);
  EXPECT_NE(Key, resultKey(O, nullptr));
  Cmd.CommandLine.insert(Cmd.CommandLine.begin() + 1, "-DNDEBUG");
  EXPECT_NE(resultKey(O, &Cmd), Key);
}

TEST_F(ResultKey, AConfigurationFileChangesIt) {
  std::string Source = write("f.cpp", "int main() {}\n");
  CacheOptions O = optionsFor(Source);
  std::string Without = resultKey(O, nullptr);
  write(".clang-tidy", "Checks: '-*,torch-*'\n");
  std::string With = resultKey(O, nullptr);
  EXPECT_NE(With, Without);
  write(".clang-tidy", "Checks: '-*,torch-zero-grad'\n");
  EXPECT_NE(resultKey(O, nullptr), With);
}

TEST(AutoPchPrefix, LeadingAngledIncludesWithLibTorch) {
  EXPECT_EQ(leadingLibTorchIncludes("// head\n#pragma once\n/* a\n b */\n"
                                    "#include <vector>\n"
                                    "#include <torch/torch.h> // all\n"
                                    "#include \"mine.h\"\n"
                                    "#include <ATen/ATen.h>\n"),
            "#include <torch/torch.h>\n");
  // The standard library before LibTorch is left to the file; any other
  // header is precompiled with it, in order.
  EXPECT_EQ(
      leadingLibTorchIncludes("#include <cstdio>\n#include <Eigen/Dense>\n"
                              "#include <torch/torch.h>\n"),
      "#include <Eigen/Dense>\n#include <torch/torch.h>\n");
  EXPECT_EQ(leadingLibTorchIncludes("/* x */ #include <c10/core/Device.h>\n"),
            "#include <c10/core/Device.h>\n");
}

TEST(AutoPchPrefix, NoneWithoutLibTorchOrAfterCode) {
  EXPECT_EQ(leadingLibTorchIncludes("#include <vector>\n"), "");
  EXPECT_EQ(leadingLibTorchIncludes("int x;\n#include <torch/torch.h>\n"), "");
  EXPECT_EQ(leadingLibTorchIncludes("#include <torch/torch.h> int x;\n"), "");
}

/// A project in a temporary folder: files written there, a compile command
/// with its -I folders.
class PrefixProject : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("prefix-test", Root));
  }
  void TearDown() override { fs::remove_directories(Root); }

  void file(llvm::StringRef Rel, llvm::StringRef Text) {
    llvm::SmallString<256> Path(Root);
    llvm::sys::path::append(Path, Rel);
    fs::create_directories(llvm::sys::path::parent_path(Path));
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << Text;
  }

  std::string prefix(llvm::StringRef Rel,
                     std::vector<std::string> Flags = {"-Iinclude"}) {
    SourceCommand Cmd;
    Cmd.Directory = Root.str().str();
    Cmd.CommandLine = {"clang++"};
    Cmd.CommandLine.insert(Cmd.CommandLine.end(), Flags.begin(), Flags.end());
    Cmd.CommandLine.push_back(Rel.str());
    llvm::SmallString<256> Path(Root);
    llvm::sys::path::append(Path, Rel);
    return libTorchPrefixOf(Cmd, Path, readFromDisk);
  }

  llvm::SmallString<256> Root;
};

TEST_F(PrefixProject, FollowsProjectHeadersThatHoldOnlyIncludes) {
  file("include/model.h", "// Model.\n#ifndef MODEL_H\n#define MODEL_H\n"
                          "#include <vector>\n#include \"layers.h\"\n"
                          "struct Model {};\n#endif\n");
  file("include/layers.h", "#pragma once\n#include <torch/torch.h>\n");
  file("src/model.cpp", "#include \"model.h\"\n#include <iostream>\n");
  file("src/main.cpp", "#include <torch/torch.h>\n#include \"model.h\"\n");
  file("src/data.cpp", "#include <model.h>\n");
  EXPECT_EQ(prefix("src/model.cpp"), "#include <torch/torch.h>\n");
  EXPECT_EQ(prefix("src/main.cpp"), "#include <torch/torch.h>\n");
  // Angled, found in an -I folder: the project's header too.
  EXPECT_EQ(prefix("src/data.cpp"), "#include <torch/torch.h>\n");
  // Without the -I folder, model.h is not found: nothing is known to come
  // first.
  EXPECT_EQ(prefix("src/model.cpp", {}), "");
}

TEST_F(PrefixProject, StopsAtCodeOrAMacroBeforeLibTorch) {
  file("include/config.h", "#pragma once\n#define USE_GPU 1\n"
                           "#include <torch/torch.h>\n");
  file("include/guarded.h",
       "#ifndef A_H\n#define B_H\n#include <torch/torch.h>\n");
  file("a.cpp", "#include \"config.h\"\n");
  file("b.cpp", "#include \"guarded.h\"\n");
  file("c.cpp", "#include \"absent.h\"\n#include <torch/torch.h>\n");
  EXPECT_EQ(prefix("a.cpp"), "");
  EXPECT_EQ(prefix("b.cpp"), "");
  EXPECT_EQ(prefix("c.cpp"), "");
}

TEST_F(PrefixProject, QuotedLibTorchHeaderNotBesideItsIncluderIsTheAngledOne) {
  file("a.cpp", "#include \"torch/torch.h\"\n");
  EXPECT_EQ(prefix("a.cpp"), "#include <torch/torch.h>\n");
  // A copy beside the file is the project's own: followed, not assumed.
  file("torch/torch.h", "#pragma once\nint shadow;\n");
  EXPECT_EQ(prefix("a.cpp"), "");
}

} // namespace
} // namespace torchtidy
