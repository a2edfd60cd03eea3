//===--- TorchTidyFuzzer.cpp - libtorch-tidy ------------------------------===//
//
// libFuzzer target: each input is the text of one C++ source file. It is
// analyzed in-process with every torch-* check (C++17, the mock LibTorch
// headers of test/checkers/Inputs), then, as the driver does it:
//   - the fix-its are applied to the text (they must all land in the input,
//     inside it), and the fixed text is analyzed once more;
//   - the diagnostics go through clang-tidy's --export-fixes YAML into the
//     --export-findings and --export-sarif writers of the driver, which must
//     not fail.
// Only our code (checks/, driver/FindingsExport.cpp, driver/SarifExport.cpp,
// this file) is built with the sanitizers and coverage; Clang comes from
// Debian's shared libraries.
//
// Configuration, all through the environment (scripts/fuzz.sh sets it):
//   LIBTORCH_TIDY_FUZZ_MOCK  the mock headers' root (.../Inputs/libtorch):
//                            a snapshot, so that edits of the tests during
//                            a run do not invalidate the PCHs
//   LIBTORCH_TIDY_FUZZ_EXTRA more include directories (gtest, conv-helpers),
//                            separated by ':'
//   LIBTORCH_TIDY_FUZZ_PCH   a directory with v1.13.pch, v2.1.pch and
//                            unversioned.pch of fuzz/prefix.h (optional:
//                            without it, each input parses the headers)
//   LIBTORCH_TIDY_FUZZ_WORK  a scratch directory (the exported files)
//   LIBTORCH_TIDY_FUZZ_VERBOSE=1  print each input's configuration and
//                            findings: how to replay a crash with the driver
//
// Which mock version and which check options an input gets is decided by
// the input itself, so that a saved crash replays the same way: the RUN line
// of a test (`%torch_mock_2`, `%torch_mock_none`, `%torch_mock_1_13`) picks
// the version, else a hash of the text does; the hash also picks one of two
// option sets (the defaults, or every option away from its default) and
// the -D macros of the conv-bias tests. The PCH is used when the input names
// a torch/ header.
//
//===----------------------------------------------------------------------===//

#include "export/FindingsExport.h"
#include "export/SarifExport.h"
#include "TorchTidyModule.h"
#include "utils/FindingPayload.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace torchtidy {
static clang::tidy::ClangTidyModuleRegistry::Add<
    clang::tidy::torch::TorchModule>
    Registration(clang::tidy::torch::ModuleName,
                 clang::tidy::torch::ModuleDescription);
} // namespace torchtidy

using namespace clang;
using namespace clang::tidy;

namespace {

struct Setup {
  std::string Mock;
  std::vector<std::string> Extra;
  std::string PCHDir;
  std::string Work;
  std::string ResourceDir;
  bool Verbose = false;
};

Setup &setup() {
  static Setup S;
  return S;
}

std::string env(const char *Name, const char *Default = "") {
  const char *V = std::getenv(Name);
  return V && *V ? V : Default;
}

[[noreturn]] void die(const std::string &Message) {
  // A finding of the fuzzer, not a usage error: abort so libFuzzer saves the
  // input.
  std::fprintf(stderr, "torch-tidy-fuzzer: %s\n", Message.c_str());
  std::fflush(stderr);
  std::abort();
}

uint64_t fnv1a(llvm::StringRef Text) {
  uint64_t H = 1469598103934665603ULL;
  for (unsigned char C : Text) {
    H ^= C;
    H *= 1099511628211ULL;
  }
  return H;
}

struct Config {
  std::string Version; // "v1.13", "v2.1", "unversioned"
  bool NonDefaultOptions = false;
  std::vector<std::string> Defines;
  /// Whether the input includes LibTorch at all: one that declares its own
  /// namespace torch (to hit the checks with odd signatures) must not get
  /// the mock headers' declarations through the PCH.
  bool UsePCH = false;
};

Config configFor(llvm::StringRef Text) {
  Config C;
  uint64_t H = fnv1a(Text);
  if (Text.contains("%torch_mock_2"))
    C.Version = "v2.1";
  else if (Text.contains("%torch_mock_none"))
    C.Version = "unversioned";
  else if (Text.contains("%torch_mock_1_13"))
    C.Version = "v1.13";
  else
    C.Version = H % 3 == 0 ? "v1.13" : H % 3 == 1 ? "v2.1" : "unversioned";
  C.UsePCH = Text.contains("torch/");
  C.NonDefaultOptions = (H >> 8) & 1;
  if ((H >> 9) & 1)
    C.Defines.push_back("-DLOAD_MODULE");
  if ((H >> 10) & 1)
    C.Defines.push_back("-DLOAD_JIT");
  return C;
}

std::vector<std::string> compilerArgs(const Config &C) {
  const Setup &S = setup();
  // As test/lit.cfg.py's %torch_mock_* substitutions.
  std::vector<std::string> Args = {
      "-std=c++17",
      "-resource-dir",
      S.ResourceDir,
      "-isystem",
      S.Mock + "/" + C.Version + "/include/torch/csrc/api/include",
      "-isystem",
      S.Mock + "/common/include",
      "-isystem",
      S.Mock + "/common/include/torch/csrc/api/include"};
  for (const std::string &E : S.Extra) {
    Args.push_back("-I");
    Args.push_back(E);
  }
  if (!S.PCHDir.empty() && C.UsePCH) {
    Args.push_back("-include-pch");
    Args.push_back(S.PCHDir + "/" + C.Version + ".pch");
  }
  Args.insert(Args.end(), C.Defines.begin(), C.Defines.end());
  return Args;
}

ClangTidyOptions optionsFor(const Config &C) {
  ClangTidyOptions O = ClangTidyOptions::getDefaults();
  O.Checks = "-*,torch-*";
  O.HeaderFilterRegex = ".*";
  if (C.NonDefaultOptions) {
    auto Set = [&](const char *Key, const char *Value) {
      O.CheckOptions[Key] = ClangTidyOptions::ClangTidyValue(Value);
    };
    Set("torch-zero-grad.IncludeModules", "false");
    Set("torch-zero-grad.ManualLoops", "true");
    Set("torch-zero-grad.VersionGuard", "false");
    Set("torch-zero-grad.TorchVersion", "1.12");
    Set("torch-host-sync-in-loop.MaxCallDepth", "1");
    Set("torch-host-sync-in-loop.CheckCpuOnlyCode", "true");
    Set("torch-conv-bias-before-batchnorm.CheckpointLoaders",
        "load_state_dict;restore_weights");
    Set("torch-debug-api-enabled.AnomalyFix", "remove");
    Set("torch-debug-api-enabled.TestFilePattern", "input");
  }
  return O;
}

/// One analysis of \p Text as the file \p Path; returns the diagnostics.
std::vector<ClangTidyError> analyze(const std::string &Path,
                                    llvm::StringRef Text, const Config &C) {
  auto InMemory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  InMemory->addFile(Path, 0, llvm::MemoryBuffer::getMemBufferCopy(Text, Path));
  auto Overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::createPhysicalFileSystem());
  Overlay->pushOverlay(InMemory);

  ClangTidyContext Context(std::make_unique<DefaultOptionsProvider>(
      ClangTidyGlobalOptions(), optionsFor(C)));
  std::vector<std::string> Args = compilerArgs(C);
  tooling::FixedCompilationDatabase DB(setup().Work, Args);
  return runClangTidy(Context, DB, {Path}, Overlay, /*ApplyAnyFix=*/true);
}

/// The fix-its of the torch-* diagnostics applied to \p Text, as
/// clang-tidy --fix does it (a fix that conflicts with an earlier one is
/// skipped); dies when a fix-it is outside the input.
std::string applyFixes(const std::vector<ClangTidyError> &Errors,
                       const std::string &Path, llvm::StringRef Text) {
  tooling::Replacements All;
  for (const ClangTidyError &E : Errors) {
    if (!llvm::StringRef(E.DiagnosticName).starts_with("torch-"))
      continue;
    for (const auto &[File, Replacements] : E.Message.Fix)
      for (const tooling::Replacement &R : Replacements) {
        if (R.getFilePath() != Path)
          die("a fix-it of " + E.DiagnosticName + " edits '" +
              R.getFilePath().str() + "', not the input");
        if (R.getOffset() + R.getLength() > Text.size())
          die("a fix-it of " + E.DiagnosticName + " ends at " +
              std::to_string(R.getOffset() + R.getLength()) +
              ", past the input's " + std::to_string(Text.size()) + " bytes");
      }
    // One diagnostic's fix-its go in together or not at all.
    tooling::Replacements Merged = All;
    bool Ok = true;
    for (const auto &[File, Replacements] : E.Message.Fix)
      for (const tooling::Replacement &R : Replacements)
        if (llvm::Error Err = Merged.add(R)) {
          llvm::consumeError(std::move(Err));
          Ok = false;
        }
    if (Ok)
      All = std::move(Merged);
  }
  auto Fixed = tooling::applyAllReplacements(Text, All);
  if (!Fixed)
    die("applying the fix-its failed: " + llvm::toString(Fixed.takeError()));
  return *Fixed;
}

void exportAll(const std::vector<ClangTidyError> &Errors,
               const std::string &Path, llvm::StringRef Text) {
  const std::string &Work = setup().Work;
  std::string Yaml = Work + "/fixes.yaml";
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Yaml, EC);
    if (EC)
      die("cannot write " + Yaml + ": " + EC.message());
    exportReplacements(Path, Errors, OS);
  }
  llvm::StringMap<std::string> Originals;
  Originals[Path] = Text.str();
  if (llvm::Error Error = torchtidy::exportFindings(
          Yaml, Work + "/findings.json", Originals))
    die("--export-findings failed: " + llvm::toString(std::move(Error)));
  if (llvm::Error Error =
          torchtidy::exportSarif(Yaml, Work + "/out.sarif", Work, Originals))
    die("--export-sarif failed: " + llvm::toString(std::move(Error)));
}

void clearPayloads() {
  // The payloads of one run of the driver live until it exits; here they
  // would pile up over millions of inputs.
  const_cast<std::vector<clang::tidy::torch::utils::FindingPayload> &>(
      clang::tidy::torch::utils::recordedPayloads())
      .clear();
}

void printErrors(const char *What, const std::vector<ClangTidyError> &Errors) {
  for (const ClangTidyError &E : Errors)
    std::fprintf(stderr, "  %s: %s @%u: %s\n", What, E.DiagnosticName.c_str(),
                 E.Message.FileOffset, E.Message.Message.c_str());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  Setup &S = setup();
  S.Mock = env("LIBTORCH_TIDY_FUZZ_MOCK", LIBTORCH_TIDY_FUZZ_DEFAULT_MOCK);
  S.PCHDir = env("LIBTORCH_TIDY_FUZZ_PCH");
  S.Work = env("LIBTORCH_TIDY_FUZZ_WORK");
  S.ResourceDir = env("LIBTORCH_TIDY_FUZZ_RESOURCE_DIR",
                      LIBTORCH_TIDY_FUZZ_DEFAULT_RESOURCE_DIR);
  S.Verbose = env("LIBTORCH_TIDY_FUZZ_VERBOSE") == "1";
  const std::string ExtraDirs = env("LIBTORCH_TIDY_FUZZ_EXTRA");
  for (llvm::StringRef Rest = ExtraDirs; !Rest.empty();) {
    auto [Dir, Tail] = Rest.split(':');
    if (!Dir.empty())
      S.Extra.push_back(Dir.str());
    Rest = Tail;
  }
  if (S.Work.empty()) {
    llvm::SmallString<128> Dir;
    if (llvm::sys::fs::createUniqueDirectory("torch-tidy-fuzz", Dir))
      die("cannot create a scratch directory");
    S.Work = Dir.str().str();
  }
  llvm::sys::fs::create_directories(S.Work);
  if (!llvm::sys::fs::is_directory(S.Mock + "/common/include"))
    die("no mock LibTorch headers under '" + S.Mock +
        "' (set LIBTORCH_TIDY_FUZZ_MOCK)");
  clang::tidy::torch::utils::enablePayloads();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // Clang reads a file up to its first NUL as far as the lexer goes, and
  // files that large only slow the fuzzer down.
  if (Size > 64 * 1024)
    return -1;
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  const Setup &S = setup();
  const std::string Path = S.Work + "/input.cpp";
  Config C = configFor(Text);
  if (S.Verbose) {
    std::fprintf(stderr, "torch-tidy-fuzzer: mock %s, %s options,",
                 C.Version.c_str(),
                 C.NonDefaultOptions ? "non-default" : "default");
    if (!S.PCHDir.empty() && C.UsePCH)
      std::fprintf(stderr, " -include-pch %s/%s.pch,", S.PCHDir.c_str(),
                   C.Version.c_str());
    for (const std::string &D : C.Defines)
      std::fprintf(stderr, " %s", D.c_str());
    std::fprintf(stderr, "\n");
  }

  clearPayloads();
  std::vector<ClangTidyError> Errors = analyze(Path, Text, C);
  if (S.Verbose)
    printErrors("finding", Errors);
  exportAll(Errors, Path, Text);
  std::string Fixed = applyFixes(Errors, Path, Text);
  if (Fixed != Text) {
    // The fixed code, as the next run of the tool sees it.
    clearPayloads();
    std::vector<ClangTidyError> Again = analyze(Path, Fixed, C);
    if (S.Verbose)
      printErrors("after the fixes", Again);
    applyFixes(Again, Path, Fixed);
  }
  clearPayloads();
  return 0;
}
