//===--- Process.cpp - libtorch-tidy-verify -------------------------------===//

#include "Process.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace torchverify {

namespace {

std::atomic<pid_t> RunningChild{0};
char LiveTemp[4096];

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

void killRunningChild() {
  pid_t Pid = RunningChild.load();
  if (Pid > 0)
    ::kill(-Pid, SIGKILL);
}

ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const std::string &Dir, const Limits &L) {
  ProcessResult R;
  int Pipe[2];
  if (Argv.empty() || ::pipe(Pipe) != 0)
    return R;
  std::vector<char *> Args;
  for (const std::string &A : Argv)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  double Start = now();
  pid_t Pid = ::fork();
  if (Pid < 0) {
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    return R;
  }
  if (Pid == 0) {
    // Only async-signal-safe calls between fork and exec: the parent has
    // LibTorch's thread pools.
    ::setpgid(0, 0);
    ::dup2(Pipe[1], 1);
    ::dup2(Pipe[1], 2);
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    struct rlimit NoCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &NoCore);
    if (L.MemoryMiB > 0) {
      rlim_t Bytes = static_cast<rlim_t>(L.MemoryMiB) << 20;
      struct rlimit Mem = {Bytes, Bytes};
      ::setrlimit(RLIMIT_AS, &Mem);
    }
    if (!Dir.empty() && ::chdir(Dir.c_str()) != 0)
      ::_exit(127);
    ::execvp(Args[0], Args.data());
    ::_exit(127);
  }
  ::setpgid(Pid, Pid); // also here, so a kill never misses the group
  RunningChild = Pid;
  R.Started = true;
  ::close(Pipe[1]);
  std::string Out;
  bool Open = true;
  while (Open) {
    double Left = L.Seconds - (now() - Start);
    if (Left <= 0) {
      R.TimedOut = true;
      ::kill(-Pid, SIGKILL);
      break;
    }
    struct pollfd P = {Pipe[0], POLLIN, 0};
    int Ready =
        ::poll(&P, 1, static_cast<int>(std::min(Left, 0.25) * 1000) + 1);
    if (Ready < 0 && errno != EINTR)
      break;
    if (Ready <= 0)
      continue;
    char Buf[4096];
    ssize_t N = ::read(Pipe[0], Buf, sizeof(Buf));
    if (N <= 0) {
      Open = false;
      break;
    }
    Out.append(Buf, static_cast<size_t>(N));
    if (Out.size() > (128u << 10))
      Out.erase(0, Out.size() - (64u << 10));
  }
  ::close(Pipe[0]);
  int Status = 0;
  // The output closes before the exit when the child hands the pipe to a
  // grandchild; the limit still holds.
  while (true) {
    pid_t W = ::waitpid(Pid, &Status, WNOHANG);
    if (W == Pid)
      break;
    if (W < 0 && errno != EINTR)
      break;
    if (now() - Start > L.Seconds && !R.TimedOut) {
      R.TimedOut = true;
      ::kill(-Pid, SIGKILL);
    }
    ::usleep(2000);
  }
  // Whatever the snippet started in its group goes with it.
  ::kill(-Pid, SIGKILL);
  RunningChild = 0;
  if (WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status))
    R.Signal = WTERMSIG(Status);
  if (Out.size() > (64u << 10))
    Out.erase(0, Out.size() - (64u << 10));
  R.Output = std::move(Out);
  R.Seconds = now() - Start;
  return R;
}

TempDir::TempDir() {
  const char *Base = std::getenv("TMPDIR");
  std::string Template = std::string(Base && *Base ? Base : "/tmp") +
                         "/libtorch-tidy-verify.XXXXXX";
  std::vector<char> Buf(Template.begin(), Template.end());
  Buf.push_back('\0');
  if (::mkdtemp(Buf.data())) {
    Path = Buf.data();
    std::strncpy(LiveTemp, Path.c_str(), sizeof(LiveTemp) - 1);
  }
}

TempDir::~TempDir() {
  if (Path.empty())
    return;
  std::error_code EC;
  std::filesystem::remove_all(Path, EC);
  LiveTemp[0] = '\0';
}

const char *liveTempDir() { return LiveTemp[0] ? LiveTemp : nullptr; }

} // namespace torchverify
