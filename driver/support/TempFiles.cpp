//===--- TempFiles.cpp - a run's private temporary directory --------------===//

#include "support/TempFiles.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace torchtidy {
namespace fs = llvm::sys::fs;

namespace {

constexpr llvm::StringLiteral DirPrefix = "libtorch-tidy.";

std::mutex Lock;
std::string RunDir;

/// Whether PID runs: exists and is not a zombie (a killed run's children
/// may wait a while for init to reap them).
bool processRuns(pid_t Pid) {
  if (::kill(Pid, 0) != 0 && errno == ESRCH)
    return false;
  auto Stat = llvm::MemoryBuffer::getFileAsStream(
      "/proc/" + std::to_string(Pid) + "/stat");
  if (!Stat)
    return true;
  // "pid (comm) S ...": the state follows the last ')'.
  llvm::StringRef Rest = (*Stat)->getBuffer();
  Rest = Rest.drop_front(Rest.rfind(')') + 1).ltrim();
  return !Rest.starts_with("Z");
}

void removeRunDir() {
  if (!RunDir.empty())
    fs::remove_directories(RunDir, /*IgnoreErrors=*/true);
}

std::error_code runDir(std::string &Out) {
  std::lock_guard<std::mutex> Guard(Lock);
  if (RunDir.empty()) {
    removeStaleRunDirectories();
    llvm::SmallString<128> Dir;
    if (std::error_code EC = fs::createUniqueDirectory(
            DirPrefix + std::to_string(::getpid()), Dir))
      return EC;
    RunDir = Dir.str().str();
    std::atexit(removeRunDir);
  }
  Out = RunDir;
  return {};
}

} // namespace

unsigned removeStaleRunDirectories() {
  llvm::SmallString<128> Tmp;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Tmp);
  std::error_code EC;
  unsigned Removed = 0;
  for (fs::directory_iterator It(Tmp, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (!Name.consume_front(DirPrefix))
      continue;
    // libtorch-tidy.<pid>-<random>, ours, and that pid no longer runs.
    unsigned long Pid;
    if (Name.consumeInteger(10, Pid) || !Name.starts_with("-"))
      continue;
    struct stat St;
    if (::lstat(It->path().c_str(), &St) || !S_ISDIR(St.st_mode) ||
        St.st_uid != ::geteuid())
      continue;
    if (processRuns(static_cast<pid_t>(Pid)))
      continue;
    if (!fs::remove_directories(It->path(), /*IgnoreErrors=*/true))
      ++Removed;
  }
  return Removed;
}

std::error_code createRunTempFile(llvm::StringRef Prefix,
                                  llvm::StringRef Suffix,
                                  llvm::SmallVectorImpl<char> &Path, int *FD) {
  std::string Dir;
  if (std::error_code EC = runDir(Dir))
    return EC;
  llvm::SmallString<128> Model(Dir);
  llvm::sys::path::append(Model, Prefix + "-%%%%%%%%" +
                                     (Suffix.empty() ? "" : "." + Suffix));
  int OwnFD;
  if (std::error_code EC = fs::createUniqueFile(Model, OwnFD, Path))
    return EC;
  // A run stopped by SIGINT, SIGTERM or SIGHUP removes it too.
  llvm::sys::RemoveFileOnSignal(llvm::StringRef(Path.data(), Path.size()));
  if (FD)
    *FD = OwnFD;
  else
    llvm::sys::Process::SafelyCloseFileDescriptor(OwnFD);
  return {};
}

std::error_code createRunTempDirectory(llvm::StringRef Prefix,
                                       llvm::SmallVectorImpl<char> &Path) {
  std::string Dir;
  if (std::error_code EC = runDir(Dir))
    return EC;
  llvm::SmallString<128> Model(Dir);
  llvm::sys::path::append(Model, Prefix); // "-<random>" is appended
  return fs::createUniqueDirectory(Model, Path);
}

} // namespace torchtidy
