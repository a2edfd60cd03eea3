//===--- PrecompiledHeaders.cpp - libtorch-tidy-verify --------------------===//

#include "PrecompiledHeaders.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace torchtidy {
namespace {

// Larger files are data or generated code; a tree with more files than this
// is read in part (its other sources compile without the PCH).
constexpr uintmax_t MaxFileBytes = 1 << 20;
constexpr size_t MaxFiles = 20000;
constexpr int MaxDepth = 64;

bool endsWith(const std::string &S, const std::string &Tail) {
  return S.size() >= Tail.size() &&
         S.compare(S.size() - Tail.size(), Tail.size(), Tail) == 0;
}

bool isSource(const std::string &Path) {
  for (const char *Ext : {".cpp", ".cc", ".cxx", ".c++", ".C"})
    if (endsWith(Path, Ext))
      return true;
  return false;
}

bool isHeader(const std::string &Path) {
  for (const char *Ext :
       {".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".cuh"})
    if (endsWith(Path, Ext))
      return true;
  return false;
}

bool isTorchHeader(const std::string &Name) {
  for (const char *Prefix : {"torch/", "ATen/", "c10/"})
    if (Name.rfind(Prefix, 0) == 0)
      return true;
  return false;
}

std::string trimmed(const std::string &S) {
  size_t B = S.find_first_not_of(" \t\r\f\v");
  if (B == std::string::npos)
    return "";
  size_t E = S.find_last_not_of(" \t\r\f\v");
  return S.substr(B, E - B + 1);
}

/// The text's lines with continuations joined and comments blanked: what
/// the preprocessor sees of each directive.
std::vector<std::string> logicalLines(const std::string &Text) {
  std::string Spliced;
  Spliced.reserve(Text.size());
  for (size_t I = 0; I < Text.size(); ++I) {
    if (Text[I] == '\\' && I + 1 < Text.size() && Text[I + 1] == '\n') {
      ++I;
      continue;
    }
    if (Text[I] == '\\' && I + 2 < Text.size() && Text[I + 1] == '\r' &&
        Text[I + 2] == '\n') {
      I += 2;
      continue;
    }
    Spliced += Text[I];
  }
  enum { Code, Block, String, Char } State = Code;
  std::vector<std::string> Lines;
  std::string Line;
  for (size_t I = 0; I < Spliced.size(); ++I) {
    char C = Spliced[I], Next = I + 1 < Spliced.size() ? Spliced[I + 1] : 0;
    if (C == '\n') {
      Lines.push_back(trimmed(Line));
      Line.clear();
      if (State != Block)
        State = Code;
      continue;
    }
    switch (State) {
    case Block:
      if (C == '*' && Next == '/') {
        State = Code;
        ++I;
        Line += ' ';
      }
      continue;
    case String:
    case Char:
      Line += C;
      if (C == '\\' && Next != '\n' && Next) {
        Line += Next;
        ++I;
      } else if (C == (State == String ? '"' : '\'')) {
        State = Code;
      }
      continue;
    case Code:
      break;
    }
    if (C == '/' && Next == '/') {
      while (I + 1 < Spliced.size() && Spliced[I + 1] != '\n')
        ++I;
      continue;
    }
    if (C == '/' && Next == '*') {
      State = Block;
      ++I;
      continue;
    }
    // An include's <...> or "..." is one token; quotes elsewhere on a
    // directive line are literals all the same.
    if (C == '"')
      State = String;
    else if (C == '\'')
      State = Char;
    Line += C;
  }
  Lines.push_back(trimmed(Line));
  return Lines;
}

/// A directive's name and the rest of its line.
struct Directive {
  std::string Name, Rest;
};

bool parseDirective(const std::string &Line, Directive &D) {
  if (Line.empty() || Line[0] != '#')
    return false;
  std::string Body = trimmed(Line.substr(1));
  size_t End = 0;
  while (End < Body.size() &&
         (std::isalnum(static_cast<unsigned char>(Body[End])) ||
          Body[End] == '_'))
    ++End;
  D.Name = Body.substr(0, End);
  D.Rest = trimmed(Body.substr(End));
  return true;
}

/// The first word of a directive's rest.
std::string firstWord(const std::string &Rest) {
  size_t End = Rest.find_first_of(" \t(");
  return Rest.substr(0, End);
}

/// Pragmas that change no declaration (diagnostics, editor regions).
bool harmlessPragma(const std::string &Rest) {
  std::string W = firstWord(Rest);
  if (W == "once" || W == "message" || W == "region" || W == "endregion" ||
      W == "warning")
    return true;
  std::istringstream In(Rest);
  std::string Tool, What;
  In >> Tool >> What;
  return (Tool == "GCC" || Tool == "clang") && What == "diagnostic";
}

/// Follows one source's includes in the order the preprocessor would.
class IncludeWalk {
public:
  explicit IncludeWalk(const SourceFiles &Files) : Files(Files) {
    for (const auto &[Path, Text] : Files.Text)
      ByName[fs::path(Path).filename().string()].push_back(Path);
  }

  IncludeScan scan(const std::string &File) {
    Out = IncludeScan();
    Hazard.clear();
    Entered = {File};
    auto It = Files.Text.find(File);
    if (It != Files.Text.end())
      walk(File, It->second, 0);
    return Out;
  }

private:
  const SourceFiles &Files;
  std::map<std::string, std::vector<std::string>> ByName;
  IncludeScan Out;
  std::string Hazard; ///< the first line that could change what follows
  std::set<std::string> Entered;

  enum class Found { File, Missing, Ambiguous };

  bool done() const { return !Out.Unsafe.empty(); }

  void hazard(const std::string &File, size_t Line, const std::string &What) {
    if (Hazard.empty())
      Hazard = What + " at " + File + ":" + std::to_string(Line);
  }

  /// The tree's file whose path ends in \p Name, as an -I directory of the
  /// project would find it.
  Found bySuffix(const std::string &Name, std::string &Path) const {
    auto It = ByName.find(fs::path(Name).filename().string());
    if (It == ByName.end())
      return Found::Missing;
    std::vector<std::string> Matches;
    for (const std::string &Candidate : It->second)
      if (Candidate == Name || endsWith(Candidate, "/" + Name))
        Matches.push_back(Candidate);
    if (Matches.empty())
      return Found::Missing;
    if (Matches.size() > 1)
      return Found::Ambiguous;
    Path = Matches.front();
    return Found::File;
  }

  Found resolve(const std::string &From, const std::string &Name,
                bool Angled, bool NearOnly, std::string &Path) const {
    if (!Angled) {
      std::string Near =
          (fs::path(From).parent_path() / Name).lexically_normal().generic_string();
      if (Files.Text.count(Near)) {
        Path = Near;
        return Found::File;
      }
    }
    if (NearOnly || Name.find("..") != std::string::npos)
      return Found::Missing;
    // Standard headers have no extension: a file of the tree named like one
    // (a VERSION file) is not what <version> includes.
    if (Angled && !isHeader(Name))
      return Found::Missing;
    return bySuffix(Name, Path);
  }

  void include(const std::string &File, size_t Line, const Directive &D,
               int Depth) {
    const std::string &R = D.Rest;
    char Close = R.empty() ? 0 : R[0] == '<' ? '>' : R[0] == '"' ? '"' : 0;
    size_t End = Close ? R.find(Close, 1) : std::string::npos;
    if (D.Name != "include" || End == std::string::npos) {
      hazard(File, Line, "#" + D.Name + " " + R);
      return;
    }
    std::string Name = R.substr(1, End - 1);
    bool Angled = Close == '>';
    std::string Path;
    // A LibTorch name is the project's own file only next to the includer
    // (a vendored LibTorch elsewhere in the tree is still LibTorch).
    bool Torch = isTorchHeader(Name);
    Found F = Torch && Angled ? Found::Missing
                              : resolve(File, Name, Angled, Torch, Path);
    if (F == Found::File) {
      if (Depth < MaxDepth && Entered.insert(Path).second)
        walk(Path, Files.Text.at(Path), Depth + 1);
      return;
    }
    if (Torch) {
      // Again: guarded, so nothing before it can change it now.
      if (std::find(Out.Headers.begin(), Out.Headers.end(), Name) !=
          Out.Headers.end())
        return;
      if (!Hazard.empty()) {
        Out.Unsafe = Hazard + " comes before #include <" + Name + ">";
        return;
      }
      Out.Headers.push_back(Name);
      return;
    }
    // A system header, or a project header this scan cannot see (one
    // generated into the build directory, a config.h that defines macros).
    if (F == Found::Ambiguous)
      hazard(File, Line, "#include " + R + " (more than one file by that name)");
    else if (!Angled)
      hazard(File, Line, "#include " + R + " (not in the source tree)");
  }

  /// Index of the include guard's #ifndef and #define, or nothing.
  static std::pair<size_t, size_t>
  includeGuard(const std::vector<std::string> &Lines) {
    size_t None = Lines.size();
    std::vector<size_t> First;
    for (size_t I = 0; I < Lines.size() && First.size() < 2; ++I)
      if (!Lines[I].empty())
        First.push_back(I);
    Directive A, B;
    if (First.size() < 2 || !parseDirective(Lines[First[0]], A) ||
        !parseDirective(Lines[First[1]], B) || A.Name != "ifndef" ||
        B.Name != "define" || A.Rest.empty() || B.Rest != A.Rest)
      return {None, None};
    return {First[0], First[1]};
  }

  void walk(const std::string &File, const std::string &Text, int Depth) {
    std::vector<std::string> Lines = logicalLines(Text);
    auto [GuardIf, GuardDefine] = includeGuard(Lines);
    for (size_t I = 0; I < Lines.size() && !done(); ++I) {
      const std::string &L = Lines[I];
      Directive D;
      if (L.empty() || I == GuardIf || I == GuardDefine)
        continue;
      if (!parseDirective(L, D)) {
        hazard(File, I + 1, "code");
        continue;
      }
      if (D.Name.empty() || D.Name == "endif" ||
          (D.Name == "pragma" && harmlessPragma(D.Rest)))
        continue;
      if (D.Name == "include" || D.Name == "include_next" ||
          D.Name == "import") {
        include(File, I + 1, D, Depth);
        continue;
      }
      hazard(File, I + 1, "#" + D.Name + (D.Rest.empty() ? "" : " " + D.Rest));
    }
  }
};

/// Whether \p Name can stand in a CMake list and a quoted argument.
bool cmakeListSafe(const std::string &Name) {
  return Name.find_first_of(";|<>$\"\\\n\r") == std::string::npos;
}

std::string joined(const std::vector<std::string> &Parts, const char *Sep) {
  std::string Out;
  for (const std::string &P : Parts)
    Out += (Out.empty() ? "" : Sep) + P;
  return Out;
}

} // namespace

std::string cmakeQuoted(const std::string &Value) {
  std::string Out = "\"";
  for (char C : Value) {
    if (C == '\\' || C == '"' || C == '$')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

SourceFiles SourceFiles::read(const std::string &Root) {
  SourceFiles Files;
  std::error_code EC;
  fs::recursive_directory_iterator It(
      Root, fs::directory_options::skip_permission_denied, EC);
  for (; !EC && It != fs::recursive_directory_iterator() &&
         Files.Text.size() < MaxFiles;
       It.increment(EC)) {
    std::error_code Kind;
    if (!It->is_regular_file(Kind) || It->file_size(Kind) > MaxFileBytes)
      continue;
    std::string Rel =
        fs::path(It->path()).lexically_relative(Root).generic_string();
    if (!isSource(Rel) && !isHeader(Rel))
      continue;
    std::ifstream In(It->path(), std::ios::binary);
    std::ostringstream S;
    S << In.rdbuf();
    Files.Text[Rel] = S.str();
  }
  return Files;
}

IncludeScan scanIncludes(const SourceFiles &Files, const std::string &File) {
  return IncludeWalk(Files).scan(File);
}

PchScan scanSources(const SourceFiles &Files) {
  PchScan Scan;
  IncludeWalk Walk(Files);
  for (const auto &[Path, Text] : Files.Text) {
    if (!isSource(Path))
      continue;
    IncludeScan S = Walk.scan(Path);
    if (S.Headers.empty() && S.Unsafe.empty())
      continue; // no LibTorch: nothing to precompile
    bool Listable = cmakeListSafe(Path);
    for (const std::string &H : S.Headers)
      Listable = Listable && cmakeListSafe(H);
    if (!S.Unsafe.empty())
      Scan.Skipped.push_back({Path, S.Unsafe});
    else if (!Listable)
      Scan.Skipped.push_back({Path, "a name the CMake hook cannot list"});
    else
      Scan.Sources.push_back({Path, S.Headers});
  }
  return Scan;
}

std::string pchHookScript(const PchScan &Scan, const std::string &UserInclude,
                          const std::string &ReportFile, bool AnyCompiler) {
  std::string Files, Keys;
  for (const PchSource &S : Scan.Sources) {
    Files += "\n  " + cmakeQuoted(S.File);
    Keys += "\n  " + cmakeQuoted(joined(S.Headers, "|"));
  }
  std::string Out =
      "# libtorch-tidy-verify: precompiled LibTorch headers for the scratch\n"
      "# build of program mode (docs/verifier.md). Written into the run's\n"
      "# temporary directory; the user's tree and build never see it.\n";
  if (!UserInclude.empty())
    Out += "include(" + cmakeQuoted(UserInclude) + ")\n";
  Out += "get_property(_ltt_pch_armed GLOBAL PROPERTY LIBTORCH_TIDY_PCH)\n"
         "if(_ltt_pch_armed OR CMAKE_VERSION VERSION_LESS 3.19)\n"
         "  return() # once, for the first project(); DEFER needs 3.19\n"
         "endif()\n"
         "set_property(GLOBAL PROPERTY LIBTORCH_TIDY_PCH TRUE)\n"
         "# The functions keep these policies, whatever the project's.\n"
         "cmake_policy(PUSH)\n"
         "cmake_policy(VERSION 3.19)\n"
         "\n"
         "# The sources whose LibTorch includes come first (relative to the\n"
         "# top-level source directory) and their headers, '|'-separated.\n"
         "set(LIBTORCH_TIDY_PCH_FILES" + Files + ")\n"
         "set(LIBTORCH_TIDY_PCH_KEYS" + Keys + ")\n"
         "set(LIBTORCH_TIDY_PCH_REPORT " + cmakeQuoted(ReportFile) + ")\n"
         "set(LIBTORCH_TIDY_PCH_ANY_COMPILER " +
         (AnyCompiler ? "TRUE" : "FALSE") + ")\n";
  Out += R"cmake(
function(libtorch_tidy_pch_targets dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    libtorch_tidy_pch_targets("${sub}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} "${targets}" PARENT_SCOPE)
endfunction()

# Whether the target's own settings rule a PCH out: one of its own, one
# reused from another target, or PCHs disabled.
function(libtorch_tidy_pch_ruled_out target out)
  get_target_property(type ${target} TYPE)
  set(ruled_out TRUE)
  if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
    set(ruled_out FALSE)
    foreach(prop PRECOMPILE_HEADERS PRECOMPILE_HEADERS_REUSE_FROM
                 DISABLE_PRECOMPILE_HEADERS)
      get_target_property(value ${target} ${prop})
      if(value)
        set(ruled_out TRUE)
      endif()
    endforeach()
  endif()
  set(${out} ${ruled_out} PARENT_SCOPE)
endfunction()

# The key of a source the PCH may serve, or "" (also for a source with
# flags of its own, which a PCH built with the target's flags would not match).
function(libtorch_tidy_pch_key target abs out)
  set(key "")
  file(RELATIVE_PATH rel "${CMAKE_SOURCE_DIR}" "${abs}")
  list(FIND LIBTORCH_TIDY_PCH_FILES "${rel}" at)
  if(NOT at EQUAL -1)
    list(GET LIBTORCH_TIDY_PCH_KEYS ${at} key)
    foreach(prop COMPILE_DEFINITIONS COMPILE_OPTIONS COMPILE_FLAGS
                 INCLUDE_DIRECTORIES SKIP_PRECOMPILE_HEADERS)
      get_source_file_property(value "${abs}" TARGET_DIRECTORY ${target} ${prop})
      if(value)
        set(key "")
      endif()
    endforeach()
    get_source_file_property(language "${abs}" TARGET_DIRECTORY ${target}
                             LANGUAGE)
    if(language AND NOT language STREQUAL "CXX")
      set(key "")
    endif()
  endif()
  set(${out} "${key}" PARENT_SCOPE)
endfunction()

function(libtorch_tidy_pch_target target)
  libtorch_tidy_pch_ruled_out(${target} ruled_out)
  if(ruled_out)
    return()
  endif()
  get_target_property(dir ${target} SOURCE_DIR)
  get_target_property(sources ${target} SOURCES)
  set(files "")
  set(keys "")
  foreach(src IN LISTS sources)
    if(src MATCHES "\\$<") # a generator expression: not known until generate
      continue()
    endif()
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${dir}")
    libtorch_tidy_pch_key(${target} "${abs}" key)
    list(APPEND files "${abs}")
    list(APPEND keys "${key}")
  endforeach()
  # One PCH per target: the header set most of its sources include; the
  # other sources compile as they did.
  set(best "")
  set(best_count 0)
  set(seen "")
  foreach(key IN LISTS keys)
    if(key STREQUAL "" OR key IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${key}")
    set(count 0)
    foreach(other IN LISTS keys)
      if(other STREQUAL key)
        math(EXPR count "${count} + 1")
      endif()
    endforeach()
    if(count GREATER best_count)
      set(best "${key}")
      set(best_count ${count})
    endif()
  endforeach()
  if(best STREQUAL "")
    return()
  endif()
  set(skip "")
  set(skipped 0)
  foreach(abs key IN ZIP_LISTS files keys)
    if(NOT key STREQUAL best)
      list(APPEND skip "${abs}")
      if(abs MATCHES "\\.(cpp|cc|cxx|c\\+\\+|C)$")
        math(EXPR skipped "${skipped} + 1")
      endif()
    endif()
  endforeach()
  string(REPLACE "|" ";" headers "${best}")
  set(items "")
  foreach(header IN LISTS headers)
    list(APPEND items "$<$<COMPILE_LANGUAGE:CXX>:<${header}>>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${items})
  if(skip)
    set_source_files_properties(${skip} TARGET_DIRECTORY ${target}
                                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  endif()
  file(APPEND "${LIBTORCH_TIDY_PCH_REPORT}"
       "${target}\t${best}\t${best_count}\t${skipped}\n")
endfunction()

function(libtorch_tidy_pch_apply)
  if(NOT LIBTORCH_TIDY_PCH_ANY_COMPILER AND
     NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    file(WRITE "${LIBTORCH_TIDY_PCH_REPORT}"
         "compiler\t${CMAKE_CXX_COMPILER_ID}\n")
    return()
  endif()
  file(WRITE "${LIBTORCH_TIDY_PCH_REPORT}" "")
  libtorch_tidy_pch_targets("${CMAKE_SOURCE_DIR}" targets)
  foreach(target IN LISTS targets)
    libtorch_tidy_pch_target(${target})
  endforeach()
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}"
               CALL libtorch_tidy_pch_apply)
cmake_policy(POP)
)cmake";
  return Out;
}

std::string pchReportCompiler(const std::string &Text) {
  const std::string Prefix = "compiler\t";
  if (Text.compare(0, Prefix.size(), Prefix) != 0)
    return "";
  std::string Id = Text.substr(Prefix.size());
  return Id.substr(0, Id.find('\n'));
}

std::vector<PchTarget> parsePchReport(const std::string &Text) {
  std::vector<PchTarget> Targets;
  std::istringstream In(Text);
  std::string Line;
  while (std::getline(In, Line)) {
    std::vector<std::string> Fields;
    std::istringstream Cells(Line);
    for (std::string Cell; std::getline(Cells, Cell, '\t');)
      Fields.push_back(Cell);
    if (Fields.size() != 4)
      continue;
    PchTarget T;
    T.Name = Fields[0];
    std::istringstream Headers(Fields[1]);
    for (std::string H; std::getline(Headers, H, '|');)
      T.Headers.push_back(H);
    try {
      T.Sources = std::stol(Fields[2]);
      T.Skipped = std::stol(Fields[3]);
    } catch (const std::exception &) {
      continue;
    }
    Targets.push_back(std::move(T));
  }
  return Targets;
}

} // namespace torchtidy
