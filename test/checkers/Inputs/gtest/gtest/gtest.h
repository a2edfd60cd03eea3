#pragma once
// The part of GoogleTest's TEST macro that matters to the checks: the body
// becomes TestBody() of a class derived from testing::Test.
namespace testing {
class Test {
public:
  virtual ~Test() = default;
  virtual void TestBody() = 0;
};
} // namespace testing

#define TEST(Suite, Name)                                                      \
  class Suite##_##Name##_Test : public ::testing::Test {                       \
    void TestBody() override;                                                  \
  };                                                                           \
  void Suite##_##Name##_Test::TestBody()
