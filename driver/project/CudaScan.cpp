//===--- CudaScan.cpp - libtorch-tidy -------------------------------------===//

#include "project/CudaScan.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace torchtidy {

namespace {

clang::LangOptions cxxOptions() {
  clang::LangOptions LO;
  LO.CPlusPlus = LO.CPlusPlus11 = LO.CPlusPlus14 = LO.CPlusPlus17 = true;
  return LO;
}

/// The text of a string literal token without its prefix and quotes.
llvm::StringRef literalText(const clang::Token &Tok) {
  llvm::StringRef Text(Tok.getLiteralData(), Tok.getLength());
  size_t Quote = Text.find('"');
  if (Quote == llvm::StringRef::npos)
    return "";
  return Text.drop_front(Quote + 1).drop_back();
}

bool isIdentifier(const clang::Token &Tok, llvm::StringRef Name) {
  return Tok.is(tok::raw_identifier) && Tok.getRawIdentifier() == Name;
}

/// Calls \p Fn with every token of \p Text and the two before it; stops
/// when \p Fn returns true, and returns that.
template <typename Fn> bool anyToken(llvm::StringRef Text, Fn &&Check) {
  clang::LangOptions LO = cxxOptions();
  clang::Lexer Lex(clang::SourceLocation(), LO, Text.begin(), Text.begin(),
                   Text.end());
  clang::Token Before, Prev, Tok;
  Before.startToken();
  Prev.startToken();
  while (true) {
    bool End = Lex.LexFromRawLexer(Tok);
    if (Check(Before, Prev, Tok))
      return true;
    if (End || Tok.is(tok::eof))
      return false;
    Before = Prev;
    Prev = Tok;
  }
}

/// The file names of the `#include "..."` lines of \p Text.
std::vector<std::string> quotedIncludes(llvm::StringRef Text) {
  std::vector<std::string> Names;
  anyToken(Text, [&](const clang::Token &Before, const clang::Token &Prev,
                     const clang::Token &Tok) {
    if (Tok.is(tok::string_literal) && Before.is(tok::hash) &&
        isIdentifier(Prev, "include"))
      Names.push_back(literalText(Tok).str());
    return false;
  });
  return Names;
}

} // namespace

bool selectsCuda(llvm::StringRef Text) {
  bool CudaCall = false; // `.cuda` or `->cuda` seen: a `(` makes it a call
  return anyToken(Text, [&](const clang::Token &Before,
                            const clang::Token &Prev, const clang::Token &Tok) {
    if (CudaCall && Tok.is(tok::l_paren))
      return true;
    CudaCall =
        isIdentifier(Tok, "cuda") && Prev.isOneOf(tok::period, tok::arrow);
    if (isIdentifier(Tok, "kCUDA"))
      return true;
    if (isIdentifier(Tok, "CUDA") && Prev.is(tok::coloncolon))
      return true;
    if (isIdentifier(Tok, "is_available") && Prev.is(tok::coloncolon) &&
        isIdentifier(Before, "cuda"))
      return true;
    // A string, not the file name of an #include.
    return Tok.is(tok::string_literal) && !isIdentifier(Prev, "include") &&
           literalText(Tok).starts_with("cuda");
  });
}

namespace {

/// Identifiers that mark a main() as a test or benchmark framework's runner.
bool isRunnerName(llvm::StringRef Name) {
  return llvm::is_contained({"doctest", "Catch", "testing", "benchmark",
                             "RUN_ALL_TESTS", "unit_test", "unit_test_main"},
                            Name);
}

/// Reads the raw tokens of a file for a main() definition at file scope.
class MainScanner {
public:
  explicit MainScanner(llvm::StringRef Text)
      : LO(cxxOptions()), Lex(clang::SourceLocation(), LO, Text.begin(),
                              Text.begin(), Text.end()) {}

  /// Whether the text defines a main() whose body names no runner.
  bool definesProgram() {
    clang::Token Prev;
    Prev.startToken();
    unsigned Depth = 0;
    clang::Token Tok;
    while (next(Tok)) {
      if (Tok.is(tok::l_brace))
        ++Depth;
      else if (Tok.is(tok::r_brace) && Depth)
        --Depth;
      else if (Depth == 0 && isIdentifier(Tok, "main") &&
               (isIdentifier(Prev, "int") || isIdentifier(Prev, "auto"))) {
        std::optional<bool> Runner = mainBody();
        if (Runner && !*Runner)
          return true;
      }
      Prev = Tok;
    }
    return false;
  }

private:
  bool next(clang::Token &Tok) {
    return !Lex.LexFromRawLexer(Tok) || Tok.isNot(tok::eof);
  }

  /// After `main`: whether the definition's body names a runner; nullopt
  /// for a declaration or something else.
  std::optional<bool> mainBody() {
    clang::Token Tok;
    if (!next(Tok) || Tok.isNot(tok::l_paren))
      return std::nullopt;
    for (unsigned Parens = 1; Parens && next(Tok);)
      Parens += Tok.is(tok::l_paren) ? 1 : Tok.is(tok::r_paren) ? -1 : 0;
    // A trailing return type or noexcept may come before the body.
    while (next(Tok) && !Tok.isOneOf(tok::l_brace, tok::semi, tok::eof))
      ;
    if (Tok.isNot(tok::l_brace))
      return std::nullopt;
    bool Runner = false;
    for (unsigned Braces = 1; Braces && next(Tok);) {
      Braces += Tok.is(tok::l_brace) ? 1 : Tok.is(tok::r_brace) ? -1 : 0;
      Runner |=
          Tok.is(tok::raw_identifier) && isRunnerName(Tok.getRawIdentifier());
    }
    return Runner;
  }

  clang::LangOptions LO;
  clang::Lexer Lex;
};

/// The text of \p Path when it is a readable regular file: reading a named
/// pipe would block the run.
llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
regularFileText(llvm::StringRef Path) {
  if (!llvm::sys::fs::is_regular_file(Path))
    return llvm::errc::invalid_argument;
  return llvm::MemoryBuffer::getFile(Path);
}

/// The files \p Text includes with quotes, found next to \p Path.
std::vector<std::string> quotedIncludePaths(llvm::StringRef Path,
                                            llvm::StringRef Text) {
  std::vector<std::string> Paths;
  for (const std::string &Name : quotedIncludes(Text)) {
    llvm::SmallString<256> Header(llvm::sys::path::parent_path(Path));
    llvm::sys::path::append(Header, Name);
    llvm::sys::path::remove_dots(Header, /*remove_dot_dot=*/true);
    Paths.push_back(Header.str().str());
  }
  return Paths;
}

} // namespace

bool definesProgram(llvm::StringRef Text) {
  return MainScanner(Text).definesProgram();
}

llvm::Expected<ProjectScan> scanProject(const std::vector<std::string> &Files) {
  ProjectScan Scan;
  llvm::StringSet<> Seen;
  std::vector<std::pair<std::string, bool>> Queue; // path, from the database
  for (const std::string &F : Files)
    Queue.push_back({F, true});
  while (!Queue.empty()) {
    auto [Path, Listed] = Queue.back();
    Queue.pop_back();
    if (!Seen.insert(Path).second)
      continue;
    auto Buffer = regularFileText(Path);
    if (!Buffer && Listed)
      return llvm::createStringError(Buffer.getError(),
                                     "cannot read '" + Path + "'");
    if (!Buffer)
      continue; // an include found elsewhere on the include path
    llvm::StringRef Text = (*Buffer)->getBuffer();
    Scan.SelectsCuda = Scan.SelectsCuda || selectsCuda(Text);
    Scan.HasProgram = Scan.HasProgram || definesProgram(Text);
    if (Scan.SelectsCuda && Scan.HasProgram)
      return Scan;
    for (std::string &Header : quotedIncludePaths(Path, Text))
      Queue.push_back({std::move(Header), false});
  }
  return Scan;
}

} // namespace torchtidy
