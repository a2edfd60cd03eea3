//===--- PrecompiledHeaders.h - libtorch-tidy-verify ------------*- C++ -*-===//
//
// Program mode precompiles LibTorch's headers in the scratch build, once
// for the baseline, so that a variant's rebuild compiles the user's code
// only (a LibTorch translation unit spends nearly all its time in the
// headers). Only the scratch copy is configured so: the hook is a CMake
// script in the run's temporary directory, passed as CMAKE_PROJECT_INCLUDE.
//
// A precompiled header is force-included before the first line of a
// source, so it stands in for the source's own includes only when nothing
// before them could change what they mean: the verifier reads each C++
// source's includes (following the project's own headers) and gives the
// hook the sources whose LibTorch includes come first, with the headers they
// name. The hook, deferred to the end of the top-level configure, puts those
// headers into a PCH of each target that compiles such sources, and keeps
// every other source of the target off it. No LibTorch and no LLVM here.
//
//===----------------------------------------------------------------------===//

#ifndef LIBTORCH_TIDY_VERIFY_PRECOMPILEDHEADERS_H
#define LIBTORCH_TIDY_VERIFY_PRECOMPILEDHEADERS_H

#include <map>
#include <string>
#include <vector>

namespace torchtidy {

/// The project's C and C++ files, by path relative to its source root.
struct SourceFiles {
  std::map<std::string, std::string> Text;

  /// Reads the source and header files under \p Root (a scratch copy).
  static SourceFiles read(const std::string &Root);
};

/// What one source's includes say of a precompiled header.
struct IncludeScan {
  /// The LibTorch headers it includes (torch/, ATen/, c10/), in order.
  std::vector<std::string> Headers;
  /// Why a precompiled header may not stand in for them (a #define, a
  /// condition or code that comes first), or "" when it may.
  std::string Unsafe;
};

/// Reads the includes of \p File (a key of \p Files), following those that
/// name the project's own headers.
IncludeScan scanIncludes(const SourceFiles &Files, const std::string &File);

/// A source the precompiled header may serve.
struct PchSource {
  std::string File;                 ///< relative to the source root
  std::vector<std::string> Headers; ///< the LibTorch headers it includes
};

/// A source that includes LibTorch but compiles without the PCH, and why.
struct PchSkip {
  std::string File, Why;
};

struct PchScan {
  std::vector<PchSource> Sources;
  std::vector<PchSkip> Skipped;
};

/// Scans every C++ source of \p Files.
PchScan scanSources(const SourceFiles &Files);

/// A CMake quoted argument holding \p Value.
std::string cmakeQuoted(const std::string &Value);

/// The CMAKE_PROJECT_INCLUDE script for the scratch configure: it includes
/// \p UserInclude first (the user's own CMAKE_PROJECT_INCLUDE, if any), then
/// gives each target's sources of \p Scan a PCH, and writes one line per
/// target it changed to \p ReportFile (parsePchReport). Unless
/// \p AnyCompiler, only where the C++ compiler is Clang: Clang's PCH keeps
/// the template instantiations of LibTorch's inline code (CMake builds it
/// with -fpch-instantiate-templates), GCC's does not, and those are most of
/// what a LibTorch file costs once parsing is gone (measured in
/// docs/verifier.md); elsewhere the report says "compiler\tID".
std::string pchHookScript(const PchScan &Scan, const std::string &UserInclude,
                          const std::string &ReportFile,
                          bool AnyCompiler = false);

/// The compiler the hook found and skipped ("GNU"), from its report; ""
/// when it did not skip for the compiler.
std::string pchReportCompiler(const std::string &Text);

/// A target the hook gave a precompiled header.
struct PchTarget {
  std::string Name;
  std::vector<std::string> Headers;
  long Sources = 0; ///< compiled with it
  long Skipped = 0; ///< C++ sources of the target compiled without it
};

/// The hook's report: TARGET<TAB>HEADER|HEADER...<TAB>SOURCES<TAB>SKIPPED.
std::vector<PchTarget> parsePchReport(const std::string &Text);

} // namespace torchtidy

#endif // LIBTORCH_TIDY_VERIFY_PRECOMPILEDHEADERS_H
