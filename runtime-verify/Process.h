//===--- Process.h - libtorch-tidy-verify -----------------------*- C++ -*-===//
//
// Child processes with limits, for the compiler and for the snippet
// harnesses, which run the user's code: each runs in its own process group
// (so a kill takes its threads and children too), with a wall-clock limit,
// optionally an address-space limit, no core dumps, and its output captured.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PROCESS_H
#define LIBTORCH_TIDY_VERIFY_PROCESS_H

#include <string>
#include <vector>

namespace torchverify {

struct Limits {
  double Seconds = 60;
  /// RLIMIT_AS in MiB; 0 for none. CUDA reserves far more address space
  /// than it uses, so the verifier sets none on CUDA machines.
  long MemoryMiB = 0;
};

struct ProcessResult {
  bool Started = false;
  int ExitCode = -1; ///< when it exited
  int Signal = 0;    ///< when a signal ended it
  bool TimedOut = false;
  std::string Output; ///< stdout and stderr, at most 64 KiB of the end
  double Seconds = 0;
};

/// Runs \p Argv (Argv[0] is a path or looked up in PATH) in \p Dir.
ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const std::string &Dir, const Limits &L);

/// Kills the running child's process group; for signal handlers.
void killRunningChild();

/// A private temporary directory, removed with everything in it when the
/// object goes away.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const std::string &path() const { return Path; }
  bool ok() const { return !Path.empty(); }

private:
  std::string Path;
};

/// The path of the live TempDir, if any, for cleanup from a signal handler.
const char *liveTempDir();

} // namespace torchverify

#endif // LIBTORCH_TIDY_VERIFY_PROCESS_H
