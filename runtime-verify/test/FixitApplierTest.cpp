//===--- FixitApplierTest.cpp - libtorch-tidy-verify ----------------------===//
//
// The verifier's fix-it applier against what `libtorch-tidy --apply-fixits`
// (clang's replacements) was seen to do on the same edits.
//
//===----------------------------------------------------------------------===//

#include "FixitApplier.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace torchtidy;

namespace {

FixitEdit edit(unsigned Offset, unsigned Length, std::string Text) {
  return {"", Offset, Length, std::move(Text)};
}

std::string applied(const std::string &Base,
                    const std::vector<FixitEdit> &Edits) {
  ErrorOr<std::string> Out = applyEditsToText(Base, Edits);
  return Out ? *Out : "error: " + Out.error();
}

TEST(FixitApplierTest, InsertionsAtOneOffsetKeepTheirOrder) {
  EXPECT_EQ(applied("0123", {edit(2, 0, "a"), edit(2, 0, "b")}), "01ab23");
  EXPECT_EQ(applied("0123", {edit(2, 0, "b"), edit(2, 0, "a")}), "01ba23");
  // Insertions whose order does not matter are joined as well.
  EXPECT_EQ(applied("0123", {edit(2, 0, "ab"), edit(2, 0, "abab")}),
            "01ababab23");
}

TEST(FixitApplierTest, InsertionAtAReplacementsEnds) {
  // Before the replacement that starts there, whatever the order given.
  EXPECT_EQ(applied("0123456789", {edit(2, 3, "xyzuv"), edit(2, 0, "a")}),
            "01axyzuv56789");
  EXPECT_EQ(applied("0123456789", {edit(2, 0, "a"), edit(2, 3, "xyzuv")}),
            "01axyzuv56789");
  EXPECT_EQ(applied("0123456789", {edit(4, 3, "x"), edit(4, 0, "a")}),
            "0123ax789");
  // Between two replacements that touch.
  EXPECT_EQ(applied("0123456789",
                    {edit(1, 2, "x"), edit(3, 0, "a"), edit(3, 2, "y")}),
            "0xay56789");
  EXPECT_EQ(applied("0123456789", {edit(10, 0, "END")}), "0123456789END");
}

TEST(FixitApplierTest, OverlapIsOneLineError) {
  ErrorOr<std::string> Out = applyEditsToText(
      "0123456789", {edit(2, 4, "x"), edit(3, 1, "y")}, "f.cpp");
  ASSERT_FALSE(Out);
  EXPECT_EQ(Out.error(), "the fix-its conflict in 'f.cpp': the edit at "
                         "offset 3 length 1 overlaps the edit at offset 2 "
                         "length 4");
  EXPECT_EQ(Out.error().find('\n'), std::string::npos);
  // The same range with two texts, an insertion inside a replacement.
  EXPECT_FALSE(applyEditsToText("0123", {edit(1, 2, "x"), edit(1, 2, "y")}));
  EXPECT_FALSE(applyEditsToText("0123", {edit(0, 4, "x"), edit(2, 0, "y")}));
}

TEST(FixitApplierTest, OrderIndependentOverlapsMergeAsClangDoes) {
  // Overlapping deletions delete their union.
  EXPECT_EQ(applied("0123456789", {edit(2, 4, ""), edit(4, 4, "")}), "0189");
  EXPECT_EQ(applied("0123456789", {edit(2, 4, ""), edit(3, 1, "")}),
            "016789");
  // A deletion inside a replacement: the replacement.
  EXPECT_EQ(applied("0123456789", {edit(2, 4, "x"), edit(3, 1, "")}),
            "01x6789");
}

TEST(FixitApplierTest, DuplicatesCountOnce) {
  EXPECT_EQ(applied("0123", {edit(2, 0, "a"), edit(2, 0, "a")}), "01a23");
  EXPECT_EQ(applied("0123", {edit(1, 2, "x"), edit(1, 2, "x")}), "0x3");
  EXPECT_EQ(applied("0123", {edit(2, 0, "a"), edit(2, 0, "b"),
                             edit(2, 0, "a")}),
            "01ab23");
}

TEST(FixitApplierTest, OffsetsCountBytesOfUtf8) {
  // "é" and "→" are two and three bytes: offsets are never characters.
  std::string Base = "a\xC3\xA9" "b\xE2\x86\x92" "c";
  EXPECT_EQ(applied(Base, {edit(3, 1, "\xCE\xBB")}),
            "a\xC3\xA9\xCE\xBB\xE2\x86\x92" "c");
  EXPECT_EQ(applied(Base, {edit(4, 3, "->"), edit(1, 0, "[")}),
            "a[\xC3\xA9" "b->c");
}

TEST(FixitApplierTest, PastTheEndIsAnError) {
  // The driver drops the insertion and crashes on the replacement.
  EXPECT_FALSE(applyEditsToText("0123", {edit(5, 0, "x")}));
  EXPECT_FALSE(applyEditsToText("0123", {edit(3, 2, "x")}));
  EXPECT_TRUE(applyEditsToText("0123", {edit(3, 1, "x")}));
}

class FixitFilesTest : public ::testing::Test {
protected:
  fs::path Dir;

  void SetUp() override {
    Dir = fs::temp_directory_path() /
          ("fixit-applier-" + std::to_string(::getpid()));
    fs::remove_all(Dir);
    fs::create_directories(Dir);
  }
  void TearDown() override { fs::remove_all(Dir); }

  std::string write(const std::string &Name, const std::string &Text) {
    std::string Path = (Dir / Name).string();
    std::ofstream(Path, std::ios::binary) << Text;
    return Path;
  }
  static std::string read(const std::string &Path) {
    std::ifstream In(Path, std::ios::binary);
    std::ostringstream S;
    S << In.rdbuf();
    return S.str();
  }
  size_t entries() const {
    return std::distance(fs::directory_iterator(Dir), fs::directory_iterator());
  }
};

TEST_F(FixitFilesTest, AppliesToEveryFileAndKeepsTheMode) {
  std::string A = write("a.cpp", "int a;\n"), B = write("b.cpp", "int b;\n");
  ::chmod(A.c_str(), 0751);
  EXPECT_FALSE(applyFixits({{A, 0, 3, "long"}, {B, 4, 0, "*"}}));
  EXPECT_EQ(read(A), "long a;\n");
  EXPECT_EQ(read(B), "int *b;\n");
  struct stat St;
  ASSERT_EQ(::stat(A.c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 07777, 0751u);
  EXPECT_EQ(entries(), 2u); // no temporary file left
}

TEST_F(FixitFilesTest, AnErrorLeavesEveryFileAlone) {
  std::string A = write("a.cpp", "int a;\n"), B = write("b.cpp", "int b;\n");
  // a.cpp alone is fine; b.cpp's edits overlap: nothing is written.
  std::optional<Failure> Error = applyFixits(
      {{A, 0, 3, "long"}, {B, 0, 5, "x"}, {B, 2, 2, "y"}});
  ASSERT_TRUE(Error);
  EXPECT_NE(Error->Message.find("conflict in '" + B + "'"), std::string::npos);
  EXPECT_EQ(read(A), "int a;\n");
  EXPECT_EQ(read(B), "int b;\n");
  // A file that cannot be read: the same.
  EXPECT_TRUE(applyFixits({{A, 0, 3, "long"}, {(Dir / "gone.cpp").string(),
                                               0, 0, "x"}}));
  EXPECT_EQ(read(A), "int a;\n");
  EXPECT_EQ(entries(), 2u);
}

TEST_F(FixitFilesTest, SymbolicLinkEditsItsTarget) {
  std::string A = write("a.cpp", "int a;\n");
  fs::create_symlink(A, Dir / "link.cpp");
  EXPECT_FALSE(applyFixits({{(Dir / "link.cpp").string(), 0, 3, "long"}}));
  EXPECT_TRUE(fs::is_symlink(Dir / "link.cpp"));
  EXPECT_EQ(read(A), "long a;\n");
}

TEST_F(FixitFilesTest, SpecReadAsTheDriverReadsIt) {
  std::string A = write("a.cpp", "0123456789");
  std::string Spec = write(
      "spec.json",
      "{\"format\": \"libtorch-tidy-fixits\", \"version\": 1, \"edits\": ["
      "{\"file\": \"" + A + "\", \"offset\": 2.0, \"length\": 1, "
      "\"replacement\": \"x\"}, 3, "
      "{\"file\": \"" + A + "\", \"offset\": 5}]}");
  std::ostringstream Err;
  EXPECT_EQ(runApplyFixits(Spec, Err), 0) << Err.str();
  EXPECT_EQ(read(A), "01x3456789");
  std::string Bad = write("bad.json", "{\"format\": \"other\"}");
  EXPECT_EQ(runApplyFixits(Bad, Err), 1);
  EXPECT_NE(Err.str().find("is not a libtorch-tidy-fixits file"),
            std::string::npos);
}

} // namespace
