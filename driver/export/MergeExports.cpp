//===--- MergeExports.cpp - libtorch-tidy ---------------------------------===//

#include "export/MergeExports.h"
#include "export/FindingsExport.h"
#include "llvm/Support/JSON.h"
#include <optional>

namespace torchtidy {

namespace {

/// \p Text parsed, when it is a JSON object.
std::optional<llvm::json::Value> objectOf(llvm::StringRef Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V) {
    // A child that failed wrote nothing or half: its file adds nothing.
    llvm::consumeError(V.takeError());
    return std::nullopt;
  }
  if (!V->getAsObject())
    return std::nullopt;
  return std::move(*V);
}

/// The results array of the first run of a SARIF log, or null.
llvm::json::Array *firstRunResults(llvm::json::Value &Log) {
  llvm::json::Array *Runs = Log.getAsObject()->getArray("runs");
  if (!Runs || Runs->empty() || !(*Runs)[0].getAsObject())
    return nullptr;
  return (*Runs)[0].getAsObject()->getArray("results");
}

bool hasRuns(llvm::json::Value &Log) {
  llvm::json::Array *Runs = Log.getAsObject()->getArray("runs");
  return Runs && !Runs->empty();
}

} // namespace

llvm::Error mergeFindings(llvm::ArrayRef<std::string> Documents,
                          llvm::StringRef Output) {
  llvm::json::Array All;
  for (const std::string &Text : Documents) {
    std::optional<llvm::json::Value> V = objectOf(Text);
    if (!V)
      continue;
    if (llvm::json::Array *Findings = V->getAsObject()->getArray("findings"))
      for (llvm::json::Value &Item : *Findings)
        All.push_back(std::move(Item));
  }
  return writeFindings(Output, std::move(All));
}

llvm::Error mergeSarif(llvm::ArrayRef<std::string> Logs,
                       llvm::StringRef Output) {
  std::optional<llvm::json::Value> Merged;
  for (const std::string &Text : Logs) {
    std::optional<llvm::json::Value> V = objectOf(Text);
    if (!V || !hasRuns(*V))
      continue;
    if (!Merged) {
      Merged = std::move(*V);
      continue;
    }
    llvm::json::Array *Results = firstRunResults(*V);
    llvm::json::Array *Into = firstRunResults(*Merged);
    if (Results && Into)
      for (llvm::json::Value &R : *Results)
        Into->push_back(std::move(R));
  }
  if (!Merged)
    return llvm::createStringError(
        std::make_error_code(std::errc::no_message_available),
        "no SARIF from the analysis");
  return writeJsonAtomically(Output, std::move(*Merged));
}

} // namespace torchtidy
