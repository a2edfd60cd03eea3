//===--- FieldHash.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// A SHA-256 of a list of fields, each ended by a NUL so that no two lists of
// fields hash alike: the keys of the result cache, the PCHs and the project
// index.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_FIELDHASH_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_FIELDHASH_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"
#include <string>

namespace torchtidy {

class FieldHash {
public:
  void add(llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  }
  /// The hash in lowercase hex; ends the hash.
  std::string hex() { return llvm::toHex(H.final(), /*LowerCase=*/true); }

private:
  llvm::SHA256 H;
};

/// The FieldHash of \p Fields.
inline std::string hashFields(llvm::ArrayRef<std::string> Fields) {
  FieldHash H;
  for (const std::string &F : Fields)
    H.add(F);
  return H.hex();
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_FIELDHASH_H
