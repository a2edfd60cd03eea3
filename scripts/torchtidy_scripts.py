"""What the project's Python scripts share: where LibTorch's headers are and
how a libtorch-tidy diagnostic line reads.

scripts/ imports it directly; bench/, fuzz/ and test helpers add scripts/ to
sys.path first:

  sys.path.insert(0, os.path.join(ROOT, "scripts"))
  import torchtidy_scripts

LibTorch is looked for in the driver's own order (driver/TorchFlags.cpp):
$Torch_DIR, each $CMAKE_PREFIX_PATH entry, Python's torch package
(torch.utils.cmake_prefix_path), Debian's libtorch-dev. A script that runs
the driver without a compile database and without flags after "--" needs
none of this: the driver finds LibTorch itself.
"""

import os
import re
import subprocess
import sys

# Below a LibTorch include folder: the C++ frontend's headers (torch/torch.h).
API_SUBDIR = os.path.join("torch", "csrc", "api", "include")
DEBIAN_PREFIX = "/usr"

# One diagnostic line of clang-tidy or libtorch-tidy:
#   FILE:LINE:COL: KIND: MESSAGE [CHECK,ALIAS...]
# The bracket holds the check and its aliases; clang's own diagnostics have
# none, or a -W flag.
DIAGNOSTIC = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<kind>warning|error|note|remark): (?P<msg>.*?)"
    r"(?: \[(?P<check>[\w.,=-]+)\])?$")


def api_include(include_dir):
    """The C++ frontend's include folder under a LibTorch include folder."""
    return os.path.join(include_dir, API_SUBDIR)


def has_libtorch(include_dir):
    return os.path.isfile(os.path.join(api_include(include_dir), "torch",
                                       "torch.h"))


def include_flags(include_dir):
    """-isystem flags for the LibTorch headers under include_dir (the folder
    holding torch/ and ATen/). /usr/include is left out: naming it again
    breaks libstdc++'s #include_next chain."""
    flags = []
    if os.path.normpath(include_dir) != "/usr/include":
        flags += ["-isystem", include_dir]
    return flags + ["-isystem", api_include(include_dir)]


def include_dir_of(flags):
    """The LibTorch include folder named by flags (the one above
    torch/csrc/api/include), or None."""
    suffix = os.sep + API_SUBDIR
    for flag, value in zip(flags, flags[1:]):
        value = os.path.normpath(value)
        if flag in ("-isystem", "-I") and value.endswith(suffix):
            return value[:-len(suffix)] or os.sep
    return None


def _prefix_above(start):
    """The LibTorch prefix at or above a CMake folder or prefix (up to four
    levels up, as from share/cmake/Torch), or None."""
    d = os.path.abspath(start)
    for _ in range(5):
        if has_libtorch(os.path.join(d, "include")):
            return d
        d = os.path.dirname(d)
    return None


def _python_torch_prefix():
    try:
        out = subprocess.run(
            [sys.executable, "-c",
             "import torch.utils; print(torch.utils.cmake_prefix_path)"],
            capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0 or not out.stdout.strip():
        return None
    return _prefix_above(out.stdout.strip())


def find_libtorch():
    """(include folder, where it was found) of LibTorch on this machine, in
    the driver's order; (None, "none found") when there is none."""
    candidates = [("Torch_DIR", os.environ.get("Torch_DIR", ""))]
    candidates += [("CMAKE_PREFIX_PATH", entry) for entry in
                   os.environ.get("CMAKE_PREFIX_PATH", "").split(":")]
    for source, start in candidates:
        prefix = _prefix_above(start) if start else None
        if prefix:
            return os.path.join(prefix, "include"), source
    prefix = _python_torch_prefix()
    if prefix:
        return os.path.join(prefix, "include"), "Python torch package"
    if has_libtorch(os.path.join(DEBIAN_PREFIX, "include")):
        return os.path.join(DEBIAN_PREFIX, "include"), "Debian libtorch-dev"
    return None, "none found"


def libtorch_flags():
    """-std=c++17 and the LibTorch header flags the driver would use without
    a compile database; just -std=c++17 when no LibTorch is found."""
    include_dir, _ = find_libtorch()
    return ["-std=c++17"] + (include_flags(include_dir) if include_dir else [])


def split_compiler_flags(argv):
    """argv without a "--" and what follows it, and those compiler flags
    (None when there is no "--"): the scripts pass them on as they are."""
    if "--" not in argv:
        return argv, None
    cut = argv.index("--")
    return argv[:cut], argv[cut + 1:]


def without_outputs(args):
    """A compiler command line without its outputs: no -o, dependency files
    or -c, so that it can run again as a check of the source alone."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
        elif a in ("-c", "-MD", "-MMD") or a.startswith("-o"):
            continue
        else:
            out.append(a)
    return out


def parse_diagnostics(text):
    """The diagnostic lines of text, as DIAGNOSTIC matches."""
    return [m for m in map(DIAGNOSTIC.match, text.splitlines()) if m]


def torch_check(match):
    """The torch-* check a diagnostic names (the first, before its aliases),
    or None."""
    for name in (match["check"] or "").split(","):
        if name.startswith("torch-"):
            return name
    return None


def is_finding(match):
    """A warning or error of a torch-* check (not a note, not a compiler
    error)."""
    return match["kind"] in ("warning", "error") and torch_check(match) is not None


def findings(text):
    """The torch-* findings among text's diagnostic lines."""
    return [m for m in parse_diagnostics(text) if is_finding(m)]
