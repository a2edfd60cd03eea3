//===--- FixCheckTest.cpp - libtorch-tidy ---------------------------------===//
//
// The bisection of the fix-it safety net (support/FixCheck.h) on made-up
// "compilers": which fixes it drops, that the rest compile together, and
// how many parses it takes.
//
//===----------------------------------------------------------------------===//

#include "support/FixCheck.h"
#include "gtest/gtest.h"
#include <set>

using namespace torchtidy;

namespace {

/// A compiler that fails on any set holding one of \p Bad, and counts its
/// parses.
struct BadFixes {
  std::set<size_t> Bad;
  unsigned Parses = 0;

  std::optional<std::string> operator()(llvm::ArrayRef<size_t> Set) {
    ++Parses;
    for (size_t I : Set)
      if (Bad.count(I))
        return "error in fix " + std::to_string(I);
    return std::nullopt;
  }
};

std::vector<size_t> indicesOf(const std::vector<UnsafeFix> &Dropped) {
  std::vector<size_t> Out;
  for (const UnsafeFix &U : Dropped)
    Out.push_back(U.Index);
  return Out;
}

TEST(FixCheckTest, AllCompileInOneParse) {
  BadFixes Compiler;
  EXPECT_TRUE(findBreakingFixes(12, std::ref(Compiler)).empty());
  EXPECT_EQ(Compiler.Parses, 1u);
}

TEST(FixCheckTest, NoFixesNoParse) {
  BadFixes Compiler;
  EXPECT_TRUE(findBreakingFixes(0, std::ref(Compiler)).empty());
  EXPECT_EQ(Compiler.Parses, 0u);
}

TEST(FixCheckTest, OneBadFixAmongManyIsFoundByBisection) {
  BadFixes Compiler{{5}};
  std::vector<UnsafeFix> Dropped = findBreakingFixes(16, std::ref(Compiler));
  ASSERT_EQ(indicesOf(Dropped), std::vector<size_t>{5});
  EXPECT_EQ(Dropped[0].Error, "error in fix 5");
  // All, then log2(16) = 4 prefixes, then the rest after it.
  EXPECT_LE(Compiler.Parses, 6u);
}

TEST(FixCheckTest, SeveralBadFixesAreEachDropped) {
  BadFixes Compiler{{0, 7, 8, 15}};
  EXPECT_EQ(indicesOf(findBreakingFixes(16, std::ref(Compiler))),
            (std::vector<size_t>{0, 7, 8, 15}));
}

TEST(FixCheckTest, EveryFixBad) {
  BadFixes Compiler{{0, 1, 2}};
  EXPECT_EQ(indicesOf(findBreakingFixes(3, std::ref(Compiler))),
            (std::vector<size_t>{0, 1, 2}));
}

TEST(FixCheckTest, FixesThatBreakOnlyTogetherLoseTheLaterOne) {
  // Each compiles alone; 2 and 5 together do not (say, both declare one
  // name). The later is dropped and the rest, 2 included, compile.
  unsigned Parses = 0;
  auto Compiler = [&](llvm::ArrayRef<size_t> Set) -> std::optional<std::string> {
    ++Parses;
    bool Two = llvm::is_contained(Set, 2u), Five = llvm::is_contained(Set, 5u);
    if (Two && Five)
      return std::string("redefinition");
    return std::nullopt;
  };
  std::vector<UnsafeFix> Dropped = findBreakingFixes(8, Compiler);
  EXPECT_EQ(indicesOf(Dropped), std::vector<size_t>{5});
  std::vector<size_t> Kept;
  for (size_t I = 0; I < 8; ++I)
    if (I != 5)
      Kept.push_back(I);
  EXPECT_FALSE(Compiler(Kept));
}

TEST(FixCheckTest, UnsafeNoteRoundTrips) {
  clang::tooling::Diagnostic D;
  D.DiagnosticName = "torch-unfused-pointwise";
  D.Message.FilePath = "/src/model.cpp";
  D.Message.FileOffset = 40;
  EXPECT_FALSE(unsafeFixError(D));
  markUnsafe(D, "model.cpp:3:10: error: use of undeclared identifier 'G'");
  ASSERT_EQ(D.Notes.size(), 1u);
  EXPECT_EQ(D.Notes[0].FilePath, "/src/model.cpp");
  EXPECT_EQ(D.Notes[0].FileOffset, 40u);
  EXPECT_EQ(unsafeFixError(D),
            "model.cpp:3:10: error: use of undeclared identifier 'G'");
}

} // namespace
