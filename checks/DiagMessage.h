//===--- DiagMessage.h - libtorch-tidy --------------------------*- C++ -*-===//
//
// A diagnostic message put together from pieces: constant text, which makes
// the format string, and user text (names of modules, variables, source
// text), which goes in only as %N arguments. A name such as `bn%1%0` is thus
// printed as written, however the message is assembled.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_CHECKS_DIAGMESSAGE_H
#define LIBTORCH_TIDY_CHECKS_DIAGMESSAGE_H

#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace clang::tidy::torch {

class DiagMessage {
public:
  DiagMessage() = default;

  /// Appends constant text: part of the format string.
  DiagMessage &text(const char *Constant) {
    Pieces.push_back({/*IsArg=*/false, Constant});
    return *this;
  }
  /// Appends user text: an argument of the format string.
  DiagMessage &arg(llvm::StringRef User) {
    Pieces.push_back({/*IsArg=*/true, User.str()});
    return *this;
  }
  /// Appends user text in single quotes.
  DiagMessage &quoted(llvm::StringRef User) {
    return text("'").arg(User).text("'");
  }
  DiagMessage &append(const DiagMessage &Other) {
    Pieces.insert(Pieces.end(), Other.Pieces.begin(), Other.Pieces.end());
    return *this;
  }
  bool empty() const { return Pieces.empty(); }

  /// The format string, with the arguments in \p Args. A diagnostic takes
  /// ten arguments at most: what would come after the tenth is folded into
  /// it, user text still an argument.
  std::string format(std::vector<std::string> &Args) const {
    constexpr size_t MaxArgs = 10;
    std::string Format;
    for (const Piece &P : Pieces) {
      if (Args.size() == MaxArgs) {
        Args.back() += P.Text;
        continue;
      }
      if (P.IsArg) {
        Format += "%" + std::to_string(Args.size());
        Args.push_back(P.Text);
        continue;
      }
      for (char C : P.Text)
        Format += C == '%' ? std::string("%%") : std::string(1, C);
    }
    return Format;
  }

private:
  struct Piece {
    bool IsArg;
    std::string Text;
  };
  std::vector<Piece> Pieces;
};

} // namespace clang::tidy::torch

#endif // LIBTORCH_TIDY_CHECKS_DIAGMESSAGE_H
