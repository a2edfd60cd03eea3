//===--- JsonFields.h - libtorch-tidy-verify --------------------*- C++ -*-===//
//
// Reading JSON written by someone else (a report of another verifier, a
// SARIF log of another tool) without throwing: a field that is missing or
// of another type reads as nothing. Internal to the report library.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_JSONFIELDS_H
#define LIBTORCH_TIDY_VERIFY_JSONFIELDS_H

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>

namespace torchtidy {

/// \p J[Key], or null when \p J is no object or has no such key.
inline const nlohmann::json *field(const nlohmann::json &J, const char *Key) {
  if (!J.is_object())
    return nullptr;
  auto It = J.find(Key);
  return It == J.end() ? nullptr : &*It;
}

/// The string at \p Key, or "".
inline std::string text(const nlohmann::json &J, const char *Key) {
  const nlohmann::json *F = field(J, Key);
  return F && F->is_string() ? F->get<std::string>() : std::string();
}

/// The finite number at \p Key.
inline std::optional<double> number(const nlohmann::json &J, const char *Key) {
  const nlohmann::json *F = field(J, Key);
  if (!F || !F->is_number())
    return std::nullopt;
  double V = F->get<double>();
  if (!std::isfinite(V))
    return std::nullopt;
  return V;
}

/// The integer at \p Key.
inline std::optional<long long> integer(const nlohmann::json &J,
                                        const char *Key) {
  const nlohmann::json *F = field(J, Key);
  if (!F || !F->is_number_integer())
    return std::nullopt;
  return F->get<long long>();
}

/// The boolean at \p Key.
inline std::optional<bool> boolean(const nlohmann::json &J, const char *Key) {
  const nlohmann::json *F = field(J, Key);
  if (!F || !F->is_boolean())
    return std::nullopt;
  return F->get<bool>();
}

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_JSONFIELDS_H
