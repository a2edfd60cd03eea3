//===--- ProjectTree.cpp - libtorch-tidy-verify ---------------------------===//

#include "ProjectTree.h"
#include "FixitApplier.h"
#include "Process.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;

namespace torchtidy {
namespace {

std::string readText(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

bool writeText(const std::string &Path, const std::string &Text) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << Text;
  return static_cast<bool>(Out);
}

std::string canonical(const std::string &Path) {
  std::error_code EC;
  fs::path P = fs::weakly_canonical(fs::absolute(Path), EC);
  return EC ? Path : P.string();
}

/// NAME:TYPE=VALUE, or nothing for comments and blank lines.
bool parseCacheLine(const std::string &Line, CacheEntry &E) {
  if (Line.empty() || Line[0] == '#' || Line.rfind("//", 0) == 0)
    return false;
  size_t Eq = Line.find('=');
  if (Eq == std::string::npos)
    return false;
  std::string Key = Line.substr(0, Eq);
  size_t Colon = Key.rfind(':');
  if (Colon == std::string::npos)
    return false;
  E.Name = Key.substr(0, Colon);
  E.Type = Key.substr(Colon + 1);
  E.Value = Line.substr(Eq + 1);
  return true;
}

/// \p Value with every \p From replaced by \p To.
std::string replacedAll(std::string Value, const std::string &From,
                        const std::string &To) {
  if (From.empty())
    return Value;
  for (size_t At = Value.find(From); At != std::string::npos;
       At = Value.find(From, At + To.size()))
    Value.replace(At, From.size(), To);
  return Value;
}

/// Whether \p Dir is a build directory or a repository's metadata, which
/// the scratch copy leaves out.
bool skippedDirectory(const fs::path &Dir, const std::string &UserBuild) {
  std::error_code EC;
  return Dir.filename() == ".git" || canonical(Dir.string()) == UserBuild ||
         fs::exists(Dir / "CMakeCache.txt", EC);
}

/// Copies the tree \p From to \p To: files, directories and symbolic links
/// as they are, without what skippedDirectory() leaves out.
ErrorOr<bool> copyTree(const fs::path &From, const fs::path &To,
                       const std::string &UserBuild) {
  std::error_code EC;
  fs::create_directories(To, EC);
  if (EC)
    return Failure{"cannot create " + To.string() + ": " + EC.message()};
  for (const fs::directory_entry &E : fs::directory_iterator(From, EC)) {
    fs::path Target = To / E.path().filename();
    std::error_code Copy;
    if (E.is_symlink(Copy))
      fs::copy_symlink(E.path(), Target, Copy);
    else if (E.is_directory(Copy)) {
      if (skippedDirectory(E.path(), UserBuild))
        continue;
      ErrorOr<bool> Sub = copyTree(E.path(), Target, UserBuild);
      if (!Sub)
        return Sub;
    } else if (E.is_regular_file(Copy))
      fs::copy_file(E.path(), Target, Copy);
    if (Copy)
      return Failure{"cannot copy " + E.path().string() + ": " +
                     Copy.message()};
  }
  if (EC)
    return Failure{"cannot read " + From.string() + ": " + EC.message()};
  return true;
}

/// Runs \p Argv with its temporary files (the compiler's) in \p Temp, so
/// that a killed run leaves none in the user's $TMPDIR.
ProcessResult runTool(std::vector<std::string> Argv, const std::string &Dir,
                      double Seconds, const std::string &Temp,
                      const Sandbox *Box = nullptr) {
  Limits L;
  L.Seconds = Seconds;
  L.Confine = Box;
  std::error_code EC;
  fs::create_directories(Temp, EC);
  Argv.insert(Argv.begin(), {"/usr/bin/env", "TMPDIR=" + Temp});
  return runProcess(Argv, Dir, L);
}

bool succeeded(const ProcessResult &R) {
  return R.Started && !R.TimedOut && R.Signal == 0 && R.ExitCode == 0;
}

std::string whyFailed(const ProcessResult &R, double Timeout) {
  if (!R.Started)
    return "could not be started";
  if (R.TimedOut)
    return "ran past " + std::to_string(static_cast<long>(Timeout)) + " s";
  return firstError(R.Output);
}

} // namespace

ErrorOr<CMakeProject> readCMakeCache(const std::string &BuildDir) {
  std::string Path = BuildDir + "/CMakeCache.txt";
  std::ifstream In(Path);
  if (!In)
    return Failure{"--project: no CMakeCache.txt in '" + BuildDir +
                   "' (give a configured CMake build directory, or "
                   "--build-command)"};
  CMakeProject P;
  P.BuildDir = canonical(BuildDir);
  std::string Line;
  while (std::getline(In, Line)) {
    CacheEntry E;
    if (!parseCacheLine(Line, E))
      continue;
    if (E.Name == "CMAKE_HOME_DIRECTORY")
      P.SourceDir = canonical(E.Value);
    else if (E.Name == "CMAKE_GENERATOR")
      P.Generator = E.Value;
    else if (E.Type != "INTERNAL" && E.Type != "STATIC")
      P.Cache.push_back(E);
  }
  if (P.SourceDir.empty())
    return Failure{"--project: " + Path + " names no source directory "
                   "(CMAKE_HOME_DIRECTORY)"};
  return P;
}

std::string initialCacheScript(const CMakeProject &P,
                               const std::string &Source,
                               const std::string &Build) {
  std::string Out = "# The user's cache entries (libtorch-tidy-verify)\n";
  for (const CacheEntry &E : P.Cache) {
    std::string Value = replacedAll(E.Value, P.BuildDir, Build);
    Value = replacedAll(Value, P.SourceDir, Source);
    std::string Type = E.Type == "UNINITIALIZED" ? "STRING" : E.Type;
    Out += "set(" + E.Name + " " + cmakeQuoted(Value) + " CACHE " + Type +
           " \"\" FORCE)\n";
  }
  return Out;
}

std::string withPlaceholders(std::string Command, const std::string &Build,
                             const std::string &Source) {
  Command = replacedAll(std::move(Command), "{build}", Build);
  return replacedAll(std::move(Command), "{source}", Source);
}

std::string firstError(const std::string &Output) {
  std::istringstream In(Output);
  std::string Line, Last;
  while (std::getline(In, Line)) {
    if (Line.find("error:") != std::string::npos ||
        Line.find("Error:") != std::string::npos ||
        Line.find("error ") == 0)
      return Line;
    if (Line.find_first_not_of(" \t\r") != std::string::npos)
      Last = Line;
  }
  return Last.empty() ? "no output" : Last;
}

ScratchTree::ScratchTree(std::string Root, BuildSetup Setup)
    : Root(std::move(Root)), Setup(std::move(Setup)) {}

std::string ScratchTree::variantDir(int K) const {
  return Root + "/v" + std::to_string(K);
}

ErrorOr<bool> ScratchTree::pointCurrentAt(int K) {
  // A new link renamed over the old one: the switch is atomic.
  std::string Next = current() + ".next";
  std::error_code EC;
  fs::remove(Next, EC);
  fs::create_directory_symlink("v" + std::to_string(K), Next, EC);
  if (!EC)
    fs::rename(Next, current(), EC);
  if (EC)
    return Failure{"cannot link " + current() + ": " + EC.message()};
  return true;
}

std::string ScratchTree::writePchHook(const std::string &UserInclude) {
  PchScan Scan = scanSources(SourceFiles::read(sourceDir(0)));
  Pch.Skipped = Scan.Skipped;
  if (Scan.Sources.empty()) {
    Pch.Note = "no C++ source of the project includes LibTorch headers "
               "before anything that could change them";
    return "";
  }
  std::string Hook = Root + "/pch-hook.cmake";
  if (!writeText(Hook, pchHookScript(Scan, UserInclude,
                                     Root + "/pch-targets.txt",
                                     Setup.PchAnyCompiler))) {
    Pch.Note = "cannot write " + Hook;
    return "";
  }
  return Hook;
}

ErrorOr<bool> ScratchTree::configure(bool WithPch) {
  if (!Setup.BuildCommand.empty())
    return true;
  std::string Src = current() + "/src", Build = current() + "/build";
  CMakeProject P = Setup.Project;
  // The user's own project include still runs: the hook includes it first.
  std::string UserInclude;
  auto Own = std::find_if(P.Cache.begin(), P.Cache.end(), [](auto &E) {
    return E.Name == "CMAKE_PROJECT_INCLUDE";
  });
  std::string Hook;
  if (WithPch) {
    if (Own != P.Cache.end()) {
      UserInclude = replacedAll(replacedAll(Own->Value, P.BuildDir, Build),
                                P.SourceDir, Src);
      P.Cache.erase(Own);
    }
    Hook = writePchHook(UserInclude);
    if (Hook.empty())
      P = Setup.Project;
  }
  Hooked = !Hook.empty();
  std::string Script = Root + "/initial-cache.cmake";
  std::string Text = initialCacheScript(P, Src, Build);
  if (!Hook.empty())
    Text += "set(CMAKE_PROJECT_INCLUDE " + cmakeQuoted(Hook) +
            " CACHE FILEPATH \"\" FORCE)\n";
  if (!writeText(Script, Text))
    return Failure{"cannot write " + Script};
  std::vector<std::string> Argv = {"cmake", "-S", Src, "-B", Build, "-C",
                                   Script};
  if (!Setup.Project.Generator.empty())
    Argv.insert(Argv.end(), {"-G", Setup.Project.Generator});
  ProcessResult R = runTool(Argv, Root, Setup.Timeout, Root + "/tmp");
  if (!succeeded(R)) {
    CompileFailed = true;
    return Failure{"configuring the scratch copy failed: " +
                   whyFailed(R, Setup.Timeout)};
  }
  if (Hooked) {
    std::string Report = readText(Root + "/pch-targets.txt");
    Pch.Targets = parsePchReport(Report);
    if (std::string Id = pchReportCompiler(Report); !Id.empty())
      Pch.Note = "the project compiles with " + Id +
                 ", whose precompiled headers keep no template "
                 "instantiations (a variant rebuild measured 1.2x faster "
                 "with them, the example none): none made "
                 "(--precompiled-headers makes them anyway)";
    else if (Pch.Targets.empty())
      Pch.Note = "no target of the project compiles a source that includes "
                 "LibTorch headers first";
  }
  return true;
}

ErrorOr<double> ScratchTree::build() {
  std::string Src = current() + "/src", Build = current() + "/build";
  std::vector<std::string> Argv =
      Setup.BuildCommand.empty()
          ? std::vector<std::string>{"cmake", "--build", Build, "--parallel",
                                     std::to_string(std::max(
                                         1u, std::thread::hardware_concurrency()))}
          : std::vector<std::string>{
                "/bin/sh", "-c",
                withPlaceholders(Setup.BuildCommand, Build, Src)};
  ProcessResult R =
      runTool(Argv, Src, Setup.Timeout, Root + "/tmp", &Setup.BuildBox);
  if (!succeeded(R)) {
    CompileFailed = true;
    return Failure{whyFailed(R, Setup.Timeout)};
  }
  return R.Seconds;
}

ErrorOr<double> ScratchTree::configureAndBuild(bool WithPch) {
  CompileFailed = false;
  ErrorOr<bool> Configured = configure(WithPch);
  if (!Configured)
    return Failure{Configured.error()};
  return build();
}

ErrorOr<double> ScratchTree::buildBaseline() {
  std::string Base = variantDir(0);
  ErrorOr<bool> Copied =
      copyTree(Setup.Project.SourceDir, Base + "/src", Setup.Project.BuildDir);
  if (!Copied)
    return Failure{Copied.error()};
  std::error_code EC;
  fs::create_directories(Base + "/build", EC);
  ErrorOr<bool> Linked = pointCurrentAt(0);
  if (!Linked)
    return Failure{Linked.error()};
  auto Start = std::chrono::steady_clock::now();
  auto Seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  };
  if (!Setup.BuildCommand.empty())
    Pch.Note = "--build-command: the project's own build, no precompiled "
               "headers";
  else if (!Setup.PrecompileTorch)
    Pch.Note = "--no-precompiled-headers";
  else {
    ErrorOr<double> Built = configureAndBuild(true);
    if (Built) {
      sharePch();
      return Seconds();
    }
    if (!Hooked)
      return Built; // the hook was not used: the project's own failure
    // The safety net: whatever the PCH broke, the project builds as the
    // user's does.
    Pch = PchState();
    Pch.Note = "the baseline failed to build with precompiled LibTorch "
               "headers (" + Built.error() + "); built without them";
    fs::remove_all(Base + "/build", EC);
    fs::create_directories(Base + "/build", EC);
    Start = std::chrono::steady_clock::now();
  }
  ErrorOr<double> Built = configureAndBuild(false);
  if (!Built)
    return Built;
  return Seconds();
}

/// Whether \p P is a PCH file CMake built for one of \p Targets (those the
/// hook gave one: CMakeFiles/T.dir/cmake_pch.hxx.gch with GCC, .pch with
/// Clang). A PCH of the project's own may hold its headers, which fix-its
/// edit: it stays a copy in each variant.
static bool isHookPch(const fs::path &P, const std::vector<PchTarget> &Targets) {
  std::string Name = P.filename().string();
  if (Name.rfind("cmake_pch", 0) != 0 ||
      (P.extension() != ".gch" && P.extension() != ".pch"))
    return false;
  std::string Dir = P.parent_path().filename().string();
  return std::any_of(Targets.begin(), Targets.end(), [&](const PchTarget &T) {
    return Dir == T.Name + ".dir";
  });
}

void ScratchTree::sharePch() {
  std::error_code EC;
  std::string Build = buildDir(0);
  for (auto It = fs::recursive_directory_iterator(Build, EC);
       !EC && It != fs::recursive_directory_iterator(); It.increment(EC)) {
    if (!It->is_regular_file() || It->is_symlink() ||
        !isHookPch(It->path(), Pch.Targets))
      continue;
    SharedPch S;
    S.Link = It->path().lexically_relative(variantDir(0)).string();
    S.Path = Root + "/pch/" + std::to_string(Shared.size()) +
             It->path().extension().string();
    std::error_code Move;
    fs::create_directories(Root + "/pch", Move);
    fs::rename(It->path(), S.Path, Move);
    if (Move)
      continue;
    fs::create_symlink(S.Path, It->path(), Move);
    if (Move) { // put it back: the baseline keeps its own
      fs::rename(S.Path, It->path(), Move);
      continue;
    }
    S.Size = fs::file_size(S.Path, Move);
    S.Time = fs::last_write_time(S.Path, Move).time_since_epoch().count();
    Shared.push_back(S);
  }
  Pch.Used = !Pch.Targets.empty();
}

/// A fix-it in a file LibTorch's headers may include (a LibTorch vendored
/// in the project's tree) could make the build write the shared PCH.
static bool mayEditLibTorch(const std::vector<Edit> &Edits) {
  for (const Edit &E : Edits)
    for (const fs::path &Part : fs::path(E.File))
      if (Part == "torch" || Part == "ATen" || Part == "c10")
        return true;
  return false;
}

ErrorOr<bool> ScratchTree::privatizePch(int K, const std::vector<Edit> &Edits) {
  if (!mayEditLibTorch(Edits))
    return true;
  for (const SharedPch &S : Shared) {
    std::string Link = variantDir(K) + "/" + S.Link;
    std::error_code EC;
    fs::remove(Link, EC);
    ProcessResult R = runTool({"cp", "-p", S.Path, Link}, Root, Setup.Timeout,
                              Root + "/tmp");
    if (EC || !succeeded(R))
      return Failure{"cannot copy the precompiled header " + S.Path};
  }
  return true;
}

ErrorOr<bool> ScratchTree::checkSharedPch() const {
  for (const SharedPch &S : Shared) {
    std::error_code EC;
    uintmax_t Size = fs::file_size(S.Path, EC);
    long long Time =
        fs::last_write_time(S.Path, EC).time_since_epoch().count();
    if (EC || Size != S.Size || Time != S.Time)
      return Failure{"the build rewrote the precompiled LibTorch headers "
                     "that every variant shares (" + S.Link + ")"};
  }
  return true;
}

std::string ScratchTree::buildMethod(bool Variant) const {
  std::string How = Variant ? "incremental rebuild" : "full build";
  if (!Setup.BuildCommand.empty())
    return How + " with --build-command";
  return Pch.Used ? How + " with precompiled LibTorch headers" : How;
}

ErrorOr<bool> ScratchTree::applyEdits(int K, const std::vector<Edit> &Edits) {
  const std::string &UserSource = Setup.Project.SourceDir;
  std::vector<FixitEdit> Scratch;
  for (const Edit &E : Edits) {
    std::string File = canonical(E.File);
    if (File.rfind(UserSource + "/", 0) != 0)
      return Failure{"the fix-it edits '" + E.File +
                     "', outside the source directory " + UserSource};
    // Cut to 32 bits as the driver's --apply-fixits reads the numbers.
    Scratch.push_back({sourceDir(K) + File.substr(UserSource.size()),
                       static_cast<unsigned>(E.Offset),
                       static_cast<unsigned>(E.Length), E.Text});
  }
  // Applied here, not by libtorch-tidy: a GPU machine has no LLVM.
  if (std::optional<Failure> Error = applyFixits(Scratch))
    return Failure{"the fix-its could not be applied: " + Error->Message};
  return true;
}

ErrorOr<double> ScratchTree::buildVariant(int K,
                                          const std::vector<Edit> &Edits) {
  CompileFailed = false;
  ProcessResult Copy =
      runTool({"cp", "-a", variantDir(0), variantDir(K)}, Root, Setup.Timeout,
              Root + "/tmp");
  if (!succeeded(Copy))
    return Failure{"cannot copy the baseline: " + firstError(Copy.Output)};
  ErrorOr<bool> Applied = applyEdits(K, Edits);
  if (!Applied)
    return Failure{Applied.error()};
  ErrorOr<bool> Private = privatizePch(K, Edits);
  if (!Private)
    return Failure{Private.error()};
  ErrorOr<bool> Linked = pointCurrentAt(K);
  if (!Linked)
    return Failure{Linked.error()};
  ErrorOr<double> Built = build();
  ErrorOr<bool> Intact = checkSharedPch();
  if (Built && !Intact) {
    CompileFailed = true;
    return Failure{Intact.error()};
  }
  return Built;
}

} // namespace torchtidy
