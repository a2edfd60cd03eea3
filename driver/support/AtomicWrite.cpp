//===--- AtomicWrite.cpp - libtorch-tidy ----------------------------------===//

#include "support/AtomicWrite.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace torchtidy {

namespace {

llvm::Error errnoError(const llvm::Twine &What) {
  return llvm::createStringError(std::error_code(errno, std::generic_category()),
                                 What + ": " + std::strerror(errno));
}

llvm::Error cannotWrite(llvm::StringRef Output, const llvm::Twine &Why) {
  return llvm::createStringError(std::make_error_code(std::errc::io_error),
                                 "cannot write '" + Output + "': " + Why);
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

/// The temporary file that becomes \p Name in the directory \p DirFD: an
/// unnamed one (O_TMPFILE), which vanishes when the process dies while
/// writing it and gets a name only just before the rename; on file systems
/// without it a named one, removed on signals that allow it. Discarded
/// unless renamed.
class ReplacementFile {
public:
  ReplacementFile(std::string Dir, std::string Name)
      : Dir(std::move(Dir)), Name(std::move(Name)) {}
  ReplacementFile(const ReplacementFile &) = delete;
  ReplacementFile &operator=(const ReplacementFile &) = delete;
  ~ReplacementFile() { discard(); }

  llvm::Error create() {
    DirFD = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (DirFD < 0)
      return errnoError("cannot open its directory");
    FD = ::openat(DirFD, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (FD >= 0)
      return llvm::Error::success();
    if (std::error_code EC = llvm::sys::fs::createUniqueFile(
            model(), FD, Temp, llvm::sys::fs::OF_None, 0600))
      return llvm::createStringError(
          EC, "cannot create a file in its directory: " + EC.message());
    llvm::sys::RemoveFileOnSignal(Temp);
    return llvm::Error::success();
  }

  /// The text, the mode and the owner of \p Old, on disk.
  llvm::Error write(llvm::StringRef Text, const struct stat &Old) {
    if (!writeAll(FD, Text) || ::fchmod(FD, Old.st_mode & 07777) ||
        ::fsync(FD))
      return errnoError("cannot write");
    // Keeps the owner where allowed (root); a failure keeps ours, and the
    // safe fix refuses files of other users before this.
    if (::fchown(FD, Old.st_uid, Old.st_gid))
      (void)::fchown(FD, static_cast<uid_t>(-1), Old.st_gid);
    return Temp.empty() ? giveName() : llvm::Error::success();
  }

  /// Renames it over \p Path unless that no longer has the status \p Old.
  llvm::Error renameOver(llvm::StringRef Path, const struct stat &Old) {
    struct stat Now;
    if (::stat(std::string(Path).c_str(), &Now) || !sameStatus(Now, Old))
      return llvm::createStringError(
          std::make_error_code(std::errc::operation_canceled),
          "the file changed during the analysis");
    if (::renameat(AT_FDCWD, Temp.c_str(), DirFD, Name.c_str()))
      return errnoError("cannot write");
    llvm::sys::DontRemoveFileOnSignal(Temp);
    Temp.clear();
    // The rename itself reaches the disk with the directory.
    ::fsync(DirFD);
    return llvm::Error::success();
  }

private:
  llvm::SmallString<256> model() const {
    llvm::SmallString<256> Model(Dir);
    llvm::sys::path::append(Model, Name + ".libtorch-tidy-%%%%%%.tmp");
    return Model;
  }

  /// Links the unnamed file into the directory under a unique name.
  llvm::Error giveName() {
    std::string Proc = "/proc/self/fd/" + std::to_string(FD);
    llvm::SmallString<256> Model = model();
    for (int Try = 0; Temp.empty() && Try < 100; ++Try) {
      llvm::SmallString<256> Candidate;
      llvm::sys::fs::getPotentiallyUniqueFileName(Model, Candidate);
      if (!::linkat(AT_FDCWD, Proc.c_str(), AT_FDCWD, Candidate.c_str(),
                    AT_SYMLINK_FOLLOW))
        Temp = Candidate;
      else if (errno != EEXIST)
        break;
    }
    if (Temp.empty())
      return errnoError("cannot create a file in its directory");
    llvm::sys::RemoveFileOnSignal(Temp);
    return llvm::Error::success();
  }

  void discard() {
    if (FD >= 0)
      ::close(FD);
    FD = -1;
    if (DirFD >= 0)
      ::close(DirFD);
    DirFD = -1;
    if (!Temp.empty()) {
      ::unlink(Temp.c_str());
      llvm::sys::DontRemoveFileOnSignal(Temp);
    }
  }

  std::string Dir, Name;
  int DirFD = -1, FD = -1;
  llvm::SmallString<256> Temp;
};

} // namespace

llvm::Error writeFileAtomically(llvm::StringRef Output, llvm::StringRef Text) {
  llvm::SmallString<256> Model(Output);
  llvm::sys::path::remove_filename(Model);
  llvm::sys::path::append(Model,
                          llvm::sys::path::filename(Output) + ".tmp-%%%%%%");
  llvm::SmallString<256> Temp;
  int FD = -1;
  if (std::error_code EC = llvm::sys::fs::createUniqueFile(Model, FD, Temp))
    return cannotWrite(Output, EC.message());
  // A run stopped by a signal leaves no temporary file beside the output.
  llvm::sys::RemoveFileOnSignal(Temp);
  auto Forget =
      llvm::make_scope_exit([&] { llvm::sys::DontRemoveFileOnSignal(Temp); });
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.flush();
    // On disk before the rename: a crash leaves the old file or the new.
    ::fsync(FD);
    OS.close();
    if (OS.has_error()) {
      std::string Message = OS.error().message();
      OS.clear_error();
      llvm::sys::fs::remove(Temp);
      return cannotWrite(Output, Message);
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temp, Output)) {
    llvm::sys::fs::remove(Temp);
    return cannotWrite(Output, EC.message());
  }
  return llvm::Error::success();
}

llvm::Error replaceFileIfUnchanged(llvm::StringRef Path, llvm::StringRef Text,
                                   const struct stat &Old) {
  std::string Dir = llvm::sys::path::parent_path(Path).str();
  ReplacementFile File(Dir.empty() ? "." : Dir,
                       llvm::sys::path::filename(Path).str());
  if (llvm::Error E = File.create())
    return E;
  if (llvm::Error E = File.write(Text, Old))
    return E;
  return File.renameOver(Path, Old);
}

llvm::Error replaceFileAtomically(llvm::StringRef Path, llvm::StringRef Text) {
  llvm::SmallString<256> Real;
  if (llvm::sys::fs::real_path(Path, Real))
    Real = Path;
  struct stat Status;
  if (::stat(Real.c_str(), &Status))
    return errnoError("cannot read it");
  return replaceFileIfUnchanged(Real, Text, Status);
}

} // namespace torchtidy
