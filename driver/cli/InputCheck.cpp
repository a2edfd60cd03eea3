//===--- InputCheck.cpp - libtorch-tidy -----------------------------------===//

#include "cli/InputCheck.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang-tidy/GlobList.h"
#include "clang/Driver/Types.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <memory>

using namespace clang;
using namespace clang::tidy;

namespace torchtidy {

namespace {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

/// Whether checkInputs refused a file and let the others be analyzed.
bool AnyRefused = false;

/// The compile_commands.json clang-tidy reads for a file of \p Dir: in
/// \p Dir or the nearest parent that has one. "" when a compile_flags.txt
/// comes first (it cannot be broken), std::nullopt when there is neither.
std::optional<std::string> findDatabase(llvm::StringRef Dir) {
  llvm::SmallString<256> Abs(Dir);
  fs::make_absolute(Abs);
  for (llvm::StringRef D = Abs; !D.empty(); D = path::parent_path(D)) {
    llvm::SmallString<256> Json(D), Flags(D);
    path::append(Json, "compile_commands.json");
    path::append(Flags, "compile_flags.txt");
    if (fs::exists(Json))
      return Json.str().str();
    if (fs::exists(Flags))
      return "";
    if (D == path::parent_path(D))
      break;
  }
  return std::nullopt;
}

void error(const llvm::Twine &Message) {
  llvm::errs() << "libtorch-tidy: error: " << Message << "\n";
}

/// Loads the compilation database at \p Path, or says in one line why not.
std::unique_ptr<tooling::JSONCompilationDatabase>
loadDatabase(llvm::StringRef Path) {
  // Clang's loader parses it as YAML and prints the parser's errors, with
  // the offending line, itself: JSON's error comes in one line.
  auto Text = llvm::MemoryBuffer::getFile(Path);
  if (!Text) {
    error(Path + ": " + Text.getError().message());
    return nullptr;
  }
  if (auto Json = llvm::json::parse((*Text)->getBuffer()); !Json) {
    error(Path + ": not valid JSON: " + llvm::toString(Json.takeError()));
    return nullptr;
  }
  std::string Error;
  auto DB = tooling::JSONCompilationDatabase::loadFromBuffer(
      (*Text)->getBuffer(), Error, tooling::JSONCommandLineSyntax::AutoDetect);
  if (!DB) {
    error(Path + ": " + llvm::StringRef(Error).split('\n').first);
    return nullptr;
  }
  // clang-tidy would skip every file with "Compile command not found".
  if (DB->getAllFiles().empty()) {
    error(Path + ": lists no files");
    return nullptr;
  }
  return DB;
}

/// Whether clang treats \p File as C, C++ (or a variant) by its extension.
bool hasSourceExtension(llvm::StringRef File) {
  llvm::StringRef Ext = path::extension(File);
  if (Ext.empty())
    return false;
  namespace types = driver::types;
  types::ID Type = types::lookupTypeForExtension(Ext.drop_front());
  return Type != types::TY_INVALID &&
         (types::isCXX(Type) || types::isCuda(Type) || types::isHIP(Type) ||
          types::isObjC(Type) || Type == types::TY_C ||
          Type == types::TY_CHeader || Type == types::TY_PP_C ||
          Type == types::TY_PP_CHeader);
}

/// NUL bytes, or a tenth of the first 64 KiB in control characters: what a
/// compiler would print back as pages of garbage.
bool looksBinary(llvm::StringRef Text) {
  if (Text.contains('\0'))
    return true;
  llvm::StringRef Head = Text.take_front(64 * 1024);
  size_t Control = llvm::count_if(Head, [](char C) {
    unsigned char U = C;
    return (U < 0x20 && !llvm::StringRef("\t\n\v\f\r").contains(C)) ||
           U == 0x7f;
  });
  return Control * 10 > Head.size();
}

bool checkSource(llvm::StringRef File, const CommandLine &CL,
                 const tooling::CompilationDatabase *DB) {
  auto Refuse = [&](const llvm::Twine &Why) {
    error("cannot analyze '" + File + "': " + Why);
    return false;
  };
  fs::file_status Status;
  if (std::error_code EC = fs::status(File, Status))
    return Refuse(EC.message());
  if (fs::is_directory(Status))
    return Refuse("it is a directory");
  if (!fs::is_regular_file(Status))
    return Refuse("not a regular file");
  // "-x c++" (or a build that compiles it) makes any name a source file.
  bool Language = llvm::any_of(CL.CompilerArgs, [](llvm::StringRef A) {
    return A.starts_with("-x") || A.starts_with("--language");
  });
  llvm::SmallString<256> Abs(File);
  fs::make_absolute(Abs);
  if (!Language && !hasSourceExtension(File) &&
      !(DB && !DB->getCompileCommands(Abs).empty())) {
    llvm::StringRef Ext = path::extension(File);
    return Refuse("not a C or C++ file (" +
                  (Ext.empty() ? llvm::Twine("no extension")
                               : "extension '" + Ext + "'") +
                  "); to analyze it as C++, add -x c++ after --");
  }
  auto Text = llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!Text)
    return Refuse(Text.getError().message());
  if (looksBinary((*Text)->getBuffer()))
    return Refuse("a binary file, not source code");
  return true;
}

/// The closest of \p Names to \p Name, as clang-tidy's --verify-config
/// suggests, or "".
llvm::StringRef closest(llvm::StringRef Name, const llvm::StringSet<> &Names) {
  unsigned Best = 5;
  llvm::StringRef Closest;
  for (llvm::StringRef N : Names.keys()) {
    unsigned D = Name.edit_distance_insensitive(N, true, Best);
    if (D < Best) {
      Best = D;
      Closest = N;
    }
  }
  return Closest;
}

llvm::ErrorOr<ClangTidyOptions> parseQuietly(llvm::MemoryBufferRef Config) {
  auto Parsed =
      parseConfigurationWithDiags(Config, [](const llvm::SMDiagnostic &) {});
  return Parsed ? Parsed : llvm::ErrorOr<ClangTidyOptions>(ClangTidyOptions());
}

/// The .clang-tidy files as clang-tidy reads them, but silent about parse
/// errors: clang-tidy reports those itself.
class QuietFileOptionsProvider : public FileOptionsProvider {
public:
  explicit QuietFileOptionsProvider(ClangTidyOptions Override)
      : FileOptionsProvider(ClangTidyGlobalOptions(), ClangTidyOptions(),
                            std::move(Override),
                            ConfigFileHandlers{{".clang-tidy", parseQuietly}}) {
    // That constructor leaves the file system unset.
    FS = llvm::vfs::getRealFileSystem();
  }
};

/// The options clang-tidy reads for a file: -checks over -config or
/// -config-file, else over the .clang-tidy files. Null when the
/// configuration does not parse: clang-tidy reports that itself.
std::unique_ptr<ClangTidyOptionsProvider>
optionsProvider(const CommandLine &CL) {
  ClangTidyOptions Override;
  if (CL.Checks)
    Override.Checks = *CL.Checks;
  std::string ConfigText, ConfigSource;
  if (CL.ConfigFile) {
    auto Text = llvm::MemoryBuffer::getFile(*CL.ConfigFile);
    if (!Text)
      return nullptr;
    ConfigText = (*Text)->getBuffer().str();
    ConfigSource = *CL.ConfigFile;
  } else if (CL.Config) {
    ConfigText = *CL.Config;
    ConfigSource = "command-line option '-config'";
  }
  if (ConfigSource.empty())
    return std::make_unique<QuietFileOptionsProvider>(std::move(Override));
  auto Parsed = parseConfigurationWithDiags(
      llvm::MemoryBufferRef(ConfigText, ConfigSource),
      [](const llvm::SMDiagnostic &) {});
  if (!Parsed)
    return nullptr;
  return std::make_unique<ConfigOptionsProvider>(
      ClangTidyGlobalOptions(), ClangTidyOptions(), std::move(*Parsed),
      std::move(Override), llvm::vfs::getRealFileSystem());
}

/// Names the items of the check globs \p Checks, from \p From, that match
/// no check in \p Known; false when one is a torch-* check. \p Warnings:
/// whether to name the others too.
bool checkGlobs(llvm::StringRef Checks, llvm::StringRef From,
                const llvm::StringSet<> &Known, bool Warnings) {
  bool OK = true;
  GlobList Globs(Checks);
  for (const auto &Item : Globs.getItems()) {
    if (Item.Text.empty() || Item.Text.starts_with("clang-diagnostic-") ||
        llvm::any_of(Known.keys(), [&](llvm::StringRef Name) {
          return Item.Regex.match(Name);
        }))
      continue;
    bool Ours = Item.IsPositive && Item.Text.starts_with("torch-");
    OK &= !Ours;
    if (!Ours && !Warnings)
      continue;
    llvm::errs() << "libtorch-tidy: " << (Ours ? "error" : "warning") << ": "
                 << From << ": ";
    if (Item.Text.contains('*')) {
      llvm::errs() << "check glob '" << Item.Text
                   << "' matches no known check\n";
      continue;
    }
    llvm::errs() << "unknown check '" << Item.Text << "'";
    if (llvm::StringRef Near = closest(Item.Text, Known); !Near.empty())
      llvm::errs() << "; did you mean '" << Near << "'?";
    llvm::errs() << "\n";
  }
  return OK;
}

/// Names every check name or glob of -checks, -config, -config-file and the
/// .clang-tidy files of \p File that matches no check. An unknown torch-*
/// check is an error: this tool ships those, so the name is a typo. Others
/// are warnings: a shared .clang-tidy may name checks of a newer clang-tidy.
/// Parse errors are left to clang-tidy, which reports them. \p Warnings:
/// whether to print the warnings too.
bool checkCheckNames(const CommandLine &CL, llvm::StringRef File,
                     bool Warnings) {
  std::unique_ptr<ClangTidyOptionsProvider> Provider = optionsProvider(CL);
  if (!Provider)
    return true;
  llvm::SmallString<256> Abs(File.empty() ? "dummy" : File);
  fs::make_absolute(Abs);
  std::optional<llvm::StringSet<>> Known;
  bool OK = true;
  for (const auto &[Options, Source] : Provider->getRawOptions(Abs)) {
    if (!Options.Checks ||
        Source == ClangTidyOptionsProvider::OptionsSourceTypeDefaultBinary)
      continue;
    if (!Known)
      Known = getAllChecksAndOptions().Names;
    llvm::StringRef From = Source;
    if (CL.ConfigFile &&
        Source ==
            ClangTidyOptionsProvider::OptionsSourceTypeConfigCommandLineOption)
      From = *CL.ConfigFile;
    OK &= checkGlobs(*Options.Checks, From, *Known, Warnings);
  }
  return OK;
}

/// The first file of the whole-project run's database in \p ProjectDir, ""
/// when it has none (runProject reports that); an error when it is broken.
llvm::Expected<std::string> projectFirstFile(llvm::StringRef ProjectDir) {
  llvm::SmallString<256> Json(ProjectDir);
  path::append(Json, "compile_commands.json");
  if (!fs::exists(Json))
    return "";
  auto DB = loadDatabase(Json);
  if (!DB)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "broken compilation database");
  return DB->getAllFiles().front();
}

/// The compilation database clang-tidy takes the flags of the named files
/// from, null when there is none; an error (named) when it is broken or -p
/// has none.
llvm::Expected<std::unique_ptr<tooling::JSONCompilationDatabase>>
namedFilesDatabase(const CommandLine &CL) {
  auto Broken = [] {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "broken compilation database");
  };
  // Without "--", clang-tidy takes the flags of all files from the database
  // of -p, or else the one above the first file; it runs without flags when
  // that is missing or broken, which only shows as errors far from the
  // cause.
  std::optional<std::string> Json;
  if (!CL.DashDash && CL.BuildPath) {
    Json = findDatabase(*CL.BuildPath);
    if (!Json) {
      error("-p " + *CL.BuildPath +
            ": no compile_commands.json there or in a parent directory");
      return Broken();
    }
  } else if (!CL.DashDash && !CL.Sources.empty() &&
             fs::is_regular_file(CL.Sources.front())) {
    Json = findDatabase(path::parent_path(CL.Sources.front()));
  }
  if (!Json || Json->empty())
    return nullptr;
  auto DB = loadDatabase(*Json);
  if (!DB)
    return Broken();
  return std::move(DB);
}

/// The named source files: those to leave out in \p Refused; the first
/// analyzed one, which stands for all when looking up .clang-tidy files, or
/// an error when none is left.
llvm::Expected<std::string> checkSources(const CommandLine &CL,
                                         std::vector<std::string> &Refused) {
  auto DB = namedFilesDatabase(CL);
  if (!DB)
    return DB.takeError();
  std::string ChecksFile;
  for (const std::string &File : CL.Sources) {
    if (!checkSource(File, CL, DB->get()))
      Refused.push_back(File);
    else if (ChecksFile.empty())
      ChecksFile = File;
  }
  if (!CL.Sources.empty() && Refused.size() == CL.Sources.size())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no file left to analyze");
  return ChecksFile;
}

} // namespace

char InputsRejected::ID = 0;

void InputsRejected::log(llvm::raw_ostream &OS) const {
  OS << "the inputs leave nothing to analyze";
}

llvm::Expected<std::vector<std::string>>
checkInputs(const CommandLine &CL, llvm::StringRef ProjectDir) {
  std::vector<std::string> Refused;
  if (!CL.Analyzes)
    return Refused;
  // Each problem was named where it was found.
  llvm::Expected<std::string> ChecksFile =
      ProjectDir.empty() ? checkSources(CL, Refused)
                         : projectFirstFile(ProjectDir);
  if (!ChecksFile) {
    llvm::consumeError(ChecksFile.takeError());
    return llvm::make_error<InputsRejected>();
  }
  // A whole-project run leaves the warnings to each file's analysis, which
  // prints them with its findings.
  if (!checkCheckNames(CL, *ChecksFile, ProjectDir.empty()))
    return llvm::make_error<InputsRejected>();
  AnyRefused = !Refused.empty();
  return Refused;
}

int inputExitCode(int RC) {
  return AnyRefused ? std::max(RC, BadInputExitCode) : RC;
}

} // namespace torchtidy
