#!/usr/bin/env python3
"""The project's own C++ held to clang-tidy (ctest's 'dogfood').

  run.py --build-dir BUILD [--source-dir SRC] [--clang-tidy BIN] [-j N]
         [--config FILE] [FILE ...]

Runs clang-tidy-19 with test/dogfood/config.yaml (cognitive complexity at
most 50, LLVM naming; each product folder's .clang-tidy links to it, so
that the naming rules apply to the project's files alone, not to the
system headers) over every translation unit of BUILD's
compile_commands.json under the product folders (checks/, driver/, plugin/,
clangd/, runtime-verify/, all their sub-folders except test/ ones), their
headers included through --header-filter, and looks for NOLINT comments in
those folders: no function may be exempted. FILEs (sources of the database)
replace the folders' sources and NOLINT search.

A file whose result is known is not analyzed again: the result is kept in
BUILD/dogfood-cache under a key made of clang-tidy's version, the config,
the file's compile command and the contents of every project file it
includes (found with the compiler's -M; system headers by size and time),
so a run after a small change costs seconds. --no-cache analyzes all.

Prints each warning once (a header seen from several files included) and a
summary. Exit status: 0 clean, 1 warnings or NOLINT found, 77 no
compile_commands.json (ctest reports the test as skipped), 2 bad usage.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import torchtidy_scripts  # noqa: E402

PRODUCT_DIRS = ("checks", "driver", "plugin", "clangd", "runtime-verify")
SOURCE_SUFFIXES = (".cpp", ".cc", ".cxx")
TEXT_SUFFIXES = SOURCE_SUFFIXES + (".h", ".hpp", ".def", ".inc")
SKIP = 77
COMPLEXITY = "readability-function-cognitive-complexity"
# Part of every cache key: changed when what a cached result holds changes.
CACHE_FORMAT = "1"
DEFAULT_CONFIG = os.path.join(HERE, "config.yaml")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--source-dir",
                    default=os.path.normpath(os.path.join(HERE, "..", "..")))
    ap.add_argument("--clang-tidy", default=shutil.which("clang-tidy-19")
                    or "clang-tidy-19")
    ap.add_argument("--config", default=DEFAULT_CONFIG)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--no-cache", action="store_true",
                    help="analyze every file, known or not")
    ap.add_argument("files", nargs="*", metavar="FILE")
    return ap.parse_args()


def in_product(path, src):
    """Whether path lies in a product folder of src (not in a test/ one)."""
    rel = os.path.relpath(path, src).split(os.sep)
    return rel[0] in PRODUCT_DIRS and "test" not in rel[1:-1]


def database_entries(build):
    """The compile database's entries by source path (the first of a file
    compiled twice)."""
    with open(os.path.join(build, "compile_commands.json"),
              encoding="utf-8") as f:
        entries = json.load(f)
    by_path = {}
    for entry in entries:
        path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        by_path.setdefault(path, entry)
    return by_path


def product_texts(src):
    """Every source and header of the product folders."""
    for top in PRODUCT_DIRS:
        for root, dirs, names in os.walk(os.path.join(src, top)):
            dirs[:] = sorted(d for d in dirs if d != "test")
            for name in sorted(names):
                if name.endswith(TEXT_SUFFIXES):
                    yield os.path.join(root, name)


def nolint_lines(paths):
    found = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, start=1):
                if "NOLINT" in line:
                    found.append("%s:%d: NOLINT: %s" % (path, number,
                                                        line.strip()))
    return found


def header_filter(src):
    """clang-tidy's --header-filter (an extended regex) for the product
    folders' headers, and not the build folder's generated ones."""
    escaped = re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", src)
    return "^%s/(%s)/" % (escaped, "|".join(PRODUCT_DIRS))


def folder_configs(src, config):
    """The product folders whose .clang-tidy is not the config (clang-tidy
    reads a folder's own, and with it off the system headers' names)."""
    with open(config, "rb") as f:
        wanted = f.read()
    wrong = []
    for top in PRODUCT_DIRS:
        path = os.path.join(src, top, ".clang-tidy")
        try:
            with open(path, "rb") as f:
                same = f.read() == wanted
        except OSError:
            same = False
        if not same:
            wrong.append(path)
    return wrong


def tidy_command(path, args, src):
    """clang-tidy on path: with the product folders' own .clang-tidy when
    they hold the config, else with --config-file (every header's names
    checked and filtered out after: slower, same warnings)."""
    config = [] if args.folder_configs else ["--config-file=" + args.config]
    return [args.clang_tidy, "-p", args.build_dir, "--quiet"] + config + [
        "--header-filter=" + header_filter(src), path]


def dependencies(entry):
    """Every file the entry's translation unit includes (the compiler's -M),
    or None when that fails."""
    argv = entry.get("arguments") or shlex.split(entry["command"])
    cmd = torchtidy_scripts.without_outputs(argv)
    proc = subprocess.run(cmd + ["-M"], cwd=entry["directory"],
                          capture_output=True, text=True, errors="replace",
                          check=False)
    if proc.returncode != 0:
        return None
    text = proc.stdout.replace("\\\n", " ").replace("\\ ", "\0")
    return [os.path.normpath(os.path.join(entry["directory"],
                                          p.replace("\0", " ")))
            for p in text.split(":", 1)[-1].split()]


def cache_key(entry, stamp, src):
    """The key of a translation unit's result, or None when its
    dependencies cannot be listed."""
    deps = dependencies(entry)
    if deps is None:
        return None
    key = hashlib.sha256(stamp.encode())
    key.update(json.dumps(entry, sort_keys=True).encode())
    for dep in sorted(set(deps)):
        key.update(dep.encode() + b"\0")
        try:
            if dep.startswith(src + os.sep):
                with open(dep, "rb") as f:
                    key.update(hashlib.sha256(f.read()).digest())
            else:
                info = os.stat(dep)
                key.update(b"%d %d" % (info.st_size, info.st_mtime_ns))
        except OSError:
            return None
    return key.hexdigest()


def tidy(path, entry, args, src, cache):
    """(exit code, output) of clang-tidy on path, from the cache when the
    same inputs were analyzed before."""
    stamp, directory, used = cache
    key = cache_key(entry, stamp, src) if directory else None
    stored = os.path.join(directory, key + ".json") if key else None
    if stored and os.path.isfile(stored):
        with open(stored, encoding="utf-8") as f:
            result = json.load(f)
        used.add(os.path.basename(stored))
        return result["rc"], result["output"]
    proc = subprocess.run(tidy_command(path, args, src), capture_output=True,
                          text=True, errors="replace", check=False)
    result = {"rc": proc.returncode, "output": proc.stdout + proc.stderr}
    if stored:
        with open(stored + ".tmp", "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(stored + ".tmp", stored)
        used.add(os.path.basename(stored))
    return result["rc"], result["output"]


def open_cache(args, src):
    """(stamp, folder, names used) of the result cache; folder is None with
    --no-cache."""
    if args.no_cache:
        return "", None, set()
    version = subprocess.run([args.clang_tidy, "--version"],
                             capture_output=True, text=True,
                             check=False).stdout
    with open(args.config, encoding="utf-8") as f:
        config = f.read()
    stamp = "\0".join([CACHE_FORMAT, version, config, header_filter(src)])
    directory = os.path.join(args.build_dir, "dogfood-cache")
    os.makedirs(directory, exist_ok=True)
    return stamp, directory, set()


def drop_unused(cache):
    """Forgets the results of files as they no longer are."""
    _, directory, used = cache
    for name in os.listdir(directory):
        if name not in used:
            os.remove(os.path.join(directory, name))


def warnings_of(output):
    """The warning and error lines (the notes explain them and are left
    out: rerun clang-tidy on the file to see them)."""
    return [m.group(0) for m in torchtidy_scripts.parse_diagnostics(output)
            if m["kind"] in ("warning", "error")]


def report(warnings, failed, nolints, count):
    for line in sorted(warnings):
        print(line)
    for path, rc, output in failed:
        print("%s: clang-tidy exit code %d without a warning:\n%s"
              % (path, rc, output.strip()[-2000:]))
    for line in nolints:
        print(line)
    complexity = sum(COMPLEXITY in w for w in warnings)
    print("dogfood: %d translation units; %d warnings (%d functions over "
          "cognitive complexity 50, %d others), %d NOLINT, %d clang-tidy "
          "failures" % (count, len(warnings), complexity,
                        len(warnings) - complexity, len(nolints),
                        len(failed)))
    if warnings or failed or nolints:
        print("dogfood: FAILED (test/dogfood/config.yaml holds the rules; "
              "split long functions rather than exempting them)")
        return 1
    return 0


def main():
    args = parse_args()
    src = os.path.realpath(args.source_dir)
    database = os.path.join(args.build_dir, "compile_commands.json")
    if not os.path.isfile(database):
        print("dogfood: skipped: no %s (configure with "
              "CMAKE_EXPORT_COMPILE_COMMANDS=ON)" % database)
        return SKIP
    entries = database_entries(args.build_dir)
    if args.files:
        files = [os.path.realpath(f) for f in args.files]
        missing = [f for f in files if f not in entries]
        if missing:
            print("dogfood: not in %s: %s" % (database, " ".join(missing)))
            return 2
        texts = files
    else:
        files = sorted(f for f in entries if in_product(f, src))
        texts = list(product_texts(src))
    if not files:
        print("dogfood: no product sources in %s" % database)
        return 1
    wrong = folder_configs(src, args.config)
    if wrong and args.config == DEFAULT_CONFIG:
        print("dogfood: %s must link to test/dogfood/config.yaml"
              % ", ".join(wrong))
        return 1
    args.folder_configs = not wrong
    cache = open_cache(args, src)
    warnings, failed = set(), []
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        for path, (rc, output) in zip(files, pool.map(
                lambda f: tidy(f, entries[f], args, src, cache), files)):
            found = warnings_of(output)
            warnings.update(found)
            if rc != 0 and not found:
                failed.append((path, rc, output))
    if cache[1] and not args.files:
        drop_unused(cache)
    return report(warnings, failed, nolint_lines(texts), len(files))


if __name__ == "__main__":
    sys.exit(main())
