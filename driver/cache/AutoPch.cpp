//===--- AutoPch.cpp - libtorch-tidy --------------------------------------===//

#include "cache/AutoPch.h"
#include "support/AtomicWrite.h"
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
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include <chrono>
#include <optional>

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

} // namespace

std::string leadingLibTorchIncludes(llvm::StringRef Code) {
  Code.consume_front("\xEF\xBB\xBF");
  std::string Prefix;
  bool Torch = false, InComment = false;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Code.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    llvm::StringRef T = withoutBlockComments(Line, InComment);
    if (T.empty() || T.starts_with("//"))
      continue;
    if (!T.consume_front("#"))
      break;
    T = T.ltrim();
    if (T.starts_with("pragma once"))
      continue;
    std::optional<llvm::StringRef> Name = angledIncludeOf(T);
    if (!Name)
      break;
    Prefix += ("#include <" + *Name + ">\n").str();
    Torch |= isLibTorchHeader(*Name);
  }
  return Torch ? Prefix : "";
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

/// The leading LibTorch includes of \p Source, the text its PCH holds.
llvm::Expected<std::string> pchPrefixOf(llvm::StringRef Source) {
  if (!isCxxSource(Source))
    return noPch("not a C++ source file name");
  auto Code = llvm::MemoryBuffer::getFile(Source);
  if (!Code)
    return noPch("cannot read the file");
  std::string Prefix = leadingLibTorchIncludes((*Code)->getBuffer());
  if (Prefix.empty())
    return noPch("the file does not start with #include <...> lines that "
                 "include LibTorch");
  return Prefix;
}

/// The name of the PCH of \p Prefix with \p Flags, in \p Cmd's directory:
/// a hash of what decides its content.
std::string pchKey(const SourceCommand &Cmd,
                   const std::vector<std::string> &Flags,
                   llvm::StringRef Prefix) {
  llvm::SHA256 H;
  auto Add = [&](llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  };
  Add("libtorch-tidy-pch 1");
  Add(LLVM_VERSION_STRING);
  // The directory matters only to relative paths: without them, one PCH
  // serves every directory the same flags are used in.
  if (hasRelativePaths(Flags)) {
    llvm::SmallString<256> Dir(Cmd.Directory);
    fs::make_absolute(Dir);
    Add(Dir);
  }
  for (const std::string &F : Flags)
    Add(F);
  Add(Prefix);
  return llvm::toHex(H.final(), /*LowerCase=*/true);
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

} // namespace

llvm::Expected<PchUse> prepareAutoPch(const SourceCommand &Cmd,
                                      llvm::StringRef Source,
                                      llvm::StringRef CacheDir) {
  llvm::Expected<std::string> Prefix = pchPrefixOf(Source);
  if (!Prefix)
    return Prefix.takeError();
  llvm::Expected<std::vector<std::string>> Flags = pchFlags(Cmd, Source);
  if (!Flags)
    return Flags.takeError();
  llvm::SmallString<256> Base(CacheDir);
  llvm::sys::path::append(Base, "pch", pchKey(Cmd, *Flags, *Prefix));
  PchFiles Files{(Base + ".pch").str(), (Base + ".deps").str(),
                 (Base + ".h").str()};
  PchUse Use;
  Use.Path = Files.Pch;
  if (std::optional<std::vector<Dependency>> Deps = reusableDeps(Files)) {
    Use.Deps = std::move(*Deps);
    return Use;
  }
  auto Start = std::chrono::steady_clock::now();
  llvm::Expected<std::vector<Dependency>> Deps =
      buildPch(Cmd, *Flags, Files, *Prefix);
  if (!Deps)
    return Deps.takeError();
  Use.Deps = std::move(*Deps);
  Use.Built = true;
  Use.Seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  return Use;
}

} // namespace torchtidy
