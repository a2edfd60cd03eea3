#!/usr/bin/env python3
"""libtorch-tidy as a pre-commit hook (see docs/pre-commit.md).

pre-commit runs it with the staged C/C++ files as arguments, the working tree
holding exactly what is staged. By default only the lines the commit adds or
changes are reported (like clang-tidy-diff): an old anti-pattern elsewhere in
a touched file does not block the commit.

  pre-commit-hook.py [--all-lines] [--checks=GLOBS] [-p BUILD_DIR]
                     [--libtorch-tidy=PATH] [--] FILE...

Exit codes: 0 nothing found on the changed lines (or no C/C++ file staged),
1 findings (printed), 2 the analyzer could not run (one line on stderr).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

CXX_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".h", ".hh",
                ".hpp", ".hxx", ".h++", ".cuh", ".ipp", ".inl")
# Where build systems usually put compile_commands.json, nearest first.
BUILD_DIRS = (".", "build", "out", "Build", "build/*", "cmake-build-*",
              "out/build/*", "builddir")


def fail(message):
    sys.stderr.write("libtorch-tidy pre-commit: %s\n" % message)
    sys.exit(2)


def find_analyzer(explicit):
    hint = "install it (cmake --install) or set LIBTORCH_TIDY to its path"
    for candidate in (explicit, os.environ.get("LIBTORCH_TIDY")):
        if candidate:
            if not os.access(candidate, os.X_OK):
                fail("libtorch-tidy not found at %s: %s" % (candidate, hint))
            return candidate
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (shutil.which("libtorch-tidy"),
                      os.path.join(here, "..", "build", "driver",
                                   "libtorch-tidy")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    fail("libtorch-tidy not found: " + hint)


def find_compile_db(top):
    for pattern in BUILD_DIRS:
        for d in sorted(glob.glob(os.path.join(top, pattern))):
            if os.path.isfile(os.path.join(d, "compile_commands.json")):
                return d
    return None


def libtorch_flags():
    """Compiler flags for LibTorch when there is no compile database: the
    CMake package, Python's torch, or Debian's headers."""
    roots = []
    for var in ("Torch_DIR", "CMAKE_PREFIX_PATH"):
        for entry in filter(None, os.environ.get(var, "").split(":")):
            roots.append(entry)
    try:
        out = subprocess.run(
            [sys.executable, "-c",
             "import torch.utils; print(torch.utils.cmake_prefix_path)"],
            capture_output=True, text=True, timeout=60)
        if out.returncode == 0 and out.stdout.strip():
            roots.append(out.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    for root in roots:
        # Walk up from a CMake directory to the prefix with the headers.
        d = os.path.abspath(root)
        for _ in range(5):
            api = os.path.join(d, "include", "torch", "csrc", "api", "include")
            if os.path.isdir(api):
                return ["-isystem", os.path.join(d, "include"), "-isystem", api]
            d = os.path.dirname(d)
    if os.path.isdir("/usr/include/torch/csrc/api/include"):
        return ["-isystem", "/usr/include/torch/csrc/api/include"]
    return []


def changed_lines(path):
    """[first, last] ranges of the lines the staged change adds to path."""
    diff = subprocess.run(
        ["git", "diff", "--cached", "--no-color", "--no-ext-diff", "-U0",
         "--", path], capture_output=True, text=True)
    ranges = []
    for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff.stdout,
                         re.MULTILINE):
        first, count = int(m.group(1)), int(m.group(2) or "1")
        if count:
            ranges.append([first, first + count - 1])
    return ranges


def main(argv):
    all_lines, checks, build, explicit, files = False, "-*,torch-*", None, None, []
    args = iter(argv)
    for a in args:
        if a == "--all-lines":
            all_lines = True
        elif a.startswith("--checks="):
            checks = a.split("=", 1)[1]
        elif a == "-p":
            build = next(args, None)
        elif a.startswith("--libtorch-tidy="):
            explicit = a.split("=", 1)[1]
        elif a == "--":
            files.extend(args)
        elif a.startswith("-"):
            fail("unknown option %s" % a)
        else:
            files.append(a)
    files = [f for f in files if f.lower().endswith(CXX_SUFFIXES)
             and os.path.isfile(f)]
    if not files:
        return 0

    line_filter = []
    if not all_lines:
        for f in files:
            ranges = changed_lines(f)
            # clang-tidy matches the end of the diagnostic's path: the
            # path as given matches it relative and absolute.
            if ranges:
                line_filter.append({"name": f, "lines": ranges})
        files = [f for f in files if any(e["name"] == f for e in line_filter)]
        if not files:
            return 0

    top = subprocess.run(["git", "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True).stdout.strip() or "."
    cmd = [find_analyzer(explicit), "--checks=" + checks, "--quiet"]
    if line_filter:
        cmd.append("--line-filter=" + json.dumps(line_filter))
    build = build or find_compile_db(top)
    # One run per file: each goes through the driver's result cache and
    # precompiled LibTorch headers (a file unchanged since its last check
    # costs a fraction of a second).
    stdout, stderr = "", ""
    for f in files:
        if build:
            one = cmd + ["-p", build, f]
        else:
            one = cmd + [f, "--", "-std=c++17"] + libtorch_flags()
        proc = subprocess.run(one, capture_output=True, text=True)
        stdout += proc.stdout
        stderr += proc.stderr
    findings = [l for l in stdout.splitlines()
                if re.search(r": (warning|error): .*\[torch-", l)]
    if findings:
        sys.stdout.write(stdout)
        sys.stdout.write("libtorch-tidy: %d finding%s on the changed lines "
                         "(docs/checks/ says why and how to fix)\n"
                         % (len(findings), "" if len(findings) == 1 else "s"))
        return 1
    # Code that does not compile here (a header of another machine) is not
    # the hook's to block: say so and let the commit through.
    errors = [l for l in stdout.splitlines() + stderr.splitlines()
              if ": error: " in l]
    if errors:
        sys.stderr.write("libtorch-tidy pre-commit: note: not fully analyzed "
                         "(%s)\n" % errors[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
