//===--- TorchFlags.cpp - libtorch-tidy -----------------------------------===//

#include "cli/TorchFlags.h"
#include "support/TempFiles.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <cstdlib>
#include <optional>

namespace torchtidy {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

bool hasCompilationDatabase(llvm::StringRef File) {
  llvm::SmallString<256> Dir(File);
  fs::make_absolute(Dir);
  for (llvm::StringRef D = path::parent_path(Dir); !D.empty();
       D = path::parent_path(D)) {
    for (const char *Name : {"compile_commands.json", "compile_flags.txt"}) {
      llvm::SmallString<256> P(D);
      path::append(P, Name);
      if (fs::exists(P))
        return true;
    }
    if (D == path::parent_path(D))
      break;
  }
  return false;
}

namespace {

/// The LibTorch prefix above a CMake directory or prefix \p Start: the first
/// ancestor holding include/torch/csrc/api/include/torch/torch.h.
std::optional<std::string> prefixAbove(llvm::StringRef Start) {
  llvm::SmallString<256> P(Start);
  fs::make_absolute(P);
  for (int Up = 0; Up < 5 && !P.empty(); ++Up) {
    llvm::SmallString<256> Header(P);
    path::append(Header, "include/torch/csrc/api/include/torch/torch.h");
    if (fs::exists(Header))
      return P.str().str();
    P = path::parent_path(P);
  }
  return std::nullopt;
}

std::vector<std::string> flagsFor(llvm::StringRef Prefix) {
  llvm::SmallString<256> Include(Prefix), Api(Prefix);
  path::append(Include, "include");
  path::append(Api, "include/torch/csrc/api/include");
  std::vector<std::string> Flags = {"-std=c++17"};
  // Re-adding /usr/include breaks the #include_next chain of libstdc++.
  if (Include != "/usr/include")
    Flags.insert(Flags.end(), {"-isystem", Include.str().str()});
  Flags.insert(Flags.end(), {"-isystem", Api.str().str()});
  return Flags;
}

std::optional<std::string> pythonTorchPrefix() {
  auto Python = llvm::sys::findProgramByName("python3");
  if (!Python)
    return std::nullopt;
  llvm::SmallString<128> Out;
  if (createRunTempFile("python", "txt", Out))
    return std::nullopt;
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Out.str(),
                                                llvm::StringRef("")};
  int RC = llvm::sys::ExecuteAndWait(
      *Python,
      {*Python, "-c",
       "import torch.utils; print(torch.utils.cmake_prefix_path)"},
      std::nullopt, Redirects, /*SecondsToWait=*/60);
  auto Buffer = llvm::MemoryBuffer::getFile(Out);
  fs::remove(Out);
  if (RC != 0 || !Buffer)
    return std::nullopt;
  return prefixAbove((*Buffer)->getBuffer().trim());
}

} // namespace

std::vector<std::string> defaultTorchFlags(std::string &From) {
  if (const char *Dir = std::getenv("Torch_DIR"); Dir && *Dir)
    if (auto P = prefixAbove(Dir)) {
      From = "Torch_DIR";
      return flagsFor(*P);
    }
  if (const char *Prefixes = std::getenv("CMAKE_PREFIX_PATH")) {
    llvm::SmallVector<llvm::StringRef, 4> Entries;
    llvm::StringRef(Prefixes).split(Entries, ':', -1, false);
    for (llvm::StringRef E : Entries)
      if (auto P = prefixAbove(E)) {
        From = "CMAKE_PREFIX_PATH";
        return flagsFor(*P);
      }
  }
  if (auto P = pythonTorchPrefix()) {
    From = "Python torch package";
    return flagsFor(*P);
  }
  if (fs::exists("/usr/include/torch/csrc/api/include/torch/torch.h")) {
    From = "Debian libtorch-dev";
    return flagsFor("/usr");
  }
  From = "none found";
  return {"-std=c++17"};
}

} // namespace torchtidy
