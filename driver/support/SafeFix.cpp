//===--- SafeFix.cpp - libtorch-tidy --------------------------------------===//

#include "support/SafeFix.h"
#include "cli/CommandLine.h"
#include "support/AtomicWrite.h"
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

namespace {

llvm::Error notFixing(const llvm::Twine &Why) {
  return llvm::createStringError(
      std::make_error_code(std::errc::operation_not_permitted), Why);
}

/// Why the file with \p Status may not be replaced: not a regular file,
/// read-only, or someone else's.
llvm::Error checkWritable(const std::string &Real, const struct stat &Status) {
  if (!S_ISREG(Status.st_mode))
    return notFixing("not a regular file");
  // Root may write anything; a file without write permission is read-only
  // for it too, as for editors.
  if (!(Status.st_mode & 0222) || ::access(Real.c_str(), W_OK))
    return notFixing("the file is read-only");
  if (::geteuid() != 0 && Status.st_uid != ::geteuid())
    return notFixing("the file belongs to another user, and replacing it "
                     "would change its owner");
  return llvm::Error::success();
}

/// Whether the file \p Real is still \p Base, the text clang-tidy read: it
/// computed the fixes against the text it read during the analysis and
/// applies them to Base, which it read after, so both must be the file as
/// it was at the start and is now.
llvm::Error checkUnchanged(const std::string &Real, const struct stat &Status,
                           llvm::StringRef Base) {
  FixRun &Run = fixRun();
  bool Changed = Run.Started && after(Status.st_ctim, Run.Start);
  if (auto It = Run.Originals.find(Real); It != Run.Originals.end())
    Changed |= It->second != Base;
  auto Current = llvm::MemoryBuffer::getFile(Real, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false,
                                             /*IsVolatile=*/true);
  if (!Current)
    return notFixing("cannot read it: " + Current.getError().message());
  Changed |= (*Current)->getBuffer() != Base;
  if (Changed)
    return notFixing("the file changed during the analysis");
  return llvm::Error::success();
}

} // namespace

bool changedDuringFixRun(llvm::StringRef Path) {
  FixRun &Run = fixRun();
  if (!Run.Started)
    return false;
  std::string Real = realPath(Path);
  struct stat Status;
  if (::stat(Real.c_str(), &Status) || after(Status.st_ctim, Run.Start))
    return true;
  auto It = Run.Originals.find(Real);
  if (It == Run.Originals.end())
    return false;
  auto Current = llvm::MemoryBuffer::getFile(Real, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false,
                                             /*IsVolatile=*/true);
  return !Current || (*Current)->getBuffer() != It->second;
}

llvm::Error writeFixedFile(llvm::StringRef Path, llvm::StringRef Base,
                           llvm::StringRef Text) {
  // A symbolic link stays one: its target gets the fixes.
  std::string Real = realPath(Path);
  struct stat Status;
  if (::stat(Real.c_str(), &Status))
    return notFixing(errno == ENOENT
                         ? "the file was removed during the analysis"
                         : "cannot read it: " + errnoText());
  if (llvm::Error E = checkWritable(Real, Status))
    return E;
  if (llvm::Error E = checkUnchanged(Real, Status, Base))
    return E;
  if (Text == Base)
    return llvm::Error::success();
  return replaceFileIfUnchanged(Real, Text, Status);
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
    llvm::Error Error = torchtidy::writeFixedFile(
        Path, SM.getBufferData(I->first), Text);
    if (!Error)
      continue;
    llvm::errs() << "libtorch-tidy: error: not fixing '" << Path
                 << "': " << llvm::toString(std::move(Error)) << "\n";
    torchtidy::fixRun().LeftAlone = true;
    AnyNotWritten = true;
  }
  return AnyNotWritten;
}
