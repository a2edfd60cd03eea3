//===--- CrashReport.h - libtorch-tidy-verify -------------------*- C++ -*-===//
//
// What the verifier says when it crashes: the signal, the faulting address,
// the caller (a call through a null pointer leaves no frame of its own, but
// its return address on the stack names the call site) and the stack, on
// stderr, as BINARY+OFFSET that `addr2line -e BINARY OFFSET` resolves. Then
// the running child is killed and the verifier dies by the same signal. A
// crash seen only on a machine without a debugger (a GPU machine lent for
// minutes) is then found from its log alone.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_CRASHREPORT_H
#define LIBTORCH_TIDY_VERIFY_CRASHREPORT_H

namespace torchtidy {

/// Installs the report for SIGSEGV, SIGBUS, SIGILL and SIGFPE. \p OnCrash,
/// when given, runs after the report and before the signal is raised
/// again; it must be async-signal-safe.
void installCrashReport(void (*OnCrash)() = nullptr);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_CRASHREPORT_H
