//===--- ErrorOr.h - libtorch-tidy-verify -----------------------*- C++ -*-===//
//
// A value or the one-line error that kept it from being made: how the
// verifier's option parsing, report reading and merging report failure.
// (runtime-verify links no LLVM, so llvm::Expected is not available here.)
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_ERROROR_H
#define LIBTORCH_TIDY_VERIFY_ERROROR_H

#include <string>
#include <utility>
#include <variant>

namespace torchtidy {

/// A one-line error message, for the user.
struct Failure {
  std::string Message;
};

template <typename T> class ErrorOr {
public:
  ErrorOr(T Value) : Storage(std::move(Value)) {}
  ErrorOr(Failure Error) : Storage(std::move(Error)) {}

  explicit operator bool() const { return Storage.index() == 0; }
  T &operator*() { return std::get<0>(Storage); }
  const T &operator*() const { return std::get<0>(Storage); }
  T *operator->() { return &std::get<0>(Storage); }
  const T *operator->() const { return &std::get<0>(Storage); }
  /// The error; only when there is no value.
  const std::string &error() const { return std::get<1>(Storage).Message; }

private:
  std::variant<T, Failure> Storage;
};

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_ERROROR_H
