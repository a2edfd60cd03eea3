//===--- AutoPch.cpp - libtorch-tidy --------------------------------------===//

#include "cache/AutoPch.h"
#include "support/AtomicWrite.h"
#include "support/FieldHash.h"
#include "support/TempFiles.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticLex.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <cerrno>
#include <chrono>
#include <optional>
#include <signal.h>
#include <thread>

using namespace clang;

namespace torchtidy {

namespace fs = llvm::sys::fs;

namespace {

llvm::Error noPch(const llvm::Twine &Why) {
  return llvm::createStringError(
      std::make_error_code(std::errc::operation_not_supported), Why);
}

std::unique_ptr<tooling::CompilationDatabase>
databaseFor(const CompileArgs &C, llvm::StringRef AbsSource) {
  std::string Error;
  if (C.Fixed)
    return std::make_unique<tooling::FixedCompilationDatabase>(".", *C.Fixed);
  if (C.BuildPath)
    return tooling::CompilationDatabase::autoDetectFromDirectory(*C.BuildPath,
                                                                 Error);
  return tooling::CompilationDatabase::autoDetectFromSource(AbsSource, Error);
}

} // namespace

llvm::Expected<SourceCommand>
compileCommandFor(const CompileArgs &C, llvm::StringRef Source) {
  llvm::SmallString<256> Abs(Source);
  fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  std::unique_ptr<tooling::CompilationDatabase> DB = databaseFor(C, Abs);
  if (!DB)
    return noPch("no compilation database");
  // As clang-tidy adds --extra-arg and --extra-arg-before.
  auto Adjusting =
      std::make_unique<tooling::ArgumentsAdjustingCompilations>(std::move(DB));
  Adjusting->appendArgumentsAdjuster(tooling::combineAdjusters(
      tooling::getInsertArgumentAdjuster(
          C.Before, tooling::ArgumentInsertPosition::BEGIN),
      tooling::getInsertArgumentAdjuster(
          C.After, tooling::ArgumentInsertPosition::END)));
  std::vector<tooling::CompileCommand> Commands =
      Adjusting->getCompileCommands(Abs);
  if (Commands.empty())
    return noPch("no compile command for the file");
  return SourceCommand{Commands.front().Directory,
                       Commands.front().CommandLine};
}

namespace {

/// \p Line, trimmed, without the block comments that start or (when
/// \p InComment) end on it; \p InComment tells whether one goes on after it.
llvm::StringRef withoutBlockComments(llvm::StringRef Line, bool &InComment) {
  llvm::StringRef T = Line.trim();
  if (InComment) {
    size_t End = T.find("*/");
    if (End == llvm::StringRef::npos)
      return "";
    InComment = false;
    T = T.drop_front(End + 2).trim();
  }
  if (T.starts_with("/*")) {
    size_t End = T.find("*/", 2);
    if (End == llvm::StringRef::npos) {
      InComment = true;
      return "";
    }
    T = T.drop_front(End + 2).trim();
  }
  return T;
}

/// The header name of \p T, a directive after its '#': "include <Name>" with
/// at most a line comment after it; std::nullopt for any other directive
/// (an absent include is a normal answer: the leading lines end there).
std::optional<llvm::StringRef> angledIncludeOf(llvm::StringRef T) {
  if (!T.consume_front("include"))
    return std::nullopt;
  T = T.ltrim();
  size_t Close = T.find('>');
  if (!T.starts_with("<") || Close == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef Rest = T.drop_front(Close + 1).trim();
  if (!Rest.empty() && !Rest.starts_with("//"))
    return std::nullopt;
  return T.slice(1, Close);
}

bool isLibTorchHeader(llvm::StringRef Name) {
  return Name.starts_with("torch/") || Name.starts_with("ATen/") ||
         Name.starts_with("c10/");
}

/// The name of \p T, a directive after its '#': `include "Name"` with at
/// most a line comment after it; std::nullopt otherwise.
std::optional<llvm::StringRef> quotedIncludeOf(llvm::StringRef T) {
  if (!T.consume_front("include"))
    return std::nullopt;
  T = T.ltrim();
  if (!T.consume_front("\""))
    return std::nullopt;
  size_t Close = T.find('"');
  if (Close == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef Rest = T.drop_front(Close + 1).trim();
  if (!Rest.empty() && !Rest.starts_with("//"))
    return std::nullopt;
  return T.take_front(Close);
}

/// The first word after a directive's keyword \p Keyword, or "".
llvm::StringRef directiveOperand(llvm::StringRef T, llvm::StringRef Keyword) {
  if (!T.consume_front(Keyword) || T.empty() || !llvm::isSpace(T.front()))
    return "";
  T = T.ltrim();
  return T.take_while([](char C) { return llvm::isAlnum(C) || C == '_'; });
}

/// How the scan of one file's leading lines ended.
enum class ScanEnd {
  Exhausted, ///< only includes, guards and comments: the includer goes on
  Torch,     ///< the first LibTorch header: the prefix is complete
  Code,      ///< anything else: no LibTorch header comes first
};

/// Collects the #include <...> lines a translation unit starts with, through
/// the project's own headers that hold nothing but includes before it.
class PrefixScanner {
public:
  /// \p QuoteDirs: the -iquote folders (the first \p QuoteCount), then the
  /// -I ones.
  PrefixScanner(std::vector<std::string> QuoteDirs, size_t QuoteCount,
                FileReader Read)
      : QuoteDirs(std::move(QuoteDirs)), QuoteCount(QuoteCount), Read(Read) {}

  ScanEnd scanFile(llvm::StringRef Path, unsigned Depth) {
    std::optional<std::string> Code = Read(Path);
    if (!Code || Depth > 16)
      return ScanEnd::Code;
    llvm::StringRef Text(*Code);
    Text.consume_front("\xEF\xBB\xBF");
    llvm::SmallVector<llvm::StringRef, 0> Lines;
    Text.split(Lines, '\n');
    FileState State{llvm::sys::path::parent_path(Path), Depth, {}, false};
    bool InComment = false;
    for (llvm::StringRef Line : Lines) {
      llvm::StringRef T = withoutBlockComments(Line, InComment);
      if (T.empty() || T.starts_with("//"))
        continue;
      if (!T.consume_front("#"))
        return ScanEnd::Code;
      ScanEnd End = scanDirective(T.ltrim(), State);
      if (End != ScanEnd::Exhausted)
        return End;
    }
    return ScanEnd::Exhausted;
  }

  std::string Prefix;

private:
  struct FileState {
    llvm::StringRef Dir;
    unsigned Depth;
    std::string Guard; ///< the #ifndef that may open an include guard
    bool Directives;   ///< a directive came before
  };

  /// One directive of a file's leading lines; Exhausted to go on.
  ScanEnd scanDirective(llvm::StringRef T, FileState &S) {
    bool First = !S.Directives;
    S.Directives = true;
    if (T.starts_with("pragma once"))
      return ScanEnd::Exhausted;
    // A header's include guard: its first #ifndef, then the #define.
    if (S.Depth > 0 && First && !directiveOperand(T, "ifndef").empty()) {
      S.Guard = directiveOperand(T, "ifndef").str();
      return ScanEnd::Exhausted;
    }
    if (!S.Guard.empty()) {
      bool Defines = directiveOperand(T, "define") == S.Guard;
      S.Guard.clear();
      return Defines ? ScanEnd::Exhausted : ScanEnd::Code;
    }
    if (std::optional<llvm::StringRef> Name = angledIncludeOf(T))
      return followAngled(*Name, S);
    if (std::optional<llvm::StringRef> Name = quotedIncludeOf(T))
      return followQuoted(*Name, S);
    return ScanEnd::Code;
  }

  ScanEnd addAngled(llvm::StringRef Name) {
    Prefix += ("#include <" + Name + ">\n").str();
    return isLibTorchHeader(Name) ? ScanEnd::Torch : ScanEnd::Exhausted;
  }

  /// An angled include: a project header in an -I folder is scanned in
  /// turn; LibTorch's and the system's are lines of the prefix.
  ScanEnd followAngled(llvm::StringRef Name, const FileState &S) {
    if (isLibTorchHeader(Name))
      return addAngled(Name);
    for (size_t I = QuoteCount; I < QuoteDirs.size(); ++I) {
      llvm::SmallString<256> Path(QuoteDirs[I]);
      llvm::sys::path::append(Path, Name);
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
      if (!fs::is_regular_file(Path))
        continue;
      if (!Entered.insert(Path).second)
        return ScanEnd::Exhausted;
      return scanFile(Path, S.Depth + 1);
    }
    // The C++ standard library before LibTorch is left to the file: its
    // headers are self-contained and guarded, and LibTorch's include them
    // itself, so files that differ only there share one PCH.
    if (isStandardLibraryName(Name))
      return ScanEnd::Exhausted;
    return addAngled(Name);
  }

  /// <vector>, <cstdio>: a name of the C++ standard library's form (no
  /// folder, no extension) that no -I folder holds.
  static bool isStandardLibraryName(llvm::StringRef Name) {
    return !Name.empty() && !Name.contains('/') && !Name.contains('.') &&
           llvm::all_of(Name, [](char C) {
             return llvm::isLower(C) || llvm::isDigit(C) || C == '_';
           });
  }

  /// A quoted include: a project header is scanned in turn; a LibTorch
  /// header that is not beside the includer is the angled one.
  ScanEnd followQuoted(llvm::StringRef Name, const FileState &S) {
    std::optional<QuotedFile> Found = findQuoted(Name, S.Dir);
    if (!Found)
      return isLibTorchHeader(Name) ? addAngled(Name) : ScanEnd::Code;
    if (isLibTorchHeader(Name) && !Found->BesideOrQuoted)
      return addAngled(Name);
    if (!Entered.insert(Found->Path).second)
      return ScanEnd::Exhausted;
    return scanFile(Found->Path, S.Depth + 1);
  }

  struct QuotedFile {
    std::string Path;
    bool BesideOrQuoted; ///< beside the includer or in an -iquote folder
  };

  /// Where `#include "Name"` in a file of \p Dir finds a file: beside it,
  /// then in the -iquote and -I folders in order.
  std::optional<QuotedFile> findQuoted(llvm::StringRef Name,
                                       llvm::StringRef Dir) const {
    // No folder: a text without a file, whose includes are not looked up.
    for (size_t I = Dir.empty() ? 1 : 0; I <= QuoteDirs.size(); ++I) {
      llvm::SmallString<256> Path(I == 0 ? Dir
                                         : llvm::StringRef(QuoteDirs[I - 1]));
      llvm::sys::path::append(Path, Name);
      llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
      if (fs::is_regular_file(Path) || (I == 0 && Read(Path)))
        return QuotedFile{Path.str().str(), I <= QuoteCount};
    }
    return std::nullopt;
  }

  std::vector<std::string> QuoteDirs;
  size_t QuoteCount;
  FileReader Read;
  llvm::StringSet<> Entered;
};

} // namespace

std::string leadingLibTorchIncludes(llvm::StringRef Code) {
  std::string Text = Code.str();
  auto Read = [&](llvm::StringRef Path) {
    return Path == "<source>" ? std::optional<std::string>(Text) : std::nullopt;
  };
  PrefixScanner Scanner({}, 0, Read);
  return Scanner.scanFile("<source>", 0) == ScanEnd::Torch ? Scanner.Prefix
                                                           : "";
}

namespace {

/// One include folder of a command line: where its flag starts, how many
/// arguments it takes, and the folder, absolute.
struct IncludeDirFlag {
  size_t First = 0, Count = 1;
  llvm::StringRef Kind;
  std::string Dir;
};

/// The include folders \p Flags name, in order.
std::vector<IncludeDirFlag>
includeDirFlags(const std::vector<std::string> &Flags,
                llvm::StringRef Directory) {
  static constexpr llvm::StringLiteral Kinds[] = {"-isystem",
                                                  "-iquote",
                                                  "-idirafter",
                                                  "--include-directory=",
                                                  "--include-directory",
                                                  "-I"};
  std::vector<IncludeDirFlag> Dirs;
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef F(Flags[I]);
    for (llvm::StringRef K : Kinds) {
      if (!F.starts_with(K))
        continue;
      IncludeDirFlag D;
      D.First = I;
      D.Kind = K.rtrim('=');
      llvm::StringRef Value = F.drop_front(K.size());
      if (Value.empty() && I + 1 < Flags.size()) {
        Value = Flags[I + 1];
        D.Count = 2;
      }
      llvm::SmallString<256> Abs(Value);
      fs::make_absolute(Directory, Abs);
      llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
      D.Dir = Abs.str().str();
      I += D.Count - 1;
      Dirs.push_back(std::move(D));
      break;
    }
  }
  return Dirs;
}

/// \p Path below \p Dir (no trailing separator), relative to it; std::nullopt
/// when it is not below it.
std::optional<llvm::StringRef> pathBelow(llvm::StringRef Path,
                                         llvm::StringRef Dir) {
  if (!Path.starts_with(Dir) || Path.size() <= Dir.size() ||
      Path[Dir.size()] != '/')
    return std::nullopt;
  return Path.drop_front(Dir.size() + 1);
}

std::string absoluteDirectory(const SourceCommand &Cmd) {
  llvm::SmallString<256> Dir(Cmd.Directory);
  fs::make_absolute(Dir);
  return Dir.str().str();
}

} // namespace

std::string libTorchPrefixOf(const SourceCommand &Cmd, llvm::StringRef Source,
                             FileReader Read) {
  std::string Dir = absoluteDirectory(Cmd);
  std::vector<IncludeDirFlag> Dirs = includeDirFlags(Cmd.CommandLine, Dir);
  // Quoted includes look in the -iquote folders, then in the -I ones.
  std::vector<std::string> QuoteDirs;
  for (const IncludeDirFlag &D : Dirs)
    if (D.Kind == "-iquote")
      QuoteDirs.push_back(D.Dir);
  size_t QuoteCount = QuoteDirs.size();
  for (const IncludeDirFlag &D : Dirs)
    if (D.Kind == "-I" || D.Kind == "--include-directory")
      QuoteDirs.push_back(D.Dir);
  llvm::SmallString<256> AbsSource(Source);
  fs::make_absolute(Dir, AbsSource);
  llvm::sys::path::remove_dots(AbsSource, /*remove_dot_dot=*/true);
  PrefixScanner Scanner(std::move(QuoteDirs), QuoteCount, Read);
  return Scanner.scanFile(AbsSource, 0) == ScanEnd::Torch ? Scanner.Prefix : "";
}

std::optional<std::string> readFromDisk(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return std::nullopt;
  return (*Buffer)->getBuffer().str();
}

namespace {

/// Whether a flag brings a precompiled header, a forced include or modules.
bool bringsPrecompiledCode(llvm::StringRef A) {
  return A == "-include-pch" || A == "-include" || A.starts_with("-include=") ||
         A == "--include" || A.starts_with("-fmodules") ||
         A.starts_with("-fmodule-file") || A == "-emit-ast";
}

bool isCxxSource(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".c++" ||
         Ext == ".C" || Ext == ".cp" || Ext == ".CPP";
}

/// The compile command's flags without the source, the output and what
/// only a compile needs; an error when they already bring a precompiled
/// header or modules.
llvm::Expected<std::vector<std::string>> pchFlags(const SourceCommand &Cmd,
                                                  llvm::StringRef Source) {
  std::vector<std::string> CL = tooling::getClangStripDependencyFileAdjuster()(
      tooling::getClangStripOutputAdjuster()(Cmd.CommandLine, Source), Source);
  llvm::SmallString<256> AbsSource(Source);
  fs::make_absolute(AbsSource);
  llvm::sys::path::remove_dots(AbsSource, true);
  std::vector<std::string> Flags;
  for (size_t I = 1; I < CL.size(); ++I) {
    llvm::StringRef A(CL[I]);
    if (bringsPrecompiledCode(A))
      return noPch("the compile command already uses '" + A + "'");
    if (A == "-c" || A == "-fsyntax-only" || A == "-S" || A == "-E")
      continue;
    llvm::SmallString<256> Path(A);
    if (!A.starts_with("-")) {
      fs::make_absolute(Cmd.Directory, Path);
      llvm::sys::path::remove_dots(Path, true);
      if (Path == AbsSource)
        continue;
    }
    Flags.push_back(A.str());
  }
  return Flags;
}

/// Whether a flag names a path relative to the compile command's directory.
bool hasRelativePaths(const std::vector<std::string> &Flags) {
  static constexpr llvm::StringLiteral PathFlags[] = {
      "-I", "-isystem", "-iquote", "-idirafter", "-F", "-iprefix",
      "--sysroot", "-isysroot", "-resource-dir", "-B"};
  for (size_t I = 0; I < Flags.size(); ++I) {
    llvm::StringRef F(Flags[I]);
    for (llvm::StringRef P : PathFlags) {
      if (!F.starts_with(P))
        continue;
      llvm::StringRef Value = F.drop_front(P.size());
      Value.consume_front("=");
      if (Value.empty() && I + 1 < Flags.size())
        Value = Flags[I + 1];
      if (!Value.empty() && !llvm::sys::path::is_absolute(Value))
        return true;
    }
  }
  return false;
}

/// Sees whether the probe's own #include was not found (a header it found
/// may itself miss one: that is found, as far as the probe goes).
class NotFoundConsumer : public DiagnosticConsumer {
public:
  bool NotFound = false;
  void HandleDiagnostic(DiagnosticsEngine::Level Level,
                        const Diagnostic &Info) override {
    DiagnosticConsumer::HandleDiagnostic(Level, Info);
    unsigned ID = Info.getID();
    if ((ID == diag::err_pp_file_not_found ||
         ID == diag::err_pp_file_not_found_angled_include_not_fatal ||
         ID == diag::err_pp_file_not_found_typo_not_fatal) &&
        Info.hasSourceManager() && Info.getLocation().isValid() &&
        Info.getSourceManager().isInMainFile(Info.getLocation()))
      NotFound = true;
  }
};

} // namespace

llvm::Expected<bool> includeIsFound(const SourceCommand &Cmd,
                                    llvm::StringRef Source,
                                    llvm::StringRef IncluderDir,
                                    llvm::StringRef Name, bool Angled) {
  llvm::Expected<std::vector<std::string>> Flags = pchFlags(Cmd, Source);
  if (!Flags)
    return Flags.takeError();
  // A file of its own in the includer's directory, so that a quoted
  // include looks there first as it did.
  llvm::SmallString<256> Probe(IncluderDir);
  llvm::sys::path::append(Probe, ".libtorch-tidy-probe" +
                                     llvm::sys::path::extension(Source));
  tooling::FixedCompilationDatabase DB(Cmd.Directory, *Flags);
  tooling::ClangTool Tool(DB, {Probe.str().str()});
  Tool.clearArgumentsAdjusters();
  std::string Text = ("#include " + llvm::Twine(Angled ? '<' : '"') + Name +
                      llvm::Twine(Angled ? '>' : '"') + "\n")
                         .str();
  Tool.mapVirtualFile(Probe, Text);
  NotFoundConsumer Diags;
  Tool.setDiagnosticConsumer(&Diags);
  int RC =
      Tool.run(tooling::newFrontendActionFactory<PreprocessOnlyAction>().get());
  if (Diags.NotFound)
    return false;
  // Errors, none of them about the include: the run did not happen.
  if (RC && !Diags.getNumErrors())
    return noPch("the header search did not run");
  return true;
}

namespace {

/// The leading LibTorch includes of \p Source's translation unit, the text
/// its PCH holds.
llvm::Expected<std::string> pchPrefixOf(const SourceCommand &Cmd,
                                        llvm::StringRef Source) {
  if (!isCxxSource(Source))
    return noPch("not a C++ source file name");
  if (!fs::exists(Source))
    return noPch("cannot read the file");
  std::string Prefix = libTorchPrefixOf(Cmd, Source, readFromDisk);
  if (Prefix.empty())
    return noPch("the file does not start with #include lines that "
                 "include LibTorch");
  return Prefix;
}

/// The headers \p Prefix reads with \p Flags, in order, absolute: clang's
/// own header search decides, in a preprocessing pass (a few percent of a
/// parse).
llvm::Expected<std::vector<std::string>>
prefixHeaders(const SourceCommand &Cmd, const std::vector<std::string> &Flags,
              llvm::StringRef Prefix, llvm::StringRef CacheDir) {
  llvm::SmallString<128> List;
  if (createRunTempFile("pch", "headers", List))
    return noPch("cannot write a temporary file");
  auto Cleanup = llvm::make_scope_exit([&] { fs::remove(List); });
  llvm::SmallString<256> Probe(CacheDir);
  fs::make_absolute(Probe);
  llvm::sys::path::append(Probe, "pch", ".libtorch-tidy-prefix.h");
  std::vector<std::string> Args = Flags;
  Args.insert(Args.end(),
              {"-x", "c++-header", "-Xclang", "-header-include-file", "-Xclang",
               List.str().str(), "-Xclang", "-sys-header-deps"});
  tooling::FixedCompilationDatabase DB(Cmd.Directory, Args);
  tooling::ClangTool Tool(DB, {Probe.str().str()});
  Tool.clearArgumentsAdjusters();
  Tool.mapVirtualFile(Probe, Prefix);
  IgnoringDiagConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  if (Tool.run(tooling::newFrontendActionFactory<PreprocessOnlyAction>().get()))
    return noPch("the LibTorch includes do not preprocess with these flags");
  auto Text = llvm::MemoryBuffer::getFile(List);
  if (!Text)
    return noPch("cannot read the header list");
  std::string Dir = absoluteDirectory(Cmd);
  std::vector<std::string> Headers;
  llvm::StringSet<> Seen;
  for (llvm::StringRef Line : headerListPaths((*Text)->getBuffer())) {
    llvm::SmallString<256> Path(Line);
    fs::make_absolute(Dir, Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
    if (Seen.insert(Path).second)
      Headers.push_back(Path.str().str());
  }
  if (Headers.empty())
    return noPch("the LibTorch includes read no header");
  return Headers;
}

/// \p Flags without the include folders that provide none of \p Headers:
/// every lookup that passed through one failed there, so without it each
/// finds the same file. A project's own -I folders then no longer split
/// one LibTorch configuration into a PCH per folder list.
std::vector<std::string>
withoutUnusedIncludeDirs(const std::vector<std::string> &Flags,
                         llvm::StringRef Directory,
                         const std::vector<std::string> &Headers) {
  std::vector<bool> Drop(Flags.size(), false);
  for (const IncludeDirFlag &D : includeDirFlags(Flags, Directory)) {
    llvm::StringRef Dir = llvm::StringRef(D.Dir).rtrim('/');
    bool Provides = llvm::any_of(Headers, [&](const std::string &H) {
      return pathBelow(H, Dir).has_value();
    });
    if (!Provides)
      std::fill_n(Drop.begin() + D.First, D.Count, true);
  }
  std::vector<std::string> Kept;
  for (size_t I = 0; I < Flags.size(); ++I)
    if (!Drop[I])
      Kept.push_back(Flags[I]);
  return Kept;
}

/// The name of the PCH of \p Prefix with \p Flags, in \p Cmd's directory:
/// a hash of what decides its content, the headers it reads included, so
/// that two commands share a PCH only when their headers are the same
/// files.
std::string pchKey(const SourceCommand &Cmd,
                   const std::vector<std::string> &Flags,
                   llvm::StringRef Prefix,
                   const std::vector<std::string> &Headers) {
  FieldHash H;
  H.add("libtorch-tidy-pch 2");
  H.add(LLVM_VERSION_STRING);
  // The directory matters only to relative paths: without them, one PCH
  // serves every directory the same flags are used in.
  if (hasRelativePaths(Flags))
    H.add(absoluteDirectory(Cmd));
  for (const std::string &F : Flags)
    H.add(F);
  H.add(Prefix);
  for (const std::string &Header : Headers)
    H.add(Header);
  return H.hex();
}

/// The files of one PCH in the cache: the PCH, its dependency list and the
/// header it is built from.
struct PchFiles {
  std::string Pch, DepsFile, Header;
};

/// The headers of a stored PCH, when it exists and none of them changed
/// (an absent or stale PCH is a normal answer: it is built again).
std::optional<std::vector<Dependency>> reusableDeps(const PchFiles &Files) {
  if (!fs::exists(Files.Pch))
    return std::nullopt;
  auto Text = llvm::MemoryBuffer::getFile(Files.DepsFile);
  if (!Text)
    return std::nullopt;
  llvm::Expected<std::vector<Dependency>> Deps =
      parseDependencies((*Text)->getBuffer());
  if (!Deps) {
    llvm::consumeError(Deps.takeError());
    return std::nullopt;
  }
  if (Deps->empty() || !llvm::all_of(*Deps, isUnchanged))
    return std::nullopt;
  return std::move(*Deps);
}

/// Builds the PCH of \p Files.Header with \p Flags; returns the headers in
/// it. It is built beside its final name and renamed there, so that
/// parallel runs never read a half-written one.
llvm::Expected<std::vector<Dependency>>
buildPch(const SourceCommand &Cmd, const std::vector<std::string> &Flags,
         const PchFiles &Files, llvm::StringRef Prefix) {
  fs::create_directories(llvm::sys::path::parent_path(Files.Pch));
  llvm::SmallString<256> TempPch, Headers;
  // The header is written only when it differs: a PCH records its mtime, so
  // rewriting the same text (a parallel run building the same PCH) would
  // make the other run's PCH stale.
  bool Failed = false;
  auto Old = llvm::MemoryBuffer::getFile(Files.Header);
  if (!Old || (*Old)->getBuffer() != Prefix) {
    llvm::Error Written = writeFileAtomically(Files.Header, Prefix);
    Failed = static_cast<bool>(Written);
    llvm::consumeError(std::move(Written));
  }
  if (Failed || fs::createUniqueFile(Files.Pch + ".%%%%%%%%.tmp", TempPch) ||
      createRunTempFile("pch", "headers", Headers))
    return noPch("cannot write to the cache directory");
  auto Cleanup = llvm::make_scope_exit([&] {
    fs::remove(TempPch);
    fs::remove(Headers);
  });
  std::vector<std::string> PchArgs = Flags;
  PchArgs.insert(PchArgs.end(),
                 {"-x", "c++-header", "-fpch-instantiate-templates", "-Xclang",
                  "-header-include-file", "-Xclang", Headers.str().str(),
                  "-Xclang", "-sys-header-deps", "-o", TempPch.str().str()});
  tooling::FixedCompilationDatabase DB(Cmd.Directory, PchArgs);
  tooling::ClangTool Tool(DB, {Files.Header});
  Tool.clearArgumentsAdjusters();
  IgnoringDiagConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  std::vector<Dependency> Deps;
  bool Built =
      !Tool.run(tooling::newFrontendActionFactory<GeneratePCHAction>().get());
  if (Built)
    Built = !llvm::errorToBool(readHeaderList(Headers, Deps)) && !Deps.empty();
  if (!Built)
    return noPch("the LibTorch includes do not precompile with these flags");
  if (fs::rename(TempPch, Files.Pch) ||
      llvm::errorToBool(
          writeFileAtomically(Files.DepsFile, serializeDependencies(Deps))))
    return noPch("cannot write to the cache directory");
  return Deps;
}

/// A builder's claim on one PCH: a lock file beside it that holds the
/// builder's process id, so that the runs sharing a cache build each PCH
/// once. A claim whose process is gone is taken over.
class BuildClaim {
public:
  explicit BuildClaim(std::string Path) : Path(std::move(Path)) {}
  BuildClaim(const BuildClaim &) = delete;
  BuildClaim &operator=(const BuildClaim &) = delete;
  ~BuildClaim() {
    if (Held)
      fs::remove(Path);
  }

  enum Outcome { Taken, HeldByAnother, Unavailable };

  /// Takes the claim; HeldByAnother while a live process holds it,
  /// Unavailable when no lock file can be written (the build goes on
  /// without one: its atomic rename keeps it correct).
  Outcome take() {
    for (int Try = 0; Try < 2; ++Try) {
      int FD = -1;
      std::error_code EC = fs::openFileForWrite(Path, FD, fs::CD_CreateNew);
      if (!EC) {
        llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
        OS << llvm::sys::Process::getProcessId() << "\n";
        Held = true;
        return Taken;
      }
      if (EC != std::errc::file_exists)
        return Unavailable;
      if (holderIsAlive())
        return HeldByAnother;
      fs::remove(Path);
    }
    return HeldByAnother;
  }

private:
  bool holderIsAlive() const {
    auto Text = llvm::MemoryBuffer::getFile(Path);
    if (!Text)
      return false; // released meanwhile
    unsigned Pid = 0;
    if (!(*Text)->getBuffer().trim().getAsInteger(10, Pid))
      return ::kill(static_cast<pid_t>(Pid), 0) == 0 || errno == EPERM;
    // No id yet: being written, unless that was long ago.
    fs::file_status Status;
    if (fs::status(Path, Status))
      return false;
    return std::chrono::system_clock::now() - Status.getLastModificationTime() <
           std::chrono::seconds(60);
  }

  std::string Path;
  bool Held = false;
};

/// A PCH that another run is building is waited for this long at most;
/// then this run builds its own.
constexpr std::chrono::minutes MaxWait(20);

} // namespace

namespace {

/// The PCH of \p Prefix for \p AllFlags by its key: the headers found by a
/// preprocessing pass decide which include folders count and which PCH it
/// is; found, built, or left to the run that is building it.
llvm::Expected<PchUse> keyedPch(const SourceCommand &Cmd,
                                const std::vector<std::string> &AllFlags,
                                llvm::StringRef Prefix,
                                llvm::StringRef CacheDir, PchBusy IfBusy) {
  llvm::Expected<std::vector<std::string>> Headers =
      prefixHeaders(Cmd, AllFlags, Prefix, CacheDir);
  if (!Headers)
    return Headers.takeError();
  std::vector<std::string> Flags =
      withoutUnusedIncludeDirs(AllFlags, absoluteDirectory(Cmd), *Headers);
  llvm::SmallString<256> Base(CacheDir);
  llvm::sys::path::append(Base, "pch", pchKey(Cmd, Flags, Prefix, *Headers));
  PchFiles Files{(Base + ".pch").str(), (Base + ".deps").str(),
                 (Base + ".h").str()};
  PchUse Use;
  Use.Path = Files.Pch;
  Use.Prefix = Prefix.str();
  // Whether the PCH is there and current; its headers go into Use.
  auto Reusable = [&] {
    std::optional<std::vector<Dependency>> Deps = reusableDeps(Files);
    if (Deps)
      Use.Deps = std::move(*Deps);
    return Deps.has_value();
  };
  if (Reusable())
    return Use;
  fs::create_directories(llvm::sys::path::parent_path(Files.Pch));
  BuildClaim Claim((Base + ".lock").str());
  auto Start = std::chrono::steady_clock::now();
  while (Claim.take() == BuildClaim::HeldByAnother &&
         std::chrono::steady_clock::now() - Start < MaxWait) {
    if (IfBusy == PchBusy::Skip) {
      Use.Busy = true;
      return Use;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (Reusable())
      return Use;
  }
  // Built by the holder of the claim just before this run took it.
  if (Reusable())
    return Use;
  Start = std::chrono::steady_clock::now();
  llvm::Expected<std::vector<Dependency>> Deps =
      buildPch(Cmd, Flags, Files, Prefix);
  if (!Deps)
    return Deps.takeError();
  Use.Deps = std::move(*Deps);
  Use.Built = true;
  Use.Seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  return Use;
}

/// Where the PCH of a compile command and prefix was last found: the file
/// that spares the preprocessing pass while nothing changed.
std::string planPath(const SourceCommand &Cmd,
                     const std::vector<std::string> &AllFlags,
                     llvm::StringRef Prefix, llvm::StringRef CacheDir) {
  FieldHash H;
  H.add("libtorch-tidy-pch-plan 1");
  H.add(LLVM_VERSION_STRING);
  H.add(Prefix);
  if (hasRelativePaths(AllFlags))
    H.add(absoluteDirectory(Cmd));
  for (const std::string &F : AllFlags)
    H.add(F);
  llvm::SmallString<256> Path(CacheDir);
  llvm::sys::path::append(Path, "pch", "plans", H.hex());
  return Path.str().str();
}

/// Whether an include folder of \p AllFlags holds a file by the name one of
/// \p Deps has under another (a header added since the plan was written
/// could be found instead of it).
bool mayBeShadowed(const std::vector<std::string> &AllFlags,
                   llvm::StringRef Directory,
                   const std::vector<Dependency> &Deps) {
  llvm::SmallVector<std::string, 8> Dirs;
  for (const IncludeDirFlag &D : includeDirFlags(AllFlags, Directory))
    if (!llvm::is_contained(Dirs, llvm::StringRef(D.Dir).rtrim('/')))
      Dirs.push_back(llvm::StringRef(D.Dir).rtrim('/').str());
  for (const Dependency &Dep : Deps) {
    llvm::SmallString<256> Abs(Dep.Path);
    fs::make_absolute(Directory, Abs);
    llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    llvm::StringRef H = Abs;
    for (const std::string &E : Dirs) {
      std::optional<llvm::StringRef> Rel = pathBelow(H, E);
      if (!Rel)
        continue;
      for (const std::string &Other : Dirs) {
        llvm::SmallString<256> P(Other);
        llvm::sys::path::append(P, *Rel);
        if (Other != E && fs::exists(P))
          return true;
      }
    }
  }
  return false;
}

/// The PCH a plan names, when it is still valid: none of its headers
/// changed and no include folder gained a header that could shadow one.
std::optional<PchUse> plannedPch(llvm::StringRef Plan,
                                 const std::vector<std::string> &AllFlags,
                                 llvm::StringRef Directory,
                                 llvm::StringRef Prefix) {
  auto Text = llvm::MemoryBuffer::getFile(Plan);
  if (!Text)
    return std::nullopt;
  llvm::StringRef Pch = (*Text)->getBuffer().trim();
  if (!Pch.ends_with(".pch"))
    return std::nullopt;
  llvm::StringRef Base = Pch.drop_back(4);
  PchFiles Files{Pch.str(), (Base + ".deps").str(), (Base + ".h").str()};
  std::optional<std::vector<Dependency>> Deps = reusableDeps(Files);
  if (!Deps || mayBeShadowed(AllFlags, Directory, *Deps))
    return std::nullopt;
  PchUse Use;
  Use.Path = Files.Pch;
  Use.Prefix = Prefix.str();
  Use.Deps = std::move(*Deps);
  return Use;
}

} // namespace

llvm::Expected<PchUse> prepareAutoPch(const SourceCommand &Cmd,
                                      llvm::StringRef Source,
                                      llvm::StringRef CacheDir,
                                      PchBusy IfBusy) {
  llvm::Expected<std::string> Prefix = pchPrefixOf(Cmd, Source);
  if (!Prefix)
    return Prefix.takeError();
  llvm::Expected<std::vector<std::string>> AllFlags = pchFlags(Cmd, Source);
  if (!AllFlags)
    return AllFlags.takeError();
  std::string Plan = planPath(Cmd, *AllFlags, *Prefix, CacheDir);
  if (std::optional<PchUse> Use =
          plannedPch(Plan, *AllFlags, absoluteDirectory(Cmd), *Prefix))
    return std::move(*Use);
  llvm::Expected<PchUse> Use =
      keyedPch(Cmd, *AllFlags, *Prefix, CacheDir, IfBusy);
  if (Use && !Use->Busy) {
    fs::create_directories(llvm::sys::path::parent_path(Plan));
    llvm::consumeError(writeFileAtomically(Plan, Use->Path + "\n"));
  }
  return Use;
}

} // namespace torchtidy
