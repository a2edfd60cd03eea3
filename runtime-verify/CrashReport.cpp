//===--- CrashReport.cpp - libtorch-tidy-verify ---------------------------===//

#include "CrashReport.h"

#include <csignal>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <execinfo.h>
#include <initializer_list>
#include <ucontext.h>
#include <unistd.h>

namespace torchtidy {
namespace {

void (*CrashHook)() = nullptr;

// Async-signal-safe output: write(2) only, no allocation.
void put(const char *Text) {
  size_t N = std::strlen(Text);
  while (N > 0) {
    ssize_t W = ::write(2, Text, N);
    if (W <= 0)
      return;
    Text += W;
    N -= static_cast<size_t>(W);
  }
}

void putHex(uintptr_t V) {
  char Buf[2 + 2 * sizeof(V) + 1];
  char *P = Buf + sizeof(Buf) - 1;
  *P = '\0';
  do {
    *--P = "0123456789abcdef"[V & 15];
    V >>= 4;
  } while (V);
  *--P = 'x';
  *--P = '0';
  put(P);
}

void putDecimal(int V) {
  char Buf[16];
  char *P = Buf + sizeof(Buf) - 1;
  *P = '\0';
  unsigned U = V < 0 ? 0u - static_cast<unsigned>(V) : V;
  do {
    *--P = static_cast<char>('0' + U % 10);
    U /= 10;
  } while (U);
  if (V < 0)
    *--P = '-';
  put(P);
}

/// "BINARY+0xOFFSET (SYMBOL)" for a code address; dladdr reads tables
/// already loaded, without allocating.
void putLocation(uintptr_t Address) {
  putHex(Address);
  Dl_info Info;
  if (Address == 0 ||
      ::dladdr(reinterpret_cast<void *>(Address), &Info) == 0 ||
      !Info.dli_fname) {
    put("\n");
    return;
  }
  put(" ");
  put(Info.dli_fname);
  put("+");
  putHex(Address - reinterpret_cast<uintptr_t>(Info.dli_fbase));
  if (Info.dli_sname) {
    put(" (");
    put(Info.dli_sname);
    put(")");
  }
  put("\n");
}

/// The program counter, stack pointer and, where the architecture keeps
/// one, the link register of the interrupted code.
struct Registers {
  uintptr_t Pc = 0, Sp = 0, Lr = 0;
};

Registers registersOf(void *Context) {
  Registers R;
  const auto *U = static_cast<const ucontext_t *>(Context);
  if (!U)
    return R;
#if defined(__x86_64__)
  R.Pc = static_cast<uintptr_t>(U->uc_mcontext.gregs[REG_RIP]);
  R.Sp = static_cast<uintptr_t>(U->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  R.Pc = static_cast<uintptr_t>(U->uc_mcontext.pc);
  R.Sp = static_cast<uintptr_t>(U->uc_mcontext.sp);
  R.Lr = static_cast<uintptr_t>(U->uc_mcontext.regs[30]);
#endif
  return R;
}

/// Where a call through a bad pointer came from: on x86-64 the return
/// address the call pushed, on top of the stack; elsewhere the link
/// register.
uintptr_t callerOf(const Registers &R) {
#if defined(__x86_64__)
  if (R.Sp != 0 && R.Sp % sizeof(uintptr_t) == 0)
    return *reinterpret_cast<const uintptr_t *>(R.Sp);
  return 0;
#else
  return R.Lr;
#endif
}

const char *signalName(int Sig) {
  switch (Sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGILL:
    return "SIGILL";
  case SIGFPE:
    return "SIGFPE";
  default:
    return "?";
  }
}

bool inLoadedCode(uintptr_t Address) {
  Dl_info Info;
  return Address != 0 &&
         ::dladdr(reinterpret_cast<void *>(Address), &Info) != 0;
}

void onCrash(int Sig, siginfo_t *Info, void *Context) {
  put("libtorch-tidy-verify: crashed (signal ");
  putDecimal(Sig);
  put(", ");
  put(signalName(Sig));
  put(") at address ");
  putHex(Info ? reinterpret_cast<uintptr_t>(Info->si_addr) : 0);
  Registers R = registersOf(Context);
  put("\n  instruction: ");
  putLocation(R.Pc);
  // A call through a null or stale pointer: the instruction is in no
  // loaded code, and the caller is the place to look.
  if (!inLoadedCode(R.Pc)) {
    put("  called from: ");
    putLocation(callerOf(R));
  }
  put("  stack:\n");
  void *Frames[64];
  int N = ::backtrace(Frames, 64);
  ::backtrace_symbols_fd(Frames, N, 2);
  if (CrashHook)
    CrashHook();
  // SA_RESETHAND restored the default action: returning re-runs the
  // faulting instruction, and a raise covers signals that would not.
  ::raise(Sig);
}

} // namespace

void installCrashReport(void (*OnCrash)()) {
  CrashHook = OnCrash;
  // backtrace() loads libgcc's unwinder on first use, which allocates:
  // never for the first time inside the handler.
  void *Warm[1];
  ::backtrace(Warm, 1);
  // Its own stack, so that a stack overflow is reported too.
  static char AltStack[64 * 1024];
  stack_t S;
  std::memset(&S, 0, sizeof(S));
  S.ss_sp = AltStack;
  S.ss_size = sizeof(AltStack);
  ::sigaltstack(&S, nullptr);
  struct sigaction A;
  std::memset(&A, 0, sizeof(A));
  A.sa_sigaction = onCrash;
  A.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
  sigemptyset(&A.sa_mask);
  for (int Sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE})
    ::sigaction(Sig, &A, nullptr);
}

} // namespace torchtidy
