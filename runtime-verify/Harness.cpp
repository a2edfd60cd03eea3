//===--- Harness.cpp - libtorch-tidy-verify -------------------------------===//

#include "Harness.h"
#include "Process.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

using nlohmann::json;
namespace fs = std::filesystem;

namespace torchtidy {

namespace {

std::string trim(std::string S) {
  size_t B = S.find_first_not_of(" \t\n");
  size_t E = S.find_last_not_of(" \t\n");
  return B == std::string::npos ? "" : S.substr(B, E - B + 1);
}

/// `const torch::Tensor &` -> `torch::Tensor`: the harness owns a value.
std::string bareType(std::string T) {
  T = trim(T);
  while (!T.empty() && (T.back() == '&' || T.back() == ' '))
    T.pop_back();
  if (T.rfind("const ", 0) == 0)
    T = T.substr(6);
  if (T.size() > 6 && T.compare(T.size() - 6, 6, " const") == 0)
    T = T.substr(0, T.size() - 6);
  return trim(T);
}

bool isTensorType(const std::string &T) {
  static const std::set<std::string> Names = {
      "at::Tensor", "torch::Tensor", "Tensor", "torch::autograd::Variable",
      "at::TensorBase"};
  return Names.count(T) != 0;
}

bool isDeviceType(const std::string &T) {
  static const std::set<std::string> Names = {"torch::Device", "c10::Device",
                                              "at::Device", "Device"};
  return Names.count(T) != 0;
}

bool isNumberType(const std::string &T) {
  static const std::set<std::string> Names = {
      "bool",          "char",
      "short",         "int",
      "long",          "long long",
      "unsigned",      "unsigned int",
      "unsigned long", "unsigned long long",
      "size_t",        "std::size_t",
      "int64_t",       "std::int64_t",
      "int32_t",       "std::int32_t",
      "uint64_t",      "std::uint64_t",
      "uint32_t",      "std::uint32_t",
      "float",         "double"};
  return Names.count(T) != 0;
}

std::string joinSizes(const std::vector<int64_t> &Sizes) {
  std::string Out;
  for (size_t I = 0; I < Sizes.size(); ++I)
    Out += (I ? ", " : "") + std::to_string(Sizes[I]);
  return Out;
}

bool isDtypeName(const std::string &D) {
  static const std::set<std::string> Names = {
      "kFloat", "kDouble", "kHalf", "kBFloat16", "kLong",
      "kInt",   "kShort",  "kByte", "kChar",     "kBool"};
  return Names.count(D) != 0;
}

std::string quoted(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (C == '\n')
      continue;
    Out += C;
  }
  return Out + "\"";
}

bool pathExists(const fs::path &P) {
  std::error_code EC;
  return fs::exists(P, EC);
}

std::string readFile(const fs::path &P) {
  std::ifstream In(P);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

} // namespace

bool parseShapeOption(const std::string &Text, BindingConfig &Config,
                      std::string &Error) {
  static const std::regex Re(
      R"(^([A-Za-z_][A-Za-z0-9_]*)=(\d+(x\d+)*)(:(k[A-Za-z0-9]+))?$)");
  std::smatch M;
  if (!std::regex_match(Text, M, Re)) {
    Error = "--shape '" + Text +
            "': expected NAME=DIMS like x=16x3x32x32 "
            "or labels=16:kLong";
    return false;
  }
  BindingConfig::TensorSpec Spec;
  std::stringstream Dims(M[2].str());
  for (std::string D; std::getline(Dims, D, 'x');)
    Spec.Sizes.push_back(std::stoll(D));
  if (M[5].matched) {
    if (!isDtypeName(M[5].str())) {
      Error = "--shape '" + Text + "': unknown dtype " + M[5].str();
      return false;
    }
    Spec.Dtype = M[5].str();
  }
  Config.Tensors[M[1].str()] = Spec;
  return true;
}

bool parseValueOption(const std::string &Text, BindingConfig &Config,
                      std::string &Error) {
  static const std::regex Re(
      R"(^([A-Za-z_][A-Za-z0-9_]*)=(-?[0-9]+(\.[0-9]*)?([eE]-?[0-9]+)?|true|false)$)");
  std::smatch M;
  if (!std::regex_match(Text, M, Re)) {
    Error = "--value '" + Text + "': expected NAME=NUMBER or NAME=true/false";
    return false;
  }
  Config.Values[M[1].str()] = M[2].str();
  return true;
}

bool readConfigFile(const std::string &Path, BindingConfig &Config,
                    std::string &Error) {
  std::ifstream In(Path);
  if (!In) {
    Error = "cannot read the config file '" + Path + "'";
    return false;
  }
  json Doc = json::parse(In, nullptr, /*allow_exceptions=*/false);
  if (Doc.is_discarded() || !Doc.is_object()) {
    Error = "the config file '" + Path + "' is not a JSON object";
    return false;
  }
  for (auto &[Name, V] : Doc.value("shapes", json::object()).items()) {
    BindingConfig::TensorSpec Spec;
    const json &Sizes = V.is_object() ? V.value("sizes", json()) : V;
    if (!Sizes.is_array() ||
        !std::all_of(Sizes.begin(), Sizes.end(),
                     [](const json &D) { return D.is_number_integer(); })) {
      Error = "config '" + Path + "': shape of '" + Name +
              "' is not a list of integers";
      return false;
    }
    for (const json &D : Sizes)
      Spec.Sizes.push_back(D.get<int64_t>());
    if (V.is_object() && V.contains("dtype")) {
      if (!V["dtype"].is_string() || !isDtypeName(V["dtype"])) {
        Error = "config '" + Path + "': unknown dtype for '" + Name + "'";
        return false;
      }
      Spec.Dtype = V["dtype"];
    }
    Config.Tensors[Name] = Spec;
  }
  for (auto &[Name, V] : Doc.value("values", json::object()).items()) {
    if (V.is_boolean())
      Config.Values[Name] = V.get<bool>() ? "true" : "false";
    else if (V.is_number())
      Config.Values[Name] = V.dump();
    else {
      Error = "config '" + Path + "': value of '" + Name + "' is not a number";
      return false;
    }
  }
  return true;
}

Binding bindSnippet(const json &Code, const BindingConfig &Config) {
  Binding B;
  std::map<std::string, std::string> Constructions;
  std::vector<std::string> Order;
  for (const json &C : Code.value("constructions", json::array()))
    if (C.is_object() && C.value("name", "") != "" && C.contains("code")) {
      Constructions[C["name"]] = C["code"];
      Order.push_back(C["name"]);
    }
  std::string Devices, Numbers, Tensors;
  for (const json &V : Code.value("free_variables", json::array())) {
    std::string Name = V.value("name", ""), Type = V.value("type", "");
    std::string Bare = bareType(Type);
    if (Name.rfind("this->", 0) == 0) {
      B.Reason = "'" + Name +
                 "' is a member of the enclosing class, which "
                 "the harness does not rebuild";
      return B;
    }
    // A device is an input, not a result: not compared.
    if (!isDeviceType(Bare))
      B.Compared.push_back(Name);
    if (Constructions.count(Name))
      continue;
    if (isDeviceType(Bare)) {
      Devices += "  torch::Device " + Name + " = torchtidy::device();\n";
    } else if (isNumberType(Bare)) {
      auto It = Config.Values.find(Name);
      Numbers += "  " + Bare + " " + Name + " = " +
                 (It == Config.Values.end() ? "0" : It->second) + ";\n";
    } else if (isTensorType(Bare)) {
      auto It = Config.Tensors.find(Name);
      if (It == Config.Tensors.end()) {
        B.Reason = "the shape of tensor '" + Name +
                   "' is not in the code; give it with --shape " + Name +
                   "=DIMS (e.g. 16x3x32x32) or a --config file";
        return B;
      }
      Tensors += "  torch::Tensor " + Name + " = torchtidy::tensor({" +
                 joinSizes(It->second.Sizes) + "}, torch::" + It->second.Dtype +
                 ");\n";
    } else {
      B.Reason = "no fixture for '" + Name + "' of type '" + Type +
                 "' (tensors, devices, numbers, and modules and optimizers "
                 "built in the same function are bound)";
      return B;
    }
  }
  B.Fixtures = Devices + Numbers + Tensors;
  for (const std::string &Name : Order)
    B.Fixtures += "  " + Constructions[Name] + ";\n";
  for (const json &D : Code.value("declarations", json::array()))
    if (D.is_object() && D.contains("name"))
      B.Compared.push_back(D["name"]);
  B.Bound = true;
  return B;
}

std::string generateHarness(const std::vector<HarnessEntry> &Entries) {
  std::vector<std::string> Lines;
  auto Add = [&](const std::string &Text) {
    std::stringstream S(Text);
    for (std::string L; std::getline(S, L);)
      Lines.push_back(L);
  };
  const std::string Self = "libtorch-tidy-harness.cpp";
  Add("// Generated by libtorch-tidy-verify: one entry per finding. The\n"
      "// support header comes precompiled (-include-pch) or -include'd.");
  for (size_t I = 0; I < Entries.size(); ++I) {
    const HarnessEntry &E = Entries[I];
    Add("\n// finding " + std::to_string(E.Finding));
    Add("namespace ltt_entry_" + std::to_string(I) + " {");
    std::set<std::string> Declared;
    for (const json &D : E.Code.value("declarations", json::array()))
      if (D.is_object() && D.contains("name"))
        Declared.insert(D["name"].get<std::string>());
    for (const char *Variant : {"before", "after"}) {
      Add(std::string("static void ") + Variant +
          "(torchtidy::Runner &ltt_run) {");
      Add(E.Bind.Fixtures);
      Add("  ltt_run.run(\n      [&] {");
      Add("#line " + std::to_string(E.Code.value("first_line", 1)) + " " +
          quoted(E.File));
      Add(E.Code.value(Variant, ""));
      Add("#line " + std::to_string(Lines.size() + 2) + " " + quoted(Self));
      Add("        if (ltt_run.capturing()) {");
      for (const std::string &Name : Declared)
        Add("          ltt_run.capture(" + quoted(Name) + ", " + Name + ");");
      Add("        }\n      },\n      [&](torchtidy::State &ltt_state) {");
      for (const std::string &Name : E.Bind.Compared)
        if (!Declared.count(Name))
          Add("        ltt_state.add(" + quoted(Name) + ", " + Name + ");");
      Add("      });\n}");
    }
    Add("} // namespace ltt_entry_" + std::to_string(I));
  }
  Add("\nstatic const torchtidy::Entry LttEntries[] = {");
  for (size_t I = 0; I < Entries.size(); ++I)
    Add("    {ltt_entry_" + std::to_string(I) + "::before, ltt_entry_" +
        std::to_string(I) + "::after},");
  Add("};\n\nint main(int argc, char **argv) {\n  return "
      "torchtidy::harnessMain(argc, argv, LttEntries, " +
      std::to_string(Entries.size()) + ");\n}");
  std::string Out;
  for (const std::string &L : Lines)
    Out += L + "\n";
  return Out;
}

namespace {

/// The Torch CMake directories a prefix or directory may hold.
std::vector<fs::path> torchDirsUnder(const fs::path &P) {
  std::vector<fs::path> Out = {P, P / "Torch", P / "share/cmake/Torch",
                               P / "lib/cmake/Torch"};
  std::error_code EC;
  if (pathExists(P / "lib"))
    for (const auto &D : fs::directory_iterator(P / "lib", EC))
      if (pathExists(D.path() / "cmake/Torch"))
        Out.push_back(D.path() / "cmake/Torch");
  return Out;
}

std::optional<TorchInstall> installAt(const fs::path &CMakeDir,
                                      const std::string &From) {
  if (!pathExists(CMakeDir / "TorchConfig.cmake"))
    return std::nullopt;
  TorchInstall T;
  std::error_code EC;
  fs::path Dir = fs::canonical(CMakeDir, EC);
  if (EC)
    return std::nullopt;
  T.CMakeDir = Dir.string();
  T.From = From;
  // The prefix is the first ancestor with LibTorch's headers: pip's
  // torch/share/cmake/Torch, Debian's /usr/lib/<arch>/cmake/Torch.
  fs::path Prefix;
  for (fs::path P = Dir; P.has_parent_path() && P != P.parent_path();
       P = P.parent_path())
    if (pathExists(P / "include/torch/csrc/api/include/torch/torch.h")) {
      Prefix = P;
      break;
    }
  if (Prefix.empty())
    return std::nullopt;
  T.IncludeDirs = {(Prefix / "include").string(),
                   (Prefix / "include/torch/csrc/api/include").string()};
  for (const fs::path &L : {Prefix / "lib", Dir.parent_path().parent_path()})
    if (pathExists(L / "libtorch_cpu.so") || pathExists(L / "libtorch.so")) {
      T.LibDir = L.string();
      break;
    }
  if (T.LibDir.empty())
    return std::nullopt;
  T.Cuda = pathExists(fs::path(T.LibDir) / "libtorch_cuda.so");
  std::smatch M;
  std::string Config = readFile(Dir / "TorchConfig.cmake");
  if (std::regex_search(Config, M, std::regex("_GLIBCXX_USE_CXX11_ABI=([01])")))
    T.CxxAbi = M[1].str();
  return T;
}

std::optional<TorchInstall> firstUnder(const fs::path &P,
                                       const std::string &From,
                                       std::vector<std::string> &Tried) {
  Tried.push_back(From + " (" + P.string() + ")");
  for (const fs::path &D : torchDirsUnder(P))
    if (auto T = installAt(D, From))
      return T;
  return std::nullopt;
}

std::vector<std::string> splitPath(const char *Text) {
  std::vector<std::string> Out;
  if (!Text)
    return Out;
  std::stringstream S(Text);
  for (std::string Item; std::getline(S, Item, ':');)
    if (!Item.empty())
      Out.push_back(Item);
  return Out;
}

} // namespace

std::optional<TorchInstall> locateTorch(const std::string &TorchDirFlag,
                                        std::vector<std::string> &Tried) {
  if (!TorchDirFlag.empty())
    return firstUnder(TorchDirFlag, "--torch-dir", Tried);
  if (const char *Env = std::getenv("Torch_DIR"); Env && *Env)
    if (auto T = firstUnder(Env, "Torch_DIR", Tried))
      return T;
  for (const std::string &P : splitPath(std::getenv("CMAKE_PREFIX_PATH")))
    if (auto T = firstUnder(P, "CMAKE_PREFIX_PATH", Tried))
      return T;
  // Python's torch package: the CUDA build on GPU machines.
  const char *Python = std::getenv("LIBTORCH_TIDY_PYTHON");
  std::string Py = Python && *Python ? Python : "python3";
  ProcessResult R = runProcess(
      {Py, "-c", "import torch.utils; print(torch.utils.cmake_prefix_path)"},
      "", Limits{60, 0});
  if (R.Started && R.ExitCode == 0 && !R.TimedOut) {
    std::string Out = trim(R.Output);
    Out = Out.substr(Out.find_last_of('\n') == std::string::npos
                         ? 0
                         : Out.find_last_of('\n') + 1);
    if (auto T = firstUnder(Out, "Python torch package", Tried))
      return T;
  } else {
    Tried.push_back(Py + " has no torch package");
  }
  const char *System = std::getenv("LIBTORCH_TIDY_SYSTEM_PREFIX");
  fs::path Usr = System && *System ? System : "/usr";
  Tried.push_back("Debian libtorch-dev (" +
                  (Usr / "lib/*/cmake/Torch").string() + ")");
  std::error_code EC;
  if (pathExists(Usr / "lib"))
    for (const auto &D : fs::directory_iterator(Usr / "lib", EC))
      if (auto T = installAt(D.path() / "cmake/Torch", "Debian libtorch-dev"))
        return T;
  return std::nullopt;
}

std::string compilerVersion(const std::string &Cxx) {
  ProcessResult R = runProcess({Cxx, "--version"}, "", Limits{30, 0});
  if (!R.Started || R.ExitCode != 0)
    return "";
  return trim(R.Output.substr(0, R.Output.find('\n')));
}

namespace {

std::vector<std::string> compileFlags(const Toolchain &T) {
  // NDEBUG as in release builds: debug-only code (a fix may move code
  // there) is what users ship without.
  std::vector<std::string> F = {"-std=c++17", "-O2",   "-DNDEBUG",
                                "-w",         "-fPIC", "-pthread"};
  if (!T.Torch.CxxAbi.empty())
    F.push_back("-D_GLIBCXX_USE_CXX11_ABI=" + T.Torch.CxxAbi);
  F.push_back("-I" + T.SupportDir);
  for (const std::string &I : T.Torch.IncludeDirs) {
    // Re-adding a default directory (Debian's /usr/include) breaks the
    // #include_next chain of the C++ library.
    if (I == "/usr/include" || I == "/usr/local/include")
      continue;
    F.push_back("-isystem");
    F.push_back(I);
  }
  return F;
}

bool isClang(const std::string &Cxx) {
  return fs::path(Cxx).filename().string().find("clang") != std::string::npos;
}

std::string firstErrors(const std::string &Log) {
  std::stringstream S(Log);
  std::string Out;
  int N = 0;
  std::set<std::string> Seen;
  for (std::string L; std::getline(S, L) && N < 3;)
    if (L.find("error:") != std::string::npos && Seen.insert(L).second)
      Out += (N++ ? "\n" : "") + L;
  return Out.empty() ? trim(Log.substr(0, 400)) : Out;
}

/// The headers a harness's support header is made of: in the PCH's key and
/// copied next to it (HarnessSupport.h includes the others by name).
const char *const SupportHeaders[] = {"HarnessSupport.h", "MeasureLoop.h",
                                      "Stats.h"};

struct PrecompiledHeader {
  std::string Path; ///< empty when it cannot be built: -include the header
  bool Reused = false;
};

/// The precompiled support header for these flags, built once and kept.
PrecompiledHeader precompiledHeader(const Toolchain &T,
                                    const std::vector<std::string> &Flags) {
  std::string Key = T.CxxVersion + "\n" + T.Torch.CMakeDir;
  for (const std::string &F : Flags)
    Key += "\n" + F;
  std::string Support;
  for (const char *Name : SupportHeaders)
    Support += readFile(fs::path(T.SupportDir) / Name);
  char Hex[32];
  std::snprintf(Hex, sizeof(Hex), "%016zx",
                std::hash<std::string>()(Key + Support));
  fs::path Dir = fs::path(T.CacheDir) / (std::string("pch-") + Hex);
  fs::path Pch = Dir / "HarnessSupport.h.pch";
  if (pathExists(Pch))
    return {Pch.string(), /*Reused=*/true};
  std::error_code EC;
  fs::create_directories(Dir, EC);
  // The header is copied next to its PCH: clang refuses a PCH whose header
  // changed since, and the source tree may be touched. Once there, a copy is
  // never replaced (its content is in the directory's name): a parallel run
  // rewriting it would make clang refuse the PCH another run just built.
  for (const char *Name : SupportHeaders) {
    if (pathExists(Dir / Name))
      continue;
    fs::path Copy =
        Dir / (std::string(Name) + ".tmp" + std::to_string(::getpid()));
    fs::copy_file(fs::path(T.SupportDir) / Name, Copy,
                  fs::copy_options::overwrite_existing, EC);
    fs::create_hard_link(Copy, Dir / Name, EC); // fails if there already
    fs::remove(Copy, EC);
  }
  std::string Temp = Pch.string() + ".tmp" + std::to_string(::getpid());
  std::vector<std::string> Cmd = {T.Cxx};
  for (const std::string &F : Flags)
    Cmd.push_back(F);
  for (const char *F : {"-fpch-instantiate-templates", "-x", "c++-header"})
    Cmd.push_back(F);
  Cmd.push_back((Dir / "HarnessSupport.h").string());
  Cmd.push_back("-o");
  Cmd.push_back(Temp);
  ProcessResult R = runProcess(Cmd, "", Limits{600, 0});
  if (!R.Started || R.ExitCode != 0 || R.TimedOut) {
    fs::remove(Temp, EC);
    return {};
  }
  fs::rename(Temp, Pch, EC);
  return {EC ? "" : Pch.string(), /*Reused=*/false};
}

} // namespace

BuildResult buildHarness(const Toolchain &T, const std::string &Source,
                         const std::string &Dir, const std::string &Name) {
  BuildResult B;
  std::vector<std::string> Flags = compileFlags(T);
  fs::path Src = fs::path(Dir) / (Name + ".cpp");
  {
    std::ofstream Out(Src);
    Out << Source;
    if (!Out) {
      B.Errors = "cannot write " + Src.string();
      return B;
    }
  }
  std::vector<std::string> Cmd = {T.Cxx};
  for (const std::string &F : Flags)
    Cmd.push_back(F);
  PrecompiledHeader Pch;
  if (isClang(T.Cxx) && !T.CacheDir.empty())
    Pch = precompiledHeader(T, Flags);
  B.PchReused = Pch.Reused;
  if (!Pch.Path.empty()) {
    Cmd.push_back("-include-pch");
    Cmd.push_back(Pch.Path);
  } else {
    Cmd.push_back("-include");
    Cmd.push_back((fs::path(T.SupportDir) / "HarnessSupport.h").string());
  }
  Cmd.push_back(Src.string());
  Cmd.push_back((fs::path(T.SupportDir) / "Stats.cpp").string());
  B.Binary = (fs::path(Dir) / Name).string();
  Cmd.push_back("-o");
  Cmd.push_back(B.Binary);
  for (const std::string &F :
       {"-L" + T.Torch.LibDir, "-Wl,-rpath," + T.Torch.LibDir,
        std::string("-Wl,--no-as-needed")})
    Cmd.push_back(F);
  // libtorch_cuda registers the CUDA kernels when loaded; nothing refers to
  // it by symbol, hence --no-as-needed.
  for (const char *L : {"-ltorch", "-ltorch_cpu", "-lc10"})
    Cmd.push_back(L);
  if (T.Torch.Cuda)
    for (const char *L : {"-ltorch_cuda", "-lc10_cuda"})
      Cmd.push_back(L);
  Cmd.push_back("-Wl,--as-needed");
  ProcessResult R = runProcess(Cmd, Dir, Limits{600, 0});
  B.Seconds = R.Seconds;
  B.Ok = R.Started && R.ExitCode == 0 && !R.TimedOut;
  if (!B.Ok)
    B.Errors = R.Started ? firstErrors(R.Output)
                         : "cannot run the compiler '" + T.Cxx + "'";
  return B;
}

} // namespace torchtidy
