//===--- CacheTrim.cpp - libtorch-tidy ------------------------------------===//

#include "cache/CacheTrim.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <vector>

namespace torchtidy {
namespace fs = llvm::sys::fs;

namespace {

int64_t mtimeNs(const struct stat &St) {
  return int64_t(St.st_mtim.tv_sec) * 1000000000 + St.st_mtim.tv_nsec;
}

/// One thing to keep or remove whole: a result entry, or a PCH with its
/// header and dependency list.
struct Item {
  std::vector<std::string> Paths;
  uint64_t Bytes = 0;
  int64_t Used = 0; // nanoseconds
  bool IsPch = false;
  bool Keep = false;
};

} // namespace

namespace {

/// The power of 1024 that a size's last letter names (K, M, G, T), or 0.
unsigned shiftOfUnit(char Unit) {
  switch (llvm::toUpper(Unit)) {
  case 'K':
    return 10;
  case 'M':
    return 20;
  case 'G':
    return 30;
  case 'T':
    return 40;
  default:
    return 0;
  }
}

} // namespace

llvm::Expected<uint64_t> parseByteSize(llvm::StringRef Text) {
  llvm::StringRef Number = Text.trim();
  unsigned Shift = Number.empty() ? 0 : shiftOfUnit(Number.back());
  if (Shift)
    Number = Number.drop_back();
  uint64_t N;
  if (Number.empty() || Number.getAsInteger(10, N) || (N >> (64 - Shift - 1)))
    return llvm::createStringError(
        std::make_error_code(std::errc::invalid_argument),
        "'" + Text + "' is not a size such as 5G, 500M, or 0 for no limit");
  return N << Shift;
}

llvm::Expected<uint64_t> defaultCacheMaxBytes() {
  const char *Env = std::getenv("LIBTORCH_TIDY_CACHE_MAX_SIZE");
  if (!Env || !*Env)
    return DefaultCacheMaxBytes;
  return parseByteSize(Env);
}

void markCacheItemUsed(llvm::StringRef Path) {
  std::string P = Path.str();
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  // A PCH's time is its dependency list's: the PCH and its header are
  // inputs clang checks, never touched.
  if (Ext == ".pch")
    P = (Path.drop_back(Ext.size()) + ".deps").str();
  ::utimensat(AT_FDCWD, P.c_str(), nullptr, 0);
}

TrimSummary trimCache(llvm::StringRef Dir, uint64_t MaxBytes,
                      llvm::StringRef KeepPch, llvm::StringRef KeepResult) {
  TrimSummary S;
  std::vector<Item> Items;
  int64_t Now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  constexpr int64_t Hour = int64_t(3600) * 1000000000;

  // PCHs: pch/<key>.{pch,h,deps}, and <key>.pch.<random>.tmp and
  // <key>.lock while built.
  llvm::SmallString<256> PchDir(Dir);
  llvm::sys::path::append(PchDir, "pch");
  std::map<std::string, Item> Pchs;
  std::error_code EC;
  for (fs::directory_iterator It(PchDir, EC), End; It != End && !EC;
       It.increment(EC)) {
    struct stat St;
    if (::lstat(It->path().c_str(), &St) || !S_ISREG(St.st_mode))
      continue;
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    // A builder's claim: its owner removes it (AutoPch.cpp).
    if (Name.ends_with(".lock"))
      continue;
    if (Name.ends_with(".tmp")) {
      if (Now - mtimeNs(St) > Hour && !fs::remove(It->path())) {
        ++S.Leftovers;
        S.BytesFreed += St.st_size;
      }
      S.BytesBefore += St.st_size;
      continue;
    }
    llvm::StringRef Key = Name.split('.').first;
    Item &I = Pchs[Key.str()];
    I.IsPch = true;
    I.Paths.push_back(It->path());
    I.Bytes += St.st_size;
    // The .deps file's time is the last use; the others count until a
    // .deps is seen.
    if (Name.ends_with(".deps") || !I.Used)
      I.Used = mtimeNs(St);
    I.Keep |= !KeepPch.empty() && llvm::sys::path::stem(KeepPch) == Key;
  }
  for (auto &[Key, I] : Pchs)
    Items.push_back(std::move(I));

  // Results: results/xx/<rest of the key>.
  llvm::SmallString<256> ResultDir(Dir);
  llvm::sys::path::append(ResultDir, "results");
  for (fs::directory_iterator Sub(ResultDir, EC), End; Sub != End && !EC;
       Sub.increment(EC)) {
    std::error_code SubEC;
    for (fs::directory_iterator It(Sub->path(), SubEC); It != End && !SubEC;
         It.increment(SubEC)) {
      struct stat St;
      if (::lstat(It->path().c_str(), &St) || !S_ISREG(St.st_mode))
        continue;
      Item I;
      I.Paths.push_back(It->path());
      I.Bytes = St.st_size;
      I.Used = mtimeNs(St);
      I.Keep = It->path() == KeepResult;
      Items.push_back(std::move(I));
    }
  }

  for (const Item &I : Items)
    S.BytesBefore += I.Bytes;
  uint64_t Total = S.BytesBefore - S.BytesFreed;
  if (!MaxBytes || Total <= MaxBytes)
    return S;
  uint64_t Target = MaxBytes / 10 * 9;
  std::sort(Items.begin(), Items.end(),
            [](const Item &A, const Item &B) { return A.Used < B.Used; });
  for (const Item &I : Items) {
    if (Total <= Target)
      break;
    if (I.Keep)
      continue;
    // The dependency list first: without it a PCH is never used again,
    // even if removing the rest fails halfway.
    for (bool Deps : {true, false})
      for (const std::string &P : I.Paths)
        if (llvm::StringRef(P).ends_with(".deps") == Deps)
          fs::remove(P);
    Total -= I.Bytes;
    S.BytesFreed += I.Bytes;
    ++(I.IsPch ? S.Pchs : S.Results);
  }
  return S;
}

} // namespace torchtidy
