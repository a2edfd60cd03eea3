//===--- CheckTableTest.cpp - libtorch-tidy -------------------------------===//
//
// Every row of the check table has what docs/adding-a-check.md asks for: its
// sources, its mock-header test, its docs page and its README row.
//
//===----------------------------------------------------------------------===//

#include "CheckTable.h"
#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace torchtidy {
namespace {

namespace fs = std::filesystem;

const fs::path SourceDir = LIBTORCH_TIDY_SOURCE_DIR;

std::string readFile(const fs::path &Path) {
  std::ifstream In(Path);
  std::stringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

/// "torch-zero-grad" -> "zero-grad", the stem of its test and docs files.
std::string stemOf(const CheckInfo &Info) {
  return std::string(Info.Name.substr(std::string_view("torch-").size()));
}

TEST(CheckTable, NamesAreTorchChecksAndUnique) {
  std::set<std::string_view> Names;
  for (const CheckInfo &Info : CheckTable) {
    EXPECT_EQ(Info.Name.substr(0, 6), "torch-") << Info.Name;
    EXPECT_TRUE(Names.insert(Info.Name).second) << "twice: " << Info.Name;
    EXPECT_EQ(findCheck(Info.Name), &Info);
  }
  EXPECT_EQ(findCheck("torch-no-such-check"), nullptr);
}

TEST(CheckTable, ToleranceFitsWhatTheFixMayChange) {
  // A fix that may change nothing allows no difference; one that may
  // change the rounding declares by how much.
  for (const CheckInfo &Info : CheckTable) {
    if (Info.Results == ResultChange::None)
      EXPECT_EQ(Info.Tolerance, 0) << Info.Name;
    if (Info.Results == ResultChange::Rounding)
      EXPECT_GT(Info.Tolerance, 0) << Info.Name;
  }
  EXPECT_EQ(findCheck("torch-conv-bias-before-batchnorm")->Results,
            ResultChange::RandomDraws);
  EXPECT_EQ(findCheck("torch-unfused-pointwise")->Results,
            ResultChange::Rounding);
}

TEST(CheckTable, EveryCheckHasItsSources) {
  for (const CheckInfo &Info : CheckTable) {
    std::string Class(Info.ClassName);
    EXPECT_TRUE(fs::exists(SourceDir / "checks" / (Class + ".h"))) << Class;
    std::string Source = readFile(SourceDir / "checks" / (Class + ".cpp"));
    EXPECT_NE(Source.find("TORCH_TIDY_CHECK_FACTORY(" + Class + ")"),
              std::string::npos)
        << Class << ".cpp must end with its factory";
  }
}

TEST(CheckTable, EveryCheckHasItsTestAndDocs) {
  for (const CheckInfo &Info : CheckTable) {
    EXPECT_TRUE(fs::exists(SourceDir / "test" / "checkers" /
                           (stemOf(Info) + ".cpp")))
        << Info.Name;
    EXPECT_EQ(Info.DocsPage, "docs/checks/" + stemOf(Info) + ".md");
    std::string Docs = readFile(SourceDir / std::string(Info.DocsPage));
    EXPECT_EQ(Docs.rfind("# " + std::string(Info.Name) + "\n", 0), 0u)
        << Info.DocsPage << " must start with the check's name";
  }
}

TEST(CheckTable, DescriptionIsTheDocsPagesFirstParagraph) {
  for (const CheckInfo &Info : CheckTable) {
    std::string Docs = readFile(SourceDir / std::string(Info.DocsPage));
    size_t Start = Docs.find("\n\n");
    ASSERT_NE(Start, std::string::npos) << Info.DocsPage;
    size_t End = Docs.find("\n\n", Start + 2);
    std::string Paragraph = Docs.substr(Start + 2, End - Start - 2);
    for (char &C : Paragraph)
      if (C == '\n')
        C = ' ';
    EXPECT_EQ(Paragraph, Info.Description) << Info.DocsPage;
  }
}

TEST(CheckTable, EveryCheckHasAReadmeRow) {
  std::string Readme = readFile(SourceDir / "README.md");
  for (const CheckInfo &Info : CheckTable) {
    std::string Row = "| [" + std::string(Info.Name) + "](" +
                      std::string(Info.DocsPage) + ") |";
    EXPECT_NE(Readme.find(Row), std::string::npos) << Row;
  }
}

TEST(CheckTable, ReadableNameDropsTheSuffix) {
  const CheckInfo *ZeroGrad = findCheck("torch-zero-grad");
  ASSERT_NE(ZeroGrad, nullptr);
  EXPECT_EQ(readableName(*ZeroGrad), "ZeroGrad");
}

} // namespace
} // namespace torchtidy
