//===--- CacheTrim.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// The cache stays under a size limit: a PCH of torch.h is over 100 MB and
// each new set of flags or leading includes makes one, so without a limit
// the cache would grow with every configuration a user ever ran. The least
// recently used results and PCHs go first.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_CACHE_CACHETRIM_H
#define LIBTORCH_TIDY_DRIVER_CACHE_CACHETRIM_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace torchtidy {

/// The default limit: 5 GiB, about forty PCHs of Debian's torch.h.
inline constexpr uint64_t DefaultCacheMaxBytes = uint64_t(5) << 30;

/// "5G", "500M", "64K" (powers of 1024) or a number of bytes; 0 means no
/// limit. An error when malformed.
llvm::Expected<uint64_t> parseByteSize(llvm::StringRef Text);

/// $LIBTORCH_TIDY_CACHE_MAX_SIZE, else DefaultCacheMaxBytes; an error when
/// the variable is malformed.
llvm::Expected<uint64_t> defaultCacheMaxBytes();

/// Marks a result entry or a PCH (its .deps file) used now: the order in
/// which trimCache removes them.
void markCacheItemUsed(llvm::StringRef Path);

struct TrimSummary {
  uint64_t BytesBefore = 0;
  unsigned Pchs = 0, Results = 0, Leftovers = 0; // removed
  uint64_t BytesFreed = 0;
};

/// When the cache under \p Dir holds more than \p MaxBytes, removes the
/// least recently used results and PCHs until it holds at most 90% of it,
/// never \p KeepPch (a PCH path) nor \p KeepResult (an entry path), which
/// this run uses. Always removes PCHs half-built by a run killed over an
/// hour ago.
TrimSummary trimCache(llvm::StringRef Dir, uint64_t MaxBytes,
                      llvm::StringRef KeepPch, llvm::StringRef KeepResult);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_CACHE_CACHETRIM_H
