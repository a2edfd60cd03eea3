//===--- PayloadIO.h - libtorch-tidy ----------------------------*- C++ -*-===//
//
// The AST payloads the checks record with their findings (FindingPayload),
// carried between processes as JSON: from an analysis child to its parent,
// and into and out of the result cache. They are the checks' data in
// transit, not an export: the findings JSON reads them from memory.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_DRIVER_SUPPORT_PAYLOADIO_H
#define LIBTORCH_TIDY_DRIVER_SUPPORT_PAYLOADIO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace torchtidy {

/// The payloads recorded in this process as JSON.
std::string serializePayloads();

/// Adds the payloads of serializePayloads() \p Text to this process's;
/// nothing when the text is malformed, which the error says.
llvm::Error loadPayloads(llvm::StringRef Text);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_DRIVER_SUPPORT_PAYLOADIO_H
