//===--- DiagMessageTest.cpp - libtorch-tidy ------------------------------===//
//
// A diagnostic message keeps user text out of its format string: names such
// as `bn%1%0` become arguments, constant text is escaped, and a message with
// more than ten pieces of user text still fits a diagnostic's ten arguments.
//
//===----------------------------------------------------------------------===//

#include "DiagMessage.h"
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace torchtidy {
namespace {

using clang::tidy::torch::DiagMessage;

TEST(DiagMessageTest, UserTextIsAnArgument) {
  DiagMessage M;
  M.text("cancelled by the ").arg("BatchNorm2d").text(" ").quoted("bn%1%0");
  std::vector<std::string> Args;
  EXPECT_EQ(M.format(Args), "cancelled by the %0 '%1'");
  EXPECT_EQ(Args, (std::vector<std::string>{"BatchNorm2d", "bn%1%0"}));
}

TEST(DiagMessageTest, AppendNumbersOnward) {
  DiagMessage Why;
  Why.quoted("helper").text(" is declared in a header");
  DiagMessage M;
  M.text("bias of ").arg("Conv2d").text("; no fix-it: ").append(Why);
  std::vector<std::string> Args;
  EXPECT_EQ(M.format(Args),
            "bias of %0; no fix-it: '%1' is declared in a header");
  EXPECT_EQ(Args, (std::vector<std::string>{"Conv2d", "helper"}));
}

TEST(DiagMessageTest, ConstantPercentIsEscaped) {
  DiagMessage M;
  M.text("100% of ").arg("x");
  std::vector<std::string> Args;
  EXPECT_EQ(M.format(Args), "100%% of %0");
}

TEST(DiagMessageTest, MoreThanTenArgumentsFoldIntoTheTenth) {
  DiagMessage M;
  for (int I = 0; I < 12; ++I)
    M.text(" ").arg(std::to_string(I));
  std::vector<std::string> Args;
  std::string Format = M.format(Args);
  ASSERT_EQ(Args.size(), 10u);
  EXPECT_EQ(Format, " %0 %1 %2 %3 %4 %5 %6 %7 %8 %9");
  EXPECT_EQ(Args.back(), "9 10 11");
}

TEST(DiagMessageTest, Empty) {
  EXPECT_TRUE(DiagMessage().empty());
  EXPECT_FALSE(DiagMessage().text("x").empty());
}

} // namespace
} // namespace torchtidy
