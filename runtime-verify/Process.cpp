//===--- Process.cpp - libtorch-tidy-verify -------------------------------===//

#include "Process.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace torchtidy {

namespace {

std::atomic<pid_t> RunningChild{0};
char LiveTemp[4096];
char LiveCgroup[4096];

const char TempPrefix[] = "libtorch-tidy-verify.";

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string readSmallFile(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

bool writeSmallFile(const std::string &Path, const std::string &Text) {
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CLOEXEC);
  if (Fd < 0)
    return false;
  bool Ok = ::write(Fd, Text.data(), Text.size()) ==
            static_cast<ssize_t>(Text.size());
  return ::close(Fd) == 0 && Ok;
}

bool processExists(long Pid) {
  return Pid > 0 && (::kill(static_cast<pid_t>(Pid), 0) == 0 || errno == EPERM);
}

/// The pid in "PREFIX<pid>.<rest>", or 0.
long ownerPid(const std::string &Name, const std::string &Prefix) {
  if (Name.compare(0, Prefix.size(), Prefix) != 0)
    return 0;
  char *End = nullptr;
  long Pid = std::strtol(Name.c_str() + Prefix.size(), &End, 10);
  return End && *End == '.' ? Pid : 0;
}

std::string firstLine(const std::string &Text) {
  size_t B = Text.find_first_not_of(" \n");
  if (B == std::string::npos)
    return "";
  return Text.substr(B, Text.find('\n', B) - B);
}

std::string findInPath(const std::string &Name) {
  if (Name.find('/') != std::string::npos)
    return ::access(Name.c_str(), X_OK) == 0 ? Name : "";
  const char *Path = std::getenv("PATH");
  std::stringstream S(Path ? Path : "/usr/bin:/bin");
  for (std::string Dir; std::getline(S, Dir, ':');)
    if (!Dir.empty() && ::access((Dir + "/" + Name).c_str(), X_OK) == 0)
      return Dir + "/" + Name;
  return "";
}

//===--- Killing a cgroup, also from a signal handler ---------------------===//

/// SIGKILLs every process listed in \p Dir/cgroup.procs; the number
/// found. Async-signal-safe: only open, read, kill and close.
int killCgroupMembers(const char *Dir) {
  char Path[4200];
  size_t N = std::strlen(Dir);
  if (N + 13 >= sizeof(Path))
    return 0;
  std::memcpy(Path, Dir, N);
  std::memcpy(Path + N, "/cgroup.procs", 14);
  int Fd = ::open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return 0;
  int Found = 0;
  char Buf[4096];
  long Pid = 0;
  bool InNumber = false;
  for (ssize_t Got; (Got = ::read(Fd, Buf, sizeof(Buf))) > 0;)
    for (ssize_t I = 0; I < Got; ++I) {
      if (Buf[I] >= '0' && Buf[I] <= '9') {
        Pid = Pid * 10 + (Buf[I] - '0');
        InNumber = true;
      } else if (InNumber) {
        ::kill(static_cast<pid_t>(Pid), SIGKILL);
        ++Found;
        Pid = 0;
        InNumber = false;
      }
    }
  if (InNumber) {
    ::kill(static_cast<pid_t>(Pid), SIGKILL);
    ++Found;
  }
  ::close(Fd);
  return Found;
}

/// Kills what is left in \p Dir and removes it; killed processes take a
/// moment to leave, hence the retries.
void removeCgroup(const std::string &Dir) {
  for (int Try = 0; Try < 100; ++Try) {
    killCgroupMembers(Dir.c_str());
    if (::rmdir(Dir.c_str()) == 0 || errno == ENOENT)
      return;
    ::usleep(10000);
  }
}

//===--- The process-count limit ------------------------------------------===//

struct TaskLimiter {
  enum class Kind { None, Cgroup, Rlimit };
  Kind K = Kind::None;
  std::string Parent; ///< where the per-child cgroups are made
  std::string Describe;
};

/// A cgroup file system: v2, or a v1 hierarchy with the pids controller.
struct CgroupMount {
  std::string Root, Point;
  bool V2;
};

/// The cgroup mounts in /proc/self/mountinfo that can limit processes.
std::vector<CgroupMount> pidsCgroupMounts() {
  std::vector<CgroupMount> Mounts;
  std::ifstream MountInfo("/proc/self/mountinfo");
  // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - TYPE SOURCE SUPEROPTIONS
  for (std::string Line; std::getline(MountInfo, Line);) {
    std::istringstream S(Line);
    std::string Id, Parent, Dev, Root, Point;
    S >> Id >> Parent >> Dev >> Root >> Point;
    size_t Dash = Line.find(" - ");
    if (Dash == std::string::npos)
      continue;
    std::istringstream T(Line.substr(Dash + 3));
    std::string Type, Source, Super;
    T >> Type >> Source >> Super;
    if (Type == "cgroup2")
      Mounts.push_back({Root, Point, true});
    else if (Type == "cgroup" &&
             ("," + Super + ",").find(",pids,") != std::string::npos)
      Mounts.push_back({Root, Point, false});
  }
  return Mounts;
}

/// This process's cgroup paths: in the v1 pids hierarchy and in v2.
struct OwnCgroups {
  std::string V1, V2;
};

OwnCgroups ownCgroups() {
  OwnCgroups Own;
  std::ifstream Self("/proc/self/cgroup");
  // HIERARCHY:CONTROLLERS:PATH
  for (std::string Line; std::getline(Self, Line);) {
    size_t A = Line.find(':'), B = Line.find(':', A + 1);
    if (A == std::string::npos || B == std::string::npos)
      continue;
    std::string Controllers = Line.substr(A + 1, B - A - 1);
    std::string Path = Line.substr(B + 1);
    if (Line.compare(0, A, "0") == 0 && Controllers.empty())
      Own.V2 = Path;
    else if (("," + Controllers + ",").find(",pids,") != std::string::npos)
      Own.V1 = Path;
  }
  return Own;
}

/// Where the cgroup \p Path is under the mount \p M.
std::string underMount(const CgroupMount &M, std::string Path) {
  // A mount of a subtree (a container's): the path is below its root.
  if (M.Root != "/" && Path.compare(0, M.Root.size(), M.Root) == 0)
    Path = Path.substr(M.Root.size());
  while (!Path.empty() && Path.back() == '/')
    Path.pop_back();
  return M.Point + Path;
}

bool delegatesPids(const std::string &Dir) {
  std::string Control = readSmallFile(Dir + "/cgroup.subtree_control");
  return (" " + Control).find(" pids") != std::string::npos;
}

/// The cgroup directories this process is in whose children get a pids
/// controller: the v1 pids hierarchy, else its own v2 cgroup. Never a
/// cgroup above its own (the v2 root, writable to root): a child moved
/// there would leave the limits and the accounting its launcher set (a
/// machine lent by a process API keeps each session in a cgroup of its
/// own).
std::vector<std::string> pidsCgroupCandidates() {
  std::vector<CgroupMount> Mounts = pidsCgroupMounts();
  OwnCgroups Own = ownCgroups();
  std::vector<std::string> Out;
  for (const CgroupMount &M : Mounts)
    if (!M.V2 && !Own.V1.empty())
      Out.push_back(underMount(M, Own.V1));
  for (const CgroupMount &M : Mounts) {
    if (!M.V2 || Own.V2.empty())
      continue;
    std::string Dir = underMount(M, Own.V2);
    if (delegatesPids(Dir))
      Out.push_back(Dir);
  }
  return Out;
}

/// Whether a child can join a new cgroup under \p Parent with a pids limit.
bool cgroupWorks(const std::string &Parent) {
  std::string Dir =
      Parent + "/" + TempPrefix + std::to_string(::getpid()) + ".probe";
  if (::mkdir(Dir.c_str(), 0755) != 0 && errno != EEXIST)
    return false;
  bool Ok = writeSmallFile(Dir + "/pids.max", "64");
  std::string Procs = Dir + "/cgroup.procs";
  if (Ok) {
    pid_t Pid = ::fork();
    if (Pid == 0) {
      int Fd = ::open(Procs.c_str(), O_WRONLY | O_CLOEXEC);
      ::_exit(Fd >= 0 && ::write(Fd, "0", 1) == 1 ? 0 : 1);
    }
    int Status = 0;
    Ok = Pid > 0 && ::waitpid(Pid, &Status, 0) == Pid && WIFEXITED(Status) &&
         WEXITSTATUS(Status) == 0;
  }
  removeCgroup(Dir);
  return Ok;
}

/// Removes the cgroups of verifiers that were killed, with what is left in
/// them.
void removeStaleCgroups(const std::string &Parent) {
  std::error_code EC;
  for (const auto &E : fs::directory_iterator(Parent, EC)) {
    long Pid = ownerPid(E.path().filename().string(), TempPrefix);
    if (Pid && !processExists(Pid))
      removeCgroup(E.path().string());
  }
}

const TaskLimiter &taskLimiter() {
  static const TaskLimiter L = [] {
    TaskLimiter T;
    for (const std::string &Parent : pidsCgroupCandidates()) {
      removeStaleCgroups(Parent);
      if (cgroupWorks(Parent)) {
        T.K = TaskLimiter::Kind::Cgroup;
        T.Parent = Parent;
        T.Describe = "cgroup pids controller";
        return T;
      }
    }
    if (::getuid() != 0) {
      T.K = TaskLimiter::Kind::Rlimit;
      T.Describe = "RLIMIT_NPROC";
      return T;
    }
    T.Describe = "none: root is exempt from RLIMIT_NPROC and no cgroup pids "
                 "controller is writable here";
    return T;
  }();
  return L;
}

/// The tasks (processes and threads) this user runs: what RLIMIT_NPROC
/// counts. A /proc/PID/task directory has two links more than threads.
long userTasks() {
  long N = 0;
  uid_t Uid = ::getuid();
  std::error_code EC;
  for (const auto &E : fs::directory_iterator("/proc", EC)) {
    const std::string Name = E.path().filename().string();
    if (Name.empty() || Name[0] < '0' || Name[0] > '9')
      continue;
    struct stat St;
    if (::stat(E.path().c_str(), &St) != 0 || St.st_uid != Uid)
      continue;
    if (::stat((E.path() / "task").c_str(), &St) == 0 && St.st_nlink > 2)
      N += static_cast<long>(St.st_nlink) - 2;
  }
  return N;
}

/// The limit for one child: its cgroup, or its RLIMIT_NPROC.
class TaskGroup {
public:
  explicit TaskGroup(long MaxTasks) {
    if (MaxTasks <= 0)
      return;
    const TaskLimiter &L = taskLimiter();
    if (L.K == TaskLimiter::Kind::Cgroup) {
      static int Counter = 0;
      std::string Dir = L.Parent + "/" + TempPrefix +
                        std::to_string(::getpid()) + "." +
                        std::to_string(++Counter);
      if ((::mkdir(Dir.c_str(), 0755) == 0 || errno == EEXIST) &&
          writeSmallFile(Dir + "/pids.max", std::to_string(MaxTasks))) {
        Cgroup = Dir;
        Procs = Dir + "/cgroup.procs";
        std::strncpy(LiveCgroup, Dir.c_str(), sizeof(LiveCgroup) - 1);
      } else {
        Failed =
            "cannot create the cgroup " + Dir + ": " + std::strerror(errno);
        ::rmdir(Dir.c_str());
      }
    } else if (L.K == TaskLimiter::Kind::Rlimit) {
      // RLIMIT_NPROC counts all of the user's tasks: allow what runs now
      // plus the child's share.
      Rlimit = userTasks() + MaxTasks;
    }
  }
  ~TaskGroup() {
    if (Cgroup.empty())
      return;
    LiveCgroup[0] = '\0';
    removeCgroup(Cgroup);
  }
  TaskGroup(const TaskGroup &) = delete;
  TaskGroup &operator=(const TaskGroup &) = delete;

  /// Whether the child has hit the limit: a fork refused in its cgroup, or
  /// the user at RLIMIT_NPROC (checked every half second: a /proc scan).
  bool reached() {
    if (!Cgroup.empty()) {
      std::istringstream S(readSmallFile(Cgroup + "/pids.events"));
      for (std::string Key; S >> Key;) {
        long Count = 0;
        S >> Count;
        if (Key == "max" && Count > 0)
          return true;
      }
      return false;
    }
    if (Rlimit <= 0 || now() - LastScan < 0.5)
      return false;
    LastScan = now();
    return userTasks() >= Rlimit;
  }
  void killAll() {
    if (!Cgroup.empty())
      killCgroupMembers(Cgroup.c_str());
  }

  std::string Cgroup, Procs; ///< Procs: for the child to join
  long Rlimit = 0;           ///< RLIMIT_NPROC for the child; 0 for none
  std::string Failed;        ///< why the limit cannot be set up

private:
  double LastScan = 0;
};

//===--- Sandboxes --------------------------------------------------------===//

/// GPU device nodes, which bubblewrap's fresh /dev lacks.
std::vector<std::string> gpuDevices() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (const auto &E : fs::directory_iterator("/dev", EC)) {
    std::string Name = E.path().filename().string();
    if (Name.rfind("nvidia", 0) == 0 || Name == "dri" || Name == "kfd")
      Out.push_back(E.path().string());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<std::string> confine(const Sandbox &S, const std::string &Dir,
                                 const std::vector<std::string> &Argv) {
  std::vector<std::string> A;
  if (S.K == Sandbox::Kind::Bubblewrap) {
    // Order matters: later mounts go over earlier ones.
    A = {S.Program, "--ro-bind", "/", "/", "--dev", "/dev"};
    for (const std::string &D : gpuDevices())
      A.insert(A.end(), {"--dev-bind", D, D});
    A.insert(A.end(), {"--proc", "/proc", "--tmpfs", "/tmp"});
    for (const std::string &R : S.ReadOnly)
      if (R.rfind("/tmp/", 0) == 0)
        A.insert(A.end(), {"--ro-bind", R, R});
    // --new-session: no controlling terminal to push input into. The
    // kill still reaches everything: bwrap's own init runs in the verifier's
    // process group, and the PID namespace ends with it.
    A.insert(A.end(), {"--bind", Dir, Dir, "--chdir", Dir, "--setenv", "TMPDIR",
                       Dir, "--unshare-all", "--cap-drop", "ALL",
                       "--die-with-parent", "--new-session", "--"});
  } else if (S.K == Sandbox::Kind::Unshare) {
    // The harness is the namespace's init (see HarnessSupport.h); unshare
    // kills it when the verifier goes, which ends the namespace.
    A = {S.Program,      "--user", "--map-root-user", "--pid", "--fork",
         "--kill-child", "--net",  "--ipc",           "--"};
  }
  A.insert(A.end(), Argv.begin(), Argv.end());
  return A;
}

} // namespace

//===--- Running a child --------------------------------------------------===//

bool dieWithParentIfAsked() {
  const char *Parent = std::getenv("LIBTORCH_TIDY_PARENT");
  if (!Parent)
    return true;
  pid_t Expected = static_cast<pid_t>(std::atol(Parent));
  // Not passed on: the harnesses are not ours to bind.
  ::unsetenv("LIBTORCH_TIDY_PARENT");
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  // Set after the parent died: the signal will never come.
  return ::getppid() == Expected;
}

void killRunningChild() {
  pid_t Pid = RunningChild.load();
  if (Pid > 0) {
    ::kill(-Pid, SIGKILL);
    // Before its setsid() the child has no group of its own yet.
    ::kill(Pid, SIGKILL);
  }
  if (!LiveCgroup[0])
    return;
  // The killed take a moment to leave the cgroup; a cgroup still there is
  // removed by the next run.
  for (int Try = 0; Try < 50; ++Try) {
    killCgroupMembers(LiveCgroup);
    if (::rmdir(LiveCgroup) == 0 || errno == ENOENT)
      return;
    struct timespec Wait = {0, 10 * 1000 * 1000};
    ::nanosleep(&Wait, nullptr);
  }
}

std::string taskLimitMechanism() { return taskLimiter().Describe; }

namespace {

/// The child's output pipe; both ends closed when it goes.
class OutputPipe {
public:
  OutputPipe() {
    if (::pipe(Fds) != 0)
      Fds[0] = Fds[1] = -1;
  }
  ~OutputPipe() {
    closeRead();
    closeWrite();
  }
  OutputPipe(const OutputPipe &) = delete;
  OutputPipe &operator=(const OutputPipe &) = delete;
  bool ok() const { return Fds[0] >= 0; }
  int readEnd() const { return Fds[0]; }
  int writeEnd() const { return Fds[1]; }
  void closeRead() { closeEnd(0); }
  void closeWrite() { closeEnd(1); }

private:
  void closeEnd(int End) {
    if (Fds[End] >= 0)
      ::close(Fds[End]);
    Fds[End] = -1;
  }
  int Fds[2] = {-1, -1};
};

/// What the child does between fork and exec, prepared before the fork:
/// only async-signal-safe calls may follow it (the parent has LibTorch's
/// thread pools), so nothing here allocates.
struct ChildPlan {
  std::vector<char *> Args;
  const char *Dir = nullptr; ///< where to run; null for here
  const OutputPipe *Out = nullptr;
  long MemoryMiB = 0;
  long Nproc = 0;              ///< RLIMIT_NPROC; 0 for none
  const char *Procs = nullptr; ///< the cgroup.procs to join; null for none
  pid_t Parent = 0;
};

void setLimit(int Resource, rlim_t Value) {
  struct rlimit Limit = {Value, Value};
  ::setrlimit(Resource, &Limit);
}

/// Stdin from /dev/null, stdout and stderr into the pipe.
void redirectChildIo(const OutputPipe &Out) {
  int Null = ::open("/dev/null", O_RDONLY);
  if (Null >= 0) {
    ::dup2(Null, 0);
    ::close(Null);
  }
  ::dup2(Out.writeEnd(), 1);
  ::dup2(Out.writeEnd(), 2);
  ::close(Out.readEnd());
  ::close(Out.writeEnd());
}

void limitChild(const ChildPlan &P) {
  setLimit(RLIMIT_CORE, 0);
  if (P.MemoryMiB > 0)
    setLimit(RLIMIT_AS, static_cast<rlim_t>(P.MemoryMiB) << 20);
  if (P.Nproc > 0)
    setLimit(RLIMIT_NPROC, static_cast<rlim_t>(P.Nproc));
  if (!P.Procs)
    return;
  // Joined before exec, so that nothing it starts escapes the limit.
  int Fd = ::open(P.Procs, O_WRONLY | O_CLOEXEC);
  if (Fd < 0 || ::write(Fd, "0", 1) != 1) {
    const char Msg[] = "cannot join the process-limit cgroup\n";
    ::write(1, Msg, sizeof(Msg) - 1);
    ::_exit(126);
  }
  ::close(Fd);
}

[[noreturn]] void execChild(const ChildPlan &P) {
  ::setsid();
  // Dies with the verifier, even by SIGKILL (the harness's own children
  // do not inherit this: a sandbox's PID namespace takes those).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != P.Parent)
    ::_exit(127);
  redirectChildIo(*P.Out);
  limitChild(P);
  if (P.Dir && ::chdir(P.Dir) != 0)
    ::_exit(127);
  ::execvp(P.Args[0], P.Args.data());
  ::_exit(127);
}

/// The parent's watch over a started child: its time and task limits.
class ChildWatch {
public:
  ChildWatch(pid_t Pid, TaskGroup &Tasks, double Start, double Seconds)
      : Pid(Pid), Tasks(Tasks), Start(Start), Seconds(Seconds) {}

  double secondsLeft() const { return Seconds - (now() - Start); }
  /// Kills the child at its time or task limit.
  void enforceLimits() {
    if (!TimedOut && secondsLeft() <= 0) {
      TimedOut = true;
      killAll();
      return;
    }
    if (!TaskLimit && Tasks.reached()) {
      TaskLimit = true;
      killAll();
    }
  }
  bool stopped() const { return TimedOut || TaskLimit; }
  void killAll() {
    ::kill(-Pid, SIGKILL);
    ::kill(Pid, SIGKILL);
    Tasks.killAll();
  }

  const pid_t Pid;
  bool TimedOut = false, TaskLimit = false;

private:
  TaskGroup &Tasks;
  double Start, Seconds;
};

/// Reads the child's output until it closes or a limit stops the child;
/// keeps at most 128 KiB of the end.
std::string readOutput(int Fd, ChildWatch &Watch) {
  std::string Out;
  for (;;) {
    Watch.enforceLimits();
    if (Watch.stopped())
      break;
    struct pollfd P = {Fd, POLLIN, 0};
    double Wait = std::min(Watch.secondsLeft(), 0.25);
    int Ready = ::poll(&P, 1, static_cast<int>(Wait * 1000) + 1);
    if (Ready < 0 && errno != EINTR)
      break;
    if (Ready <= 0)
      continue;
    char Buf[4096];
    ssize_t N = ::read(Fd, Buf, sizeof(Buf));
    if (N <= 0)
      break;
    Out.append(Buf, static_cast<size_t>(N));
    if (Out.size() > (128u << 10))
      Out.erase(0, Out.size() - (64u << 10));
  }
  return Out;
}

/// Waits for the child's exit status. The output closes before the exit
/// when the child hands the pipe to a grandchild; the limits still hold.
int reapChild(ChildWatch &Watch) {
  int Status = 0;
  for (;;) {
    pid_t W = ::waitpid(Watch.Pid, &Status, WNOHANG);
    if (W == Watch.Pid || (W < 0 && errno != EINTR))
      return Status;
    Watch.enforceLimits();
    ::usleep(2000);
  }
}

void setExitStatus(ProcessResult &R, int Status, bool Confined) {
  if (WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status))
    R.Signal = WTERMSIG(Status);
  // bwrap's init and the harness as unshare's init exit with 128 + the
  // signal that ended the program.
  if (Confined && R.ExitCode > 128 && R.ExitCode <= 128 + 64) {
    R.Signal = R.ExitCode - 128;
    R.ExitCode = -1;
  }
}

ChildPlan planChild(const std::vector<std::string> &Argv,
                    const std::string &Dir, const Limits &L,
                    const TaskGroup &Tasks, const OutputPipe &Out) {
  ChildPlan P;
  for (const std::string &A : Argv)
    P.Args.push_back(const_cast<char *>(A.c_str()));
  P.Args.push_back(nullptr);
  P.Dir = Dir.empty() ? nullptr : Dir.c_str();
  P.Out = &Out;
  P.MemoryMiB = L.MemoryMiB;
  P.Nproc = Tasks.Rlimit;
  P.Procs = Tasks.Procs.empty() ? nullptr : Tasks.Procs.c_str();
  P.Parent = ::getpid();
  return P;
}

} // namespace

ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const std::string &Dir, const Limits &L) {
  ProcessResult R;
  if (Argv.empty())
    return R;
  bool Confined = L.Confine && L.Confine->K != Sandbox::Kind::None;
  std::vector<std::string> Full =
      Confined ? confine(*L.Confine, Dir, Argv) : Argv;
  OutputPipe Out;
  if (!Out.ok())
    return R;
  TaskGroup Tasks(L.MaxTasks);
  if (!Tasks.Failed.empty()) {
    R.Output = Tasks.Failed;
    return R;
  }
  ChildPlan Plan = planChild(Full, Dir, L, Tasks, Out);
  double Start = now();
  pid_t Pid = ::fork();
  if (Pid < 0)
    return R;
  if (Pid == 0)
    execChild(Plan);
  RunningChild = Pid;
  R.Started = true;
  Out.closeWrite();
  ChildWatch Watch(Pid, Tasks, Start, L.Seconds);
  std::string Output = readOutput(Out.readEnd(), Watch);
  Out.closeRead();
  int Status = reapChild(Watch);
  // Whatever the snippet started in its group or cgroup goes with it.
  Watch.killAll();
  RunningChild = 0;
  R.TimedOut = Watch.TimedOut;
  R.TaskLimit = Watch.TaskLimit;
  setExitStatus(R, Status, Confined);
  if (Output.size() > (64u << 10))
    Output.erase(0, Output.size() - (64u << 10));
  R.Output = std::move(Output);
  R.Seconds = now() - Start;
  return R;
}

Sandbox probeSandbox(bool Disabled) {
  Sandbox S;
  if (Disabled) {
    S.Describe = "none: --no-sandbox";
    S.Note = "note: --no-sandbox: snippets run with your rights";
    return S;
  }
  TempDir Probe;
  if (!Probe.ok()) {
    S.Describe = "none: no temporary directory to probe a sandbox in";
    S.Note = "note: no sandbox (no temporary directory to probe one in); "
             "snippets run with your rights";
    return S;
  }
  // Runs `true` the way harnesses will run; the reason when it fails.
  auto Try = [&](Sandbox::Kind K, const char *Env, const char *Name) {
    const char *Override = std::getenv(Env);
    std::string Program = findInPath(Override && *Override ? Override : Name);
    if (Program.empty())
      return std::string(Name) + " not found";
    Sandbox Candidate;
    Candidate.K = K;
    Candidate.Program = Program;
    ProcessResult R = runProcess(confine(Candidate, Probe.path(), {"true"}),
                                 Probe.path(), Limits{10, 0});
    if (R.Started && R.ExitCode == 0 && !R.TimedOut) {
      S.K = K;
      S.Program = Program;
      return std::string();
    }
    std::string Why = firstLine(R.Output);
    return Name + std::string(": ") +
           (Why.empty() ? "exit status " + std::to_string(R.ExitCode) : Why);
  };
  std::string Bwrap =
      Try(Sandbox::Kind::Bubblewrap, "LIBTORCH_TIDY_BWRAP", "bwrap");
  if (Bwrap.empty()) {
    S.Describe = "bubblewrap";
    return S;
  }
  std::string Unshare =
      Try(Sandbox::Kind::Unshare, "LIBTORCH_TIDY_UNSHARE", "unshare");
  if (Unshare.empty()) {
    S.Describe = "unshare (network and processes only; " + Bwrap + ")";
    S.Note = "note: no bubblewrap (" + Bwrap +
             "); snippets run under unshare, cut off from the network and "
             "other processes, but can write your files";
    return S;
  }
  S.Describe = "none: " + Bwrap + "; " + Unshare;
  S.Note = "note: no sandbox available (" + Bwrap + "; " + Unshare +
           "); snippets run with your rights";
  return S;
}

Sandbox probeBuildNamespace() {
  Sandbox S;
  const char *Override = std::getenv("LIBTORCH_TIDY_UNSHARE");
  std::string Program =
      findInPath(Override && *Override ? Override : "unshare");
  S.Describe = "none: unshare not found";
  if (Program.empty())
    return S;
  Sandbox Candidate;
  Candidate.K = Sandbox::Kind::Unshare;
  Candidate.Program = Program;
  ProcessResult R = runProcess(confine(Candidate, "/", {"true"}), "/",
                               Limits{10, 0});
  if (!R.Started || R.ExitCode != 0 || R.TimedOut) {
    S.Describe = "none: unshare: " + firstLine(R.Output);
    return S;
  }
  Candidate.Describe = "unshare (own PID namespace)";
  return Candidate;
}

//===--- Temporary directories --------------------------------------------===//

namespace {

std::string tempBase() {
  const char *Base = std::getenv("TMPDIR");
  return Base && *Base ? Base : "/tmp";
}

} // namespace

TempDir::TempDir() {
  std::string Template =
      tempBase() + "/" + TempPrefix + std::to_string(::getpid()) + ".XXXXXX";
  std::vector<char> Buf(Template.begin(), Template.end());
  Buf.push_back('\0');
  if (::mkdtemp(Buf.data())) {
    Path = Buf.data();
    Outer = LiveTemp;
    std::strncpy(LiveTemp, Path.c_str(), sizeof(LiveTemp) - 1);
  }
}

TempDir::~TempDir() {
  if (Path.empty())
    return;
  // The enclosing one is the live one again.
  std::strncpy(LiveTemp, Outer.c_str(), sizeof(LiveTemp) - 1);
  std::error_code EC;
  fs::remove_all(Path, EC);
}

const char *liveTempDir() { return LiveTemp[0] ? LiveTemp : nullptr; }

int removeStaleTempDirs() {
  int Removed = 0;
  std::error_code EC;
  for (const auto &E : fs::directory_iterator(tempBase(), EC)) {
    long Pid = ownerPid(E.path().filename().string(), TempPrefix);
    struct stat St;
    // Only real directories of this user whose verifier is gone.
    if (!Pid || processExists(Pid) || ::lstat(E.path().c_str(), &St) != 0 ||
        !S_ISDIR(St.st_mode) || St.st_uid != ::geteuid())
      continue;
    std::error_code RemoveError;
    fs::remove_all(E.path(), RemoveError);
    Removed += !RemoveError;
  }
  return Removed;
}

} // namespace torchtidy
