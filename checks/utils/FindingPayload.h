//===--- FindingPayload.h - libtorch-tidy -----------------------*- C++ -*-===//
//
// What the runtime verifier needs to rebuild a finding's code, read from the
// AST next to the diagnostic: the code unit (the statement, or the loop for
// loop checks), its free variables with their types, the literal shapes,
// dtypes and devices in it, a constant trip count, and the constructions of
// the modules and optimizers it uses. Checks record one per diagnostic; the
// libtorch-tidy driver writes them into --export-findings.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_UTILS_FINDINGPAYLOAD_H
#define LIBTORCH_TIDY_CHECKS_UTILS_FINDINGPAYLOAD_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace clang {
class ASTContext;
class Stmt;
} // namespace clang

namespace clang::tidy::torch::utils {

struct FindingPayload {
  std::string Check;
  /// Where the diagnostic is, as clang-tidy exports it.
  std::string File;
  unsigned Offset = 0;
  /// "statement" or "loop", and its bytes in File.
  std::string Unit;
  unsigned UnitBegin = 0, UnitEnd = 0;
  /// Name and C++ type of each variable used in the unit but declared
  /// outside it.
  std::vector<std::pair<std::string, std::string>> FreeVariables;
  /// Literal shapes (`{4, 8}`), dtypes (`kFloat`) and devices (`kCUDA`).
  std::vector<std::string> Shapes, Dtypes, Devices;
  std::optional<int64_t> TripCount;
  /// For free variables that are modules or optimizers built in the same
  /// function: name and the source of their construction.
  std::vector<std::pair<std::string, std::string>> Constructions;
  /// Name and C++ type of the variables a statement unit declares: the
  /// verifier compares them between the code before and after the fix.
  std::vector<std::pair<std::string, std::string>> Declarations;
};

/// Turns recording on; the driver does it for --export-findings.
void enablePayloads();
bool payloadsEnabled();

/// Records the payload of the diagnostic of \p Check at \p DiagLoc, whose
/// code unit is \p Unit. Does nothing unless enabled.
void recordPayload(llvm::StringRef Check, SourceLocation DiagLoc,
                   const Stmt *Unit, bool IsLoop, ASTContext &Ctx);

/// recordPayload() for the statement (in its block) that contains \p Inner.
void recordStatementPayload(llvm::StringRef Check, SourceLocation DiagLoc,
                            const Stmt *Inner, ASTContext &Ctx);

/// The payloads recorded so far.
const std::vector<FindingPayload> &recordedPayloads();

/// Adds payloads recorded elsewhere: by the analysis child of a cached run,
/// or stored with a cached result.
void addRecordedPayloads(std::vector<FindingPayload> More);

} // namespace clang::tidy::torch::utils

#endif // LIBTORCH_TIDY_CHECKS_UTILS_FINDINGPAYLOAD_H
