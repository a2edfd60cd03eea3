//===--- Process.h - libtorch-tidy-verify -----------------------*- C++ -*-===//
//
// Child processes with limits, for the compiler and for the snippet
// harnesses, which run the user's code: each runs in its own session and
// process group (so a kill takes its threads and children too), with a
// wall-clock limit, optionally address-space and process-count limits, no
// core dumps, stdin from /dev/null, its output captured, and killed when the
// verifier dies (PR_SET_PDEATHSIG). Harnesses also run in a sandbox where
// the machine has one (bubblewrap, else unshare).
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PROCESS_H
#define LIBTORCH_TIDY_VERIFY_PROCESS_H

#include <string>
#include <vector>

namespace torchtidy {

/// Where harnesses run: probed once per run.
struct Sandbox {
  enum class Kind {
    None,
    /// bwrap: the filesystem read-only but for the harness's directory, no
    /// network, own PID/IPC namespaces, no capabilities.
    Bubblewrap,
    /// unshare: own network and PID namespaces only; files stay writable.
    Unshare
  };
  Kind K = Kind::None;
  std::string Program;  ///< bwrap or unshare
  std::string Describe; ///< for the report: "bubblewrap", "none: why", ...
  std::string Note;     ///< one line for stderr when not Bubblewrap
  /// Paths the harness must read that the sandbox would hide (LibTorch
  /// under /tmp).
  std::vector<std::string> ReadOnly;
};

/// Finds the sandbox to use: bubblewrap when `bwrap` runs here (a probe
/// sandbox is started once), else unshare, else none. \p Disabled
/// (--no-sandbox) skips the probes. $LIBTORCH_TIDY_BWRAP and
/// $LIBTORCH_TIDY_UNSHARE name other programs.
Sandbox probeSandbox(bool Disabled);

/// For program mode's builds: unshare alone (own PID, network and IPC
/// namespaces, the files as they are), so that a verifier killed even by
/// SIGKILL takes every compiler of a build with it; Kind::None where
/// unshare does not work here.
Sandbox probeBuildNamespace();

struct Limits {
  double Seconds = 60;
  /// RLIMIT_AS in MiB; 0 for none. CUDA reserves far more address space
  /// than it uses, so the verifier sets none on CUDA machines.
  long MemoryMiB = 0;
  /// Processes and threads the child and its descendants may have at once;
  /// 0 for no limit. Reaching it stops the child (ProcessResult::TaskLimit).
  long MaxTasks = 0;
  /// Runs the child in this sandbox, with its directory writable.
  const Sandbox *Confine = nullptr;
};

struct ProcessResult {
  bool Started = false;
  int ExitCode = -1; ///< when it exited
  int Signal = 0;    ///< when a signal ended it
  bool TimedOut = false;
  bool TaskLimit = false; ///< it reached Limits::MaxTasks and was killed
  std::string Output;     ///< stdout and stderr, at most 64 KiB of the end
  double Seconds = 0;
};

/// Runs \p Argv (Argv[0] is a path or looked up in PATH) in \p Dir.
ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const std::string &Dir, const Limits &L);

/// How Limits::MaxTasks is enforced here, in words: "cgroup pids
/// controller", "RLIMIT_NPROC", or "none: why" (root is exempt from
/// RLIMIT_NPROC, so root needs a writable cgroup pids controller).
/// Probed once per process; also removes the cgroups of dead verifiers.
std::string taskLimitMechanism();

/// Started by libtorch-tidy --verify ($LIBTORCH_TIDY_PARENT names it): gets
/// SIGTERM when that process dies, even by SIGKILL, so a killed analysis
/// leaves no verifier behind. Returns false when the parent is already gone.
bool dieWithParentIfAsked();

/// Kills the running child's process group and cgroup and removes the
/// cgroup (waiting up to half a second); for signal handlers.
void killRunningChild();

/// A private temporary directory, removed with everything in it when the
/// object goes away. Its name carries the verifier's pid, so that a later
/// run can remove what a killed one left (removeStaleTempDirs).
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
  std::string Outer; ///< the live TempDir when this one was made
};

/// The path of the live TempDir, if any, for cleanup from a signal handler.
const char *liveTempDir();

/// Removes this user's temporary directories in $TMPDIR whose verifier is
/// no longer running (it was killed with SIGKILL); returns how many.
int removeStaleTempDirs();

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_PROCESS_H
