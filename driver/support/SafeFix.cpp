//===--- SafeFix.cpp - libtorch-tidy --------------------------------------===//

#include "support/SafeFix.h"
#include "cli/CommandLine.h"
#include "support/TempFiles.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace clang;

namespace torchtidy {

namespace {

struct FixRun {
  bool Started = false;
  bool LeftAlone = false;
  /// A file whose status changed after this instant changed during the
  /// analysis. It is a file-system timestamp, not the clock: the kernel
  /// stamps files with a coarse clock that lags behind.
  timespec Start = {0, 0};
  /// The source files of the command line as they were at the start (real
  /// path -> text): clang-tidy computes the fixes against what it read.
  llvm::StringMap<std::string> Originals;
};

FixRun &fixRun() {
  static FixRun Run;
  return Run;
}

bool after(const timespec &A, const timespec &B) {
  return A.tv_sec != B.tv_sec ? A.tv_sec > B.tv_sec : A.tv_nsec > B.tv_nsec;
}

bool sameStatus(const struct stat &A, const struct stat &B) {
  return A.st_dev == B.st_dev && A.st_ino == B.st_ino &&
         A.st_size == B.st_size && !after(A.st_mtim, B.st_mtim) &&
         !after(B.st_mtim, A.st_mtim) && !after(A.st_ctim, B.st_ctim) &&
         !after(B.st_ctim, A.st_ctim);
}

std::string errnoText() { return std::strerror(errno); }

std::string realPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    return Path.str();
  return Real.str().str();
}

/// The file-system time now: a file stamped after it was changed after this
/// call. Waits (a clock tick, a few ms) until a file changed now would get
/// a later stamp than the one returned, so that "after" is strict.
timespec fileSystemNow() {
  llvm::SmallString<128> Marker;
  int FD = -1;
  if (createRunTempFile("start", "", Marker, &FD)) {
    timespec Now;
    clock_gettime(CLOCK_REALTIME, &Now);
    return Now;
  }
  auto Cleanup = llvm::make_scope_exit([&] {
    ::close(FD);
    llvm::sys::fs::remove(Marker);
  });
  struct stat First, Next;
  ::fstat(FD, &First);
  for (int I = 0; I < 500; ++I) {
    ::futimens(FD, nullptr);
    if (::fstat(FD, &Next) || after(Next.st_ctim, First.st_ctim))
      break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return First.st_ctim;
}

bool writeAll(int FD, llvm::StringRef Text) {
  while (!Text.empty()) {
    ssize_t N = ::write(FD, Text.data(), Text.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Text = Text.drop_front(N);
  }
  return true;
}

/// replaceFileAtomically with \p Old, the status of \p Path when it was
/// checked: the rename is skipped when the file no longer matches it.
std::string replaceFile(llvm::StringRef Path, llvm::StringRef Text,
                        const struct stat &Old) {
  std::string Dir = llvm::sys::path::parent_path(Path).str();
  if (Dir.empty())
    Dir = ".";
  std::string Name = llvm::sys::path::filename(Path).str();
  int DirFD = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (DirFD < 0)
    return "cannot open its directory: " + errnoText();
  auto CloseDir = llvm::make_scope_exit([&] { ::close(DirFD); });

  // An unnamed file (O_TMPFILE) vanishes when the process dies while writing
  // it; it gets a name only just before the rename. File systems without it
  // get a named one, removed on signals that allow it.
  int FD = ::openat(DirFD, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  bool Unnamed = FD >= 0;
  llvm::SmallString<256> Temp;
  if (!Unnamed) {
    llvm::SmallString<256> Model(Dir);
    llvm::sys::path::append(Model, Name + ".libtorch-tidy-%%%%%%.tmp");
    if (std::error_code EC = llvm::sys::fs::createUniqueFile(
            Model, FD, Temp, llvm::sys::fs::OF_None, 0600))
      return "cannot create a file in its directory: " + EC.message();
    llvm::sys::RemoveFileOnSignal(Temp);
  }
  auto Discard = [&] {
    if (FD >= 0)
      ::close(FD);
    FD = -1;
    if (!Temp.empty()) {
      ::unlink(Temp.c_str());
      llvm::sys::DontRemoveFileOnSignal(Temp);
    }
  };
  if (!writeAll(FD, Text) || ::fchmod(FD, Old.st_mode & 07777) || ::fsync(FD)) {
    std::string Error = "cannot write: " + errnoText();
    Discard();
    return Error;
  }
  // Keeps the owner where allowed (root); a failure keeps ours, and
  // writeFixedFile refuses files of other users before this.
  if (::fchown(FD, Old.st_uid, Old.st_gid))
    (void)::fchown(FD, static_cast<uid_t>(-1), Old.st_gid);
  if (Unnamed) {
    std::string Proc = "/proc/self/fd/" + std::to_string(FD);
    llvm::SmallString<256> Model(Dir);
    llvm::sys::path::append(Model, Name + ".libtorch-tidy-%%%%%%.tmp");
    for (int Try = 0; Temp.empty() && Try < 100; ++Try) {
      llvm::SmallString<256> Candidate;
      llvm::sys::fs::getPotentiallyUniqueFileName(Model, Candidate);
      if (!::linkat(AT_FDCWD, Proc.c_str(), AT_FDCWD, Candidate.c_str(),
                    AT_SYMLINK_FOLLOW))
        Temp = Candidate;
      else if (errno != EEXIST)
        break;
    }
    if (Temp.empty()) {
      std::string Error =
          "cannot create a file in its directory: " + errnoText();
      Discard();
      return Error;
    }
    llvm::sys::RemoveFileOnSignal(Temp);
  }
  // The last look: nothing wrote the file while we did.
  struct stat Now;
  if (::stat(std::string(Path).c_str(), &Now) || !sameStatus(Now, Old)) {
    Discard();
    return "the file changed during the analysis";
  }
  if (::renameat(AT_FDCWD, Temp.c_str(), DirFD, Name.c_str())) {
    std::string Error = "cannot write: " + errnoText();
    Discard();
    return Error;
  }
  llvm::sys::DontRemoveFileOnSignal(Temp);
  ::close(FD);
  // The rename itself reaches the disk with the directory.
  ::fsync(DirFD);
  return "";
}

} // namespace

void beginFixes(const CommandLine &CL) {
  if (!CL.Fix)
    return;
  FixRun &Run = fixRun();
  Run.Started = true;
  // First the time, then the texts: a change in between shows in the text.
  Run.Start = fileSystemNow();
  for (const std::string &File : CL.Sources)
    if (auto Text = llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/
                                                false))
      Run.Originals[realPath(File)] = (*Text)->getBuffer().str();
}

int fixExitCode(int RC) {
  return fixRun().LeftAlone ? FixNotAppliedExitCode : RC;
}

std::string writeFixedFile(llvm::StringRef Path, llvm::StringRef Base,
                           llvm::StringRef Text) {
  FixRun &Run = fixRun();
  // A symbolic link stays one: its target gets the fixes.
  std::string Real = realPath(Path);
  struct stat Status;
  if (::stat(Real.c_str(), &Status))
    return errno == ENOENT ? "the file was removed during the analysis"
                           : "cannot read it: " + errnoText();
  if (!S_ISREG(Status.st_mode))
    return "not a regular file";
  // Root may write anything; a file without write permission is read-only
  // for it too, as for editors.
  if (!(Status.st_mode & 0222) || ::access(Real.c_str(), W_OK))
    return "the file is read-only";
  if (::geteuid() != 0 && Status.st_uid != ::geteuid())
    return "the file belongs to another user, and replacing it would "
           "change its owner";
  // clang-tidy computed the fixes against the text it read during the
  // analysis and applies them to Base, which it read after: both must be
  // the file as it was at the start and is now.
  bool Changed = Run.Started && after(Status.st_ctim, Run.Start);
  if (auto It = Run.Originals.find(Real); It != Run.Originals.end())
    Changed |= It->second != Base;
  auto Current = llvm::MemoryBuffer::getFile(Real, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false,
                                             /*IsVolatile=*/true);
  if (!Current)
    return "cannot read it: " + Current.getError().message();
  Changed |= (*Current)->getBuffer() != Base;
  if (Changed)
    return "the file changed during the analysis";
  if (Text == Base)
    return "";
  return replaceFile(Real, Text, Status);
}

std::string replaceFileAtomically(llvm::StringRef Path, llvm::StringRef Text) {
  std::string Real = realPath(Path);
  struct stat Status;
  if (::stat(Real.c_str(), &Status))
    return "cannot read it: " + errnoText();
  return replaceFile(Real, Text, Status);
}

} // namespace torchtidy

/// clang-tidy's --fix writes every fixed file with this member function of
/// clang::Rewriter. The driver is linked with --wrap for its symbol, so the
/// calls from clang-tidy land here (see driver/CMakeLists.txt). Returns true
/// when a file was not written, as the original does. The asm label gives it
/// the symbol name --wrap asks for.
extern "C" bool overwriteChangedFilesSafely(clang::Rewriter *Rewrite) __asm__(
    "__wrap__ZN5clang8Rewriter21overwriteChangedFilesEv");
extern "C" bool overwriteChangedFilesSafely(clang::Rewriter *Rewrite) {
  bool AnyNotWritten = false;
  clang::SourceManager &SM = Rewrite->getSourceMgr();
  for (auto I = Rewrite->buffer_begin(), E = Rewrite->buffer_end(); I != E;
       ++I) {
    clang::OptionalFileEntryRef Entry = SM.getFileEntryRefForID(I->first);
    if (!Entry)
      continue;
    llvm::SmallString<128> Path(Entry->getName());
    SM.getFileManager().makeAbsolutePath(Path);
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    I->second.write(OS);
    OS.flush();
    std::string Error = torchtidy::writeFixedFile(
        Path, SM.getBufferData(I->first), Text);
    if (Error.empty())
      continue;
    llvm::errs() << "libtorch-tidy: error: not fixing '" << Path
                 << "': " << Error << "\n";
    torchtidy::fixRun().LeftAlone = true;
    AnyNotWritten = true;
  }
  return AnyNotWritten;
}
