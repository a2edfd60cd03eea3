#!/usr/bin/env python3
"""libtorch-tidy as a pre-commit hook (see docs/pre-commit.md).

pre-commit runs it with the staged C/C++ files as arguments, the working tree
holding exactly what is staged. By default only the lines the commit adds or
changes are reported (like clang-tidy-diff): an old anti-pattern elsewhere in
a touched file does not block the commit.

  pre-commit-hook.py [--all-lines] [--checks=GLOBS] [-p BUILD_DIR]
                     [--libtorch-tidy=PATH] [--cache-explain] [--] FILE...

With a build directory (-p, or one found in the repository) the analyzer
reads its project index, once `libtorch-tidy -p BUILD_DIR --update-index`
made it, re-indexing first the files the commit changed
(docs/project-index.md).

Exit codes: 0 nothing found on the changed lines (or no C/C++ file staged),
1 findings (printed), 2 the analyzer could not run (one line on stderr).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import torchtidy_scripts

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


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit code 2, like a missing analyzer."""

    def error(self, message):
        fail(message)


def parse_args(argv):
    parser = Parser(prog="pre-commit-hook.py",
                    description=__doc__.split("\n\n")[0])
    parser.add_argument("--all-lines", action="store_true",
                        help="report whole files, not just changed lines")
    parser.add_argument("--checks", default="-*,torch-*", metavar="GLOBS")
    parser.add_argument("-p", dest="build", metavar="BUILD_DIR",
                        help="the folder of compile_commands.json")
    parser.add_argument("--libtorch-tidy", dest="explicit", metavar="PATH",
                        help="the driver (default: $LIBTORCH_TIDY, PATH, "
                        "this checkout's build/)")
    parser.add_argument("--cache-explain", action="store_true",
                        help="say on stderr what the result cache and the "
                        "project index reuse and what they make again")
    parser.add_argument("files", nargs="*", metavar="FILE")
    return parser.parse_intermixed_args(argv)


def main(argv):
    args = parse_args(argv)
    files = [f for f in args.files if f.lower().endswith(CXX_SUFFIXES)
             and os.path.isfile(f)]
    if not files:
        return 0

    line_filter = []
    if not args.all_lines:
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
    cmd = [find_analyzer(args.explicit), "--checks=" + args.checks, "--quiet"]
    if line_filter:
        cmd.append("--line-filter=" + json.dumps(line_filter))
    if args.cache_explain:
        cmd.append("--cache-explain")
    build = args.build or find_compile_db(top)
    # One run per file: each goes through the driver's result cache and
    # precompiled LibTorch headers (a file unchanged since its last check
    # costs a fraction of a second).
    stdout, stderr = "", ""
    for f in files:
        # Without a compile database the driver analyzes the file as C++17
        # with LibTorch's headers, found as it finds them (README).
        one = cmd + (["-p", build, f] if build else [f])
        proc = subprocess.run(one, capture_output=True, text=True)
        stdout += proc.stdout
        stderr += proc.stderr
        if args.cache_explain:
            sys.stderr.write("".join(
                l for l in proc.stderr.splitlines(True)
                if l.startswith("libtorch-tidy: ")))
    # Findings that need another file's facts are missed without the
    # project index: say when the driver could not use it.
    for note in sorted(set(l for l in stderr.splitlines()
                           if "the project index was not used" in l)):
        sys.stderr.write(note + "\n")
    findings = torchtidy_scripts.findings(stdout)
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
