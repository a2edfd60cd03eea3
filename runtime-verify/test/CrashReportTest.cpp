//===--- CrashReportTest.cpp - libtorch-tidy-verify -----------------------===//
//
// The crash report on stderr (death tests: each crash in a child): the
// signal, the faulting address, for a call through a null pointer the
// caller as BINARY+OFFSET, the stack, the hook run, and death by the same
// signal.
//
//===----------------------------------------------------------------------===//

#include "../CrashReport.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <unistd.h>

using namespace torchtidy;

namespace {

void sayHooked() {
  const char Text[] = "hook ran\n";
  ::write(2, Text, sizeof(Text) - 1);
}

// Through a volatile pointer, so that the compiler cannot see it is null.
void (*volatile NullFunction)() = nullptr;

[[gnu::noinline]] void callThroughNull() {
  NullFunction();
  std::abort(); // not reached; keeps the call from being a tail call
}

int *volatile NullData = nullptr;

[[gnu::noinline]] void writeThroughNull() { *NullData = 1; }

} // namespace

TEST(CrashReportDeathTest, NullFunctionCallNamesItsCaller) {
  EXPECT_EXIT(
      {
        installCrashReport(sayHooked);
        callThroughNull();
      },
      testing::KilledBySignal(SIGSEGV),
      "libtorch-tidy-verify: crashed \\(signal 11, SIGSEGV\\) at address 0x0\n"
      "  instruction: 0x0\n"
      "  called from: 0x[0-9a-f]+ [^\n]*verify-crash-report-test\\+0x[0-9a-f]+"
      "[^\n]*\n"
      "  stack:\n.*hook ran\n");
}

TEST(CrashReportDeathTest, BadWriteNamesTheInstruction) {
  EXPECT_EXIT(
      {
        installCrashReport();
        writeThroughNull();
      },
      testing::KilledBySignal(SIGSEGV),
      "crashed \\(signal 11, SIGSEGV\\) at address 0x0\n"
      "  instruction: 0x[0-9a-f]+ [^\n]*verify-crash-report-test\\+0x[0-9a-f]+"
      "[^\n]*\n"
      "  stack:\n");
}
