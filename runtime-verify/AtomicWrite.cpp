//===--- AtomicWrite.cpp - libtorch-tidy-verify ---------------------------===//

#include "AtomicWrite.h"
#include "ReportText.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace torchtidy {

namespace {

/// writeFileAtomically, the new file given \p Mode (and synced, so that a
/// crash never leaves a replaced source empty) when there is one.
std::optional<Failure> writeThroughTemp(const std::string &Path,
                                        const std::string &Text,
                                        std::optional<mode_t> Mode) {
  auto Fail = [&](int Errno) {
    return std::optional<Failure>(Failure{oneLine(
        "cannot write '" + Path + "': " + std::strerror(Errno ? Errno : EIO))});
  };
  // A fresh name next to Path (a rename across file systems is not atomic),
  // created exclusively so two writers never share a temporary file.
  static std::atomic<unsigned long long> Counter{0};
  std::string Temp;
  std::FILE *F = nullptr;
  for (int Attempt = 0; Attempt < 16 && !F; ++Attempt) {
    unsigned long long Salt =
        static_cast<unsigned long long>(
            std::chrono::steady_clock::now().time_since_epoch().count()) *
            1000003u +
        Counter++;
    char Suffix[32];
    std::snprintf(Suffix, sizeof(Suffix), ".tmp-%llx", Salt);
    Temp = Path + Suffix;
    errno = 0;
    F = std::fopen(Temp.c_str(), "wbx");
    if (!F && errno != EEXIST)
      return Fail(errno);
  }
  if (!F)
    return Fail(EEXIST);
  errno = 0;
  int WriteError = 0;
  if (std::fwrite(Text.data(), 1, Text.size(), F) != Text.size() ||
      std::fflush(F) != 0)
    WriteError = errno ? errno : EIO;
  if (!WriteError && Mode &&
      (::fchmod(fileno(F), *Mode) != 0 || ::fsync(fileno(F)) != 0))
    WriteError = errno ? errno : EIO;
  if (std::fclose(F) != 0 && !WriteError)
    WriteError = errno ? errno : EIO;
  if (!WriteError && std::rename(Temp.c_str(), Path.c_str()) != 0)
    WriteError = errno ? errno : EIO;
  if (WriteError) {
    std::remove(Temp.c_str());
    return Fail(WriteError);
  }
  return std::nullopt;
}

} // namespace

std::optional<Failure> writeFileAtomically(const std::string &Path,
                                           const std::string &Text) {
  return writeThroughTemp(Path, Text, std::nullopt);
}

std::optional<Failure> replaceFileAtomically(const std::string &Path,
                                             const std::string &Text) {
  // The rename must replace the link's target, not the link.
  std::error_code EC;
  std::filesystem::path Real = std::filesystem::canonical(Path, EC);
  std::string Target = EC ? Path : Real.string();
  struct stat Old;
  if (::stat(Target.c_str(), &Old) != 0)
    return Failure{oneLine("cannot write '" + Path + "': " +
                           std::strerror(errno))};
  return writeThroughTemp(Target, Text, Old.st_mode & 07777);
}

} // namespace torchtidy
