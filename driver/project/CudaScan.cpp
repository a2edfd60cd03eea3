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

llvm::Expected<bool>
projectSelectsCuda(const std::vector<std::string> &Files) {
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
    if (selectsCuda(Text))
      return true;
    for (std::string &Header : quotedIncludePaths(Path, Text))
      Queue.push_back({std::move(Header), false});
  }
  return false;
}

} // namespace torchtidy
