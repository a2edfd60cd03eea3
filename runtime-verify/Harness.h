//===--- Harness.h - libtorch-tidy-verify -----------------------*- C++ -*-===//
//
// Snippet harnesses: binding a finding's free variables to fixtures,
// generating one translation unit for all findings of a run, finding a
// LibTorch to build it against, and building it with a cached precompiled
// header. Links neither LibTorch nor LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_HARNESS_H
#define LIBTORCH_TIDY_VERIFY_HARNESS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

/// What the user told us about the snippets' variables (--shape, --value or
/// a config file).
struct BindingConfig {
  /// Tensor sizes and dtype (a LibTorch ScalarType name, default kFloat).
  struct TensorSpec {
    std::vector<int64_t> Sizes;
    std::string Dtype = "kFloat";
  };
  std::map<std::string, TensorSpec> Tensors;
  /// Initial values of arithmetic variables (default 0).
  std::map<std::string, std::string> Values;
};

/// Parses "NAME=4x8" or "NAME=16:kLong" into \p Config; false with a
/// one-line \p Error otherwise.
bool parseShapeOption(const std::string &Text, BindingConfig &Config,
                      std::string &Error);
/// Parses "NAME=VALUE" (a number or true/false).
bool parseValueOption(const std::string &Text, BindingConfig &Config,
                      std::string &Error);
/// Reads {"shapes": {"x": [4, 8] or {"sizes": [...], "dtype": "kLong"}},
/// "values": {"n": 3}}.
bool readConfigFile(const std::string &Path, BindingConfig &Config,
                    std::string &Error);

/// The C++ code that declares a finding's free variables, or why it cannot.
struct Binding {
  bool Bound = false;
  std::string Reason;                ///< when not bound
  std::string Fixtures;              ///< declarations, one per line
  std::vector<std::string> Compared; ///< variables whose state is compared
};

/// Binds \p Code (a finding's "code" object): tensors get configured
/// shapes, devices the machine's, numbers their configured value or 0,
/// modules and optimizers their construction from the user's code.
Binding bindSnippet(const nlohmann::json &Code, const BindingConfig &Config);

struct HarnessEntry {
  int Finding = 0; ///< index in the findings file
  Binding Bind;
  nlohmann::json Code;
  std::string File; ///< for #line, so errors point at the user's code
};

/// One translation unit for \p Entries; entry I of the harness is
/// Entries[I].
std::string generateHarness(const std::vector<HarnessEntry> &Entries);

/// A LibTorch installation to build harnesses against.
struct TorchInstall {
  std::string CMakeDir; ///< the directory of TorchConfig.cmake
  std::string From;     ///< which rule found it, in words
  std::vector<std::string> IncludeDirs;
  std::string LibDir;
  std::string CxxAbi; ///< "0", "1" or "" (the compiler's default)
  bool Cuda = false;  ///< libtorch_cuda is there
};

/// Looks for LibTorch in order: \p TorchDirFlag (a Torch CMake directory or
/// an install prefix), $Torch_DIR, each $CMAKE_PREFIX_PATH entry, Python's
/// torch package (torch.utils.cmake_prefix_path), Debian's libtorch-dev.
/// On failure, \p Tried lists what was looked at.
std::optional<TorchInstall> locateTorch(const std::string &TorchDirFlag,
                                        std::vector<std::string> &Tried);

struct BuildResult {
  bool Ok = false;
  std::string Binary;
  std::string Errors; ///< the first compiler errors, when not Ok
  double Seconds = 0;
  bool PchReused = false;
};

struct Toolchain {
  std::string Cxx;        ///< compiler command
  std::string CxxVersion; ///< its compilerVersion(), part of the PCH key
  /// HarnessSupport.h, MeasureLoop.h, Stats.h, Stats.cpp
  std::string SupportDir;
  std::string CacheDir;   ///< for the precompiled header; empty for none
  TorchInstall Torch;
};

/// Builds \p Source as \p Dir/NAME with the precompiled support header
/// (built once per compiler, flags and LibTorch, and kept in CacheDir).
BuildResult buildHarness(const Toolchain &T, const std::string &Source,
                         const std::string &Dir, const std::string &Name);

/// The compiler's first line of --version.
std::string compilerVersion(const std::string &Cxx);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_HARNESS_H
