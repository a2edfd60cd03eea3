//===--- AutoPch.cpp - libtorch-tidy --------------------------------------===//

#include "cache/AutoPch.h"
#include "export/FindingsExport.h"
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

using namespace clang;

namespace torchtidy {

namespace fs = llvm::sys::fs;

std::optional<SourceCommand>
compileCommandFor(const std::vector<std::string> &Args, llvm::StringRef Source,
                  std::string &Why) {
  std::optional<std::string> BuildPath;
  std::optional<std::vector<std::string>> Fixed;
  std::vector<std::string> Before, After;
  for (size_t I = 0; I < Args.size(); ++I) {
    llvm::StringRef A(Args[I]);
    if (A == "--") {
      Fixed.emplace(Args.begin() + I + 1, Args.end());
      break;
    }
    if (!A.consume_front("-"))
      continue;
    A.consume_front("-");
    auto Value = [&](llvm::StringRef Name) -> std::optional<std::string> {
      llvm::StringRef Rest = A;
      if (!Rest.consume_front(Name))
        return std::nullopt;
      if (Rest.consume_front("="))
        return Rest.str();
      if (Rest.empty() && I + 1 < Args.size())
        return Args[++I];
      return std::nullopt;
    };
    if (auto V = Value("extra-arg-before"))
      Before.push_back(*V);
    else if (auto V = Value("extra-arg"))
      After.push_back(*V);
    else if (A == "p" || A.starts_with("p="))
      BuildPath = Value("p");
  }

  llvm::SmallString<256> Abs(Source);
  fs::make_absolute(Abs);
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  std::string Error;
  std::unique_ptr<tooling::CompilationDatabase> DB;
  if (Fixed)
    DB = std::make_unique<tooling::FixedCompilationDatabase>(".", *Fixed);
  else if (BuildPath)
    DB = tooling::CompilationDatabase::autoDetectFromDirectory(*BuildPath,
                                                               Error);
  else
    DB = tooling::CompilationDatabase::autoDetectFromSource(Abs, Error);
  if (!DB) {
    Why = "no compilation database";
    return std::nullopt;
  }
  // As clang-tidy adds --extra-arg and --extra-arg-before.
  auto Adjusting =
      std::make_unique<tooling::ArgumentsAdjustingCompilations>(std::move(DB));
  Adjusting->appendArgumentsAdjuster(tooling::combineAdjusters(
      tooling::getInsertArgumentAdjuster(
          Before, tooling::ArgumentInsertPosition::BEGIN),
      tooling::getInsertArgumentAdjuster(
          After, tooling::ArgumentInsertPosition::END)));
  std::vector<tooling::CompileCommand> Commands =
      Adjusting->getCompileCommands(Abs);
  if (Commands.empty()) {
    Why = "no compile command for the file";
    return std::nullopt;
  }
  return SourceCommand{Commands.front().Directory,
                       Commands.front().CommandLine};
}

std::string leadingLibTorchIncludes(llvm::StringRef Code) {
  Code.consume_front("\xEF\xBB\xBF");
  std::string Prefix;
  bool Torch = false, InComment = false;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Code.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    llvm::StringRef T = Line.trim();
    if (InComment) {
      size_t End = T.find("*/");
      if (End == llvm::StringRef::npos)
        continue;
      InComment = false;
      T = T.drop_front(End + 2).trim();
    }
    if (T.starts_with("/*")) {
      size_t End = T.find("*/", 2);
      if (End == llvm::StringRef::npos) {
        InComment = true;
        continue;
      }
      T = T.drop_front(End + 2).trim();
    }
    if (T.empty() || T.starts_with("//"))
      continue;
    if (!T.consume_front("#"))
      break;
    T = T.ltrim();
    if (T.starts_with("pragma once"))
      continue;
    if (!T.consume_front("include"))
      break;
    T = T.ltrim();
    size_t Close = T.find('>');
    if (!T.starts_with("<") || Close == llvm::StringRef::npos)
      break;
    llvm::StringRef Name = T.slice(1, Close);
    llvm::StringRef Rest = T.drop_front(Close + 1).trim();
    if (!Rest.empty() && !Rest.starts_with("//"))
      break;
    Prefix += ("#include <" + Name + ">\n").str();
    Torch |= Name.starts_with("torch/") || Name.starts_with("ATen/") ||
             Name.starts_with("c10/");
  }
  return Torch ? Prefix : "";
}

namespace {

bool isCxxSource(llvm::StringRef Path) {
  llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext == ".cpp" || Ext == ".cc" || Ext == ".cxx" || Ext == ".c++" ||
         Ext == ".C" || Ext == ".cp" || Ext == ".CPP";
}

/// The compile command's flags without the source, the output and what
/// only a compile needs; std::nullopt with Why when they already bring a
/// precompiled header or modules.
std::optional<std::vector<std::string>>
pchFlags(const SourceCommand &Cmd, llvm::StringRef Source, std::string &Why) {
  std::vector<std::string> CL = tooling::getClangStripDependencyFileAdjuster()(
      tooling::getClangStripOutputAdjuster()(Cmd.CommandLine, Source), Source);
  llvm::SmallString<256> AbsSource(Source);
  fs::make_absolute(AbsSource);
  llvm::sys::path::remove_dots(AbsSource, true);
  std::vector<std::string> Flags;
  for (size_t I = 1; I < CL.size(); ++I) {
    llvm::StringRef A(CL[I]);
    if (A == "-include-pch" || A == "-include" || A.starts_with("-include=") ||
        A == "--include" || A.starts_with("-fmodules") ||
        A.starts_with("-fmodule-file") || A == "-emit-ast") {
      Why = "the compile command already uses '" + A.str() + "'";
      return std::nullopt;
    }
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

std::optional<bool> includeIsFound(const SourceCommand &Cmd,
                                   llvm::StringRef Source,
                                   llvm::StringRef IncluderDir,
                                   llvm::StringRef Name, bool Angled) {
  std::string Why;
  std::optional<std::vector<std::string>> Flags = pchFlags(Cmd, Source, Why);
  if (!Flags)
    return std::nullopt;
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
    return std::nullopt;
  return true;
}

std::optional<PchUse> prepareAutoPch(const SourceCommand &Cmd,
                                     llvm::StringRef Source,
                                     llvm::StringRef CacheDir,
                                     std::string &Why) {
  if (!isCxxSource(Source)) {
    Why = "not a C++ source file name";
    return std::nullopt;
  }
  auto Code = llvm::MemoryBuffer::getFile(Source);
  if (!Code) {
    Why = "cannot read the file";
    return std::nullopt;
  }
  std::string Prefix = leadingLibTorchIncludes((*Code)->getBuffer());
  if (Prefix.empty()) {
    Why = "the file does not start with #include <...> lines that include "
          "LibTorch";
    return std::nullopt;
  }
  std::optional<std::vector<std::string>> Flags = pchFlags(Cmd, Source, Why);
  if (!Flags)
    return std::nullopt;

  llvm::SHA256 H;
  auto Add = [&](llvm::StringRef S) {
    H.update(S);
    H.update(llvm::StringRef("\0", 1));
  };
  Add("libtorch-tidy-pch 1");
  Add(LLVM_VERSION_STRING);
  // The directory matters only to relative paths: without them, one PCH
  // serves every directory the same flags are used in.
  if (hasRelativePaths(*Flags)) {
    llvm::SmallString<256> Dir(Cmd.Directory);
    fs::make_absolute(Dir);
    Add(Dir);
  }
  for (const std::string &F : *Flags)
    Add(F);
  Add(Prefix);
  std::string Key = llvm::toHex(H.final(), /*LowerCase=*/true);
  llvm::SmallString<256> Base(CacheDir);
  llvm::sys::path::append(Base, "pch", Key);
  std::string Pch = (Base + ".pch").str(), DepsFile = (Base + ".deps").str(),
              Header = (Base + ".h").str();

  PchUse Use;
  Use.Path = Pch;
  if (fs::exists(Pch))
    if (auto Text = llvm::MemoryBuffer::getFile(DepsFile)) {
      bool Valid = parseDependencies((*Text)->getBuffer(), Use.Deps) &&
                   !Use.Deps.empty();
      for (const Dependency &D : Use.Deps)
        Valid = Valid && isUnchanged(D);
      if (Valid)
        return Use;
      Use.Deps.clear();
    }

  // Build it beside its final name and rename it there, so that parallel
  // runs never read a half-written one.
  auto Start = std::chrono::steady_clock::now();
  fs::create_directories(llvm::sys::path::parent_path(Pch));
  std::string Error = writeFileAtomically(Header, Prefix);
  llvm::SmallString<256> TempPch, Headers;
  if (!Error.empty() || fs::createUniqueFile(Pch + ".%%%%%%%%.tmp", TempPch) ||
      createRunTempFile("pch", "headers", Headers)) {
    Why = "cannot write to the cache directory";
    return std::nullopt;
  }
  auto Cleanup = llvm::make_scope_exit([&] {
    fs::remove(TempPch);
    fs::remove(Headers);
  });
  std::vector<std::string> PchArgs = *Flags;
  PchArgs.insert(PchArgs.end(),
                 {"-x", "c++-header", "-fpch-instantiate-templates", "-Xclang",
                  "-header-include-file", "-Xclang", Headers.str().str(),
                  "-Xclang", "-sys-header-deps", "-o", TempPch.str().str()});
  tooling::FixedCompilationDatabase DB(Cmd.Directory, PchArgs);
  tooling::ClangTool Tool(DB, {Header});
  Tool.clearArgumentsAdjusters();
  IgnoringDiagConsumer Quiet;
  Tool.setDiagnosticConsumer(&Quiet);
  if (Tool.run(tooling::newFrontendActionFactory<GeneratePCHAction>().get()) ||
      !readHeaderList(Headers, Use.Deps) || Use.Deps.empty()) {
    Why = "the LibTorch includes do not precompile with these flags";
    return std::nullopt;
  }
  if (fs::rename(TempPch, Pch) ||
      !writeFileAtomically(DepsFile, serializeDependencies(Use.Deps)).empty()) {
    Why = "cannot write to the cache directory";
    return std::nullopt;
  }
  Use.Built = true;
  Use.Seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - Start)
                    .count();
  return Use;
}

} // namespace torchtidy
