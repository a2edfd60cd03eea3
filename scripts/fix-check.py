#!/usr/bin/env python3
"""fix-check.py: do libtorch-tidy's fixes compile, and are they idempotent,
on a whole project?

  fix-check.py [options] PROJECT [-- FLAGS...]

Works on a copy of PROJECT (PROJECT itself is never written). For each
translation unit: analyzes it with the torch checks, applies the fixes with
--fix, compiles the fixed file with the same flags (clang++ -fsyntax-only),
applies the fixes again and checks that nothing changed. Prints one line per
file and a summary:

  src/train.cpp: findings 3, fixed yes, compiles yes, idempotent yes

The flags come from -p BUILD_DIR (its compile_commands.json, the entries of
files inside PROJECT), or else are FLAGS for every .cpp/.cc/.cxx file of
PROJECT (default: C++17 and LibTorch's headers, found as the driver finds
them: $Torch_DIR, $CMAKE_PREFIX_PATH, Python's torch, Debian's libtorch-dev);
--guess-includes adds -I for each file's directory, its parent, their
include/ directories, then every directory named "include" in PROJECT, for
projects analyzed without a build.
A file that does not compile before the fixes is analyzed and fixed, but
"compiles" says "skipped".

Exit code: 0 when every fixed file compiles and every file is idempotent,
1 otherwise, 2 for usage errors.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import torchtidy_scripts

SOURCE_EXTENSIONS = (".cpp", ".cc", ".cxx", ".c++", ".cu")
SKIP_DIRS = {".git", "build", "cmake-build-debug", "cmake-build-release"}


class Unit:
    """A translation unit of the copy: its file, how to analyze it and how to
    compile it."""

    def __init__(self, path, rel, tidy_args, compile_cmd, compile_dir):
        self.path, self.rel = path, rel
        self.tidy_args, self.compile_cmd, self.compile_dir = (
            tidy_args, compile_cmd, compile_dir)


def run(cmd, cwd=None, timeout=900):
    try:
        proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              errors="replace", timeout=timeout)
        return proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s" % timeout


def read(path):
    with open(path, "rb") as f:
        return f.read()


def default_flags():
    include_dir, _ = torchtidy_scripts.find_libtorch()
    if not include_dir:
        sys.exit("fix-check: no LibTorch found ($Torch_DIR, "
                 "$CMAKE_PREFIX_PATH, Python's torch, libtorch-dev); pass "
                 "the flags after --")
    return ["-std=c++17"] + torchtidy_scripts.include_flags(include_dir)


def compile_only(args):
    """A compile command as a syntax check: no output files, no -c."""
    return torchtidy_scripts.without_outputs(args) + ["-fsyntax-only"]


def units_from_database(build, project, work, cxx):
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    mapped, units = [], []
    for e in entries:
        directory = e["directory"]
        path = os.path.normpath(os.path.join(directory, e["file"]))
        if not path.startswith(project + os.sep):
            continue
        def move(s):
            return work if s == project else s.replace(project + os.sep,
                                                       work + os.sep)
        args = e.get("arguments") or shlex.split(e["command"])
        entry = {"directory": move(directory), "file": move(path),
                 "arguments": [move(a) for a in args]}
        mapped.append(entry)
        units.append((entry, os.path.relpath(path, project)))
    build_copy = os.path.join(os.path.dirname(work), "build")
    os.makedirs(build_copy, exist_ok=True)
    with open(os.path.join(build_copy, "compile_commands.json"), "w") as f:
        json.dump(mapped, f, indent=1)
    return [Unit(e["file"], rel, ["-p", build_copy, e["file"]],
                 [cxx] + compile_only(e["arguments"][1:]), e["directory"])
            for e, rel in units]


def units_from_tree(work, flags, guess, cxx):
    includes = []
    if guess:
        for root, dirs, _ in os.walk(work):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            includes += ["-I" + os.path.join(root, d) for d in dirs
                         if d == "include"]
    units = []
    for root, dirs, files in os.walk(work):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            if not name.endswith(SOURCE_EXTENSIONS):
                continue
            path = os.path.join(root, name)
            # The file's own project first: tutorials often share header
            # names (transform.h) between their include directories.
            own = []
            if guess:
                parent = os.path.dirname(root)
                own = ["-I" + d for d in (root, parent,
                                          os.path.join(root, "include"),
                                          os.path.join(parent, "include"))
                       if os.path.isdir(d)]
            unit_flags = flags + own + [i for i in includes if i not in own]
            units.append(Unit(path, os.path.relpath(path, work),
                              [path, "--"] + unit_flags,
                              [cxx, "-fsyntax-only"] + unit_flags + [path],
                              root))
    return units


def count_findings(result, unit, out):
    for m in torchtidy_scripts.findings(out):
        # Paths are as the compile command names them, maybe relative to
        # its directory.
        if os.path.realpath(os.path.join(
                unit.compile_dir, m.group("file"))) == os.path.realpath(
                    unit.path):
            result["findings"][torchtidy_scripts.torch_check(m)] += 1


def diff(before, path):
    with tempfile.NamedTemporaryFile("wb", suffix=".orig") as f:
        f.write(before)
        f.flush()
        return run(["diff", "-u", f.name, path])[1]


def check(unit, tool, checks, extra, quick=False):
    """Analyzes, fixes, compiles and fixes again one unit; returns its
    result as a dict. quick: the findings are counted on the --fix run, and
    a file the first --fix left alone is not fixed again."""
    r = {"file": unit.rel, "findings": collections.Counter()}
    rc, _, err = run(unit.compile_cmd, cwd=unit.compile_dir)
    r["compiles_before"] = rc == 0
    r["compile_error_before"] = "" if rc == 0 else first_error(err)
    tidy = [tool, "--checks=" + checks] + extra
    if not quick:
        count_findings(r, unit, run(tidy + unit.tidy_args)[1])
    before = read(unit.path)
    rc, out, err = run(tidy + ["--fix"] + unit.tidy_args)
    if quick:
        count_findings(r, unit, out)
    r["fix_exit"] = rc
    once = read(unit.path)
    r["fixed"] = once != before
    if r["fixed"] and r["compiles_before"]:
        rc, _, err = run(unit.compile_cmd, cwd=unit.compile_dir)
        r["compiles"] = "yes" if rc == 0 else "no"
        r["compile_error"] = "" if rc == 0 else first_error(err)
    else:
        r["compiles"] = "yes" if r["compiles_before"] else "skipped"
    if r["fixed"] or not quick:
        run(tidy + ["--fix"] + unit.tidy_args)
    r["idempotent"] = read(unit.path) == once
    r["diff"] = diff(before, unit.path) if r["fixed"] else ""
    r["second_diff"] = "" if r["idempotent"] else diff(once, unit.path)
    return r


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.strip()
    return text.strip().splitlines()[0] if text.strip() else ""


def print_result(r, show_diff):
    """One line per unit, then why it failed."""
    print("%s: findings %d, fixed %s, compiles %s, idempotent %s" % (
        r["file"], sum(r["findings"].values()),
        "yes" if r["fixed"] else "no", r["compiles"],
        "yes" if r["idempotent"] else "no"))
    if not r["compiles_before"]:
        print("  does not compile before the fixes: "
              + r["compile_error_before"])
    if r.get("compile_error"):
        print("  after the fixes: " + r["compile_error"])
    if r["fix_exit"] not in (0, 1):
        print("  libtorch-tidy --fix exit code %d" % r["fix_exit"])
    if show_diff and r["diff"]:
        print("".join("    " + l + "\n" for l in r["diff"].splitlines()))
    if show_diff and r.get("second_diff"):
        print("  the second --fix changed:")
        print("".join("    " + l + "\n" for l in r["second_diff"].splitlines()))


def print_summary(results):
    by_check = collections.Counter()
    for r in results:
        by_check.update(r["findings"])
    fixed = [r for r in results if r["fixed"]]
    fixed_checked = [r for r in fixed if r["compiles"] != "skipped"]
    print("summary: %d translation units, %d compile before the fixes" % (
        len(results), sum(r["compiles_before"] for r in results)))
    print("findings: %d%s" % (sum(by_check.values()), "".join(
        "\n  %-36s %d" % (c, n) for c, n in sorted(by_check.items()))))
    print("fixed files: %d; compile after the fixes: %d of %d (%d not "
          "compiling before)" % (
              len(fixed), sum(r["compiles"] == "yes" for r in fixed_checked),
              len(fixed_checked), len(fixed) - len(fixed_checked)))
    print("idempotent: %d of %d" % (sum(r["idempotent"] for r in results),
                                    len(results)))


def all_good(results):
    return all(r["compiles"] != "no" and r["idempotent"] for r in results)


def main():
    argv, flags = torchtidy_scripts.split_compiler_flags(sys.argv[1:])
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("project")
    parser.add_argument("--libtorch-tidy", default=os.environ.get(
        "LIBTORCH_TIDY", os.path.join(here, "..", "build", "driver",
                                      "libtorch-tidy")))
    parser.add_argument("--cxx", default=shutil.which("clang++-19") or "clang++")
    parser.add_argument("--checks", default="-*,torch-*")
    parser.add_argument("-p", dest="build", help="a build directory with "
                        "compile_commands.json")
    parser.add_argument("-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--guess-includes", action="store_true")
    parser.add_argument("--tidy-arg", action="append", default=[],
                        help="one more libtorch-tidy option (repeatable)")
    parser.add_argument("--keep", help="keep the fixed copy in this "
                        "directory (which must not exist)")
    parser.add_argument("--show-diff", action="store_true",
                        help="print each file's fixes")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args(argv)

    project = os.path.realpath(args.project)
    tool = os.path.abspath(args.libtorch_tidy)
    if not os.path.isdir(project):
        parser.error("%s is not a directory" % args.project)
    if not os.access(tool, os.X_OK):
        parser.error("libtorch-tidy not found at %s (--libtorch-tidy or "
                     "$LIBTORCH_TIDY)" % tool)
    if args.build and flags is not None:
        parser.error("-p and flags after -- exclude each other")
    top = tempfile.mkdtemp(prefix="fix-check-")
    work = os.path.join(top, "src")
    shutil.copytree(project, work, symlinks=True,
                    ignore=shutil.ignore_patterns(".git"))
    if args.build:
        units = units_from_database(os.path.abspath(args.build), project,
                                    work, args.cxx)
    else:
        units = units_from_tree(work, flags if flags is not None
                                else default_flags(), args.guess_includes,
                                args.cxx)
    if not units:
        sys.exit("fix-check: no translation units in %s" % args.project)
    # Fixes in shared headers would race between parallel runs.
    jobs = 1 if any(a.startswith("--header-filter") or
                    a.startswith("-header-filter") for a in args.tidy_arg) \
        else max(1, args.j)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(
            lambda u: check(u, tool, args.checks, args.tidy_arg), units))

    for r in results:
        print_result(r, args.show_diff)
    print_summary(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(r, findings=dict(r["findings"])) for r in results],
                      f, indent=1)
    if args.keep:
        shutil.move(work, args.keep)
    shutil.rmtree(top)
    return 0 if all_good(results) else 1


if __name__ == "__main__":
    sys.exit(main())
