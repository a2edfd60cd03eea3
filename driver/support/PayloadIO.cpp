//===--- PayloadIO.cpp - libtorch-tidy ------------------------------------===//

#include "support/PayloadIO.h"
#include "utils/FindingPayload.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <utility>
#include <vector>

namespace torchtidy {
namespace utils = clang::tidy::torch::utils;

namespace {

using StringPairs = std::vector<std::pair<std::string, std::string>>;

llvm::json::Array pairsToJson(const StringPairs &Pairs) {
  llvm::json::Array A;
  for (const auto &[First, Second] : Pairs)
    A.push_back(llvm::json::Array{First, Second});
  return A;
}

bool pairsFromJson(const llvm::json::Array *A, StringPairs &Out) {
  if (!A)
    return false;
  for (const llvm::json::Value &V : *A) {
    const llvm::json::Array *P = V.getAsArray();
    if (!P || P->size() != 2 || !(*P)[0].getAsString() ||
        !(*P)[1].getAsString())
      return false;
    Out.emplace_back((*P)[0].getAsString()->str(),
                     (*P)[1].getAsString()->str());
  }
  return true;
}

bool stringsFromJson(const llvm::json::Array *A,
                     std::vector<std::string> &Out) {
  if (!A)
    return false;
  for (const llvm::json::Value &V : *A) {
    if (!V.getAsString())
      return false;
    Out.push_back(V.getAsString()->str());
  }
  return true;
}

bool stringFromJson(const llvm::json::Object &O, llvm::StringRef Key,
                    std::string &Out) {
  std::optional<llvm::StringRef> S = O.getString(Key);
  if (S)
    Out = S->str();
  return S.has_value();
}

bool numberFromJson(const llvm::json::Object &O, llvm::StringRef Key,
                    unsigned &Out) {
  std::optional<int64_t> N = O.getInteger(Key);
  if (N)
    Out = static_cast<unsigned>(*N);
  return N.has_value();
}

llvm::json::Object payloadToJson(const utils::FindingPayload &P) {
  llvm::json::Object O{
      {"check", P.Check},
      {"file", P.File},
      {"offset", P.Offset},
      {"unit", P.Unit},
      {"unitBegin", P.UnitBegin},
      {"unitEnd", P.UnitEnd},
      {"free", pairsToJson(P.FreeVariables)},
      {"shapes", llvm::json::Array(P.Shapes)},
      {"dtypes", llvm::json::Array(P.Dtypes)},
      {"devices", llvm::json::Array(P.Devices)},
      {"constructions", pairsToJson(P.Constructions)},
      {"declarations", pairsToJson(P.Declarations)},
  };
  if (P.TripCount)
    O["trips"] = *P.TripCount;
  return O;
}

/// The payload \p O holds; false when a member is missing or mistyped.
bool payloadFromJson(const llvm::json::Object &O, utils::FindingPayload &P) {
  if (!stringFromJson(O, "check", P.Check) ||
      !stringFromJson(O, "file", P.File) ||
      !stringFromJson(O, "unit", P.Unit) ||
      !numberFromJson(O, "offset", P.Offset) ||
      !numberFromJson(O, "unitBegin", P.UnitBegin) ||
      !numberFromJson(O, "unitEnd", P.UnitEnd) ||
      !pairsFromJson(O.getArray("free"), P.FreeVariables) ||
      !stringsFromJson(O.getArray("shapes"), P.Shapes) ||
      !stringsFromJson(O.getArray("dtypes"), P.Dtypes) ||
      !stringsFromJson(O.getArray("devices"), P.Devices) ||
      !pairsFromJson(O.getArray("constructions"), P.Constructions) ||
      !pairsFromJson(O.getArray("declarations"), P.Declarations))
    return false;
  P.TripCount = O.getInteger("trips");
  return true;
}

llvm::Error malformed(const llvm::Twine &Why) {
  return llvm::createStringError(
      std::make_error_code(std::errc::invalid_argument),
      "malformed payloads: " + Why);
}

} // namespace

std::string serializePayloads() {
  llvm::json::Array All;
  for (const utils::FindingPayload &P : utils::recordedPayloads())
    All.push_back(payloadToJson(P));
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(std::move(All));
  return Text;
}

llvm::Error loadPayloads(llvm::StringRef Text) {
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  if (!V)
    return malformed(llvm::toString(V.takeError()));
  const llvm::json::Array *All = V->getAsArray();
  if (!All)
    return malformed("not an array");
  std::vector<utils::FindingPayload> Loaded;
  for (const llvm::json::Value &Item : *All) {
    const llvm::json::Object *O = Item.getAsObject();
    utils::FindingPayload P;
    if (!O || !payloadFromJson(*O, P))
      return malformed("payload " + llvm::Twine(Loaded.size()));
    Loaded.push_back(std::move(P));
  }
  utils::addRecordedPayloads(std::move(Loaded));
  return llvm::Error::success();
}

} // namespace torchtidy
