#!/usr/bin/env python3
"""How much an analysis costs, measured side by side in one run.

For each file, every variant runs once per round, interleaved, in a new
order each round, so that a slow spell of a noisy machine hits all of them:

  parse      clang++-19 -fsyntax-only with the file's flags (the yardstick)
  tidy       libtorch-tidy, all torch checks, no cache, no PCH
  tidy-none  libtorch-tidy with one cheap built-in check instead (the
             clang-tidy machinery alone: tidy - tidy-none is our checks' cost)
  stock      stock clang-tidy-19 with the same cheap check
  plugin     clang-tidy-19 loading the plugin, all torch checks
  pch        libtorch-tidy, all torch checks, automatic PCH already built,
             result cache off
  edit       libtorch-tidy with PCH and cache, the file edited since the last
             run (what a save in an editor or a commit costs)
  hit        libtorch-tidy re-run on the unchanged file (cache hit)
  cold       libtorch-tidy with an empty cache directory (builds the PCH)

Times are CPU seconds (user + sys of the command and its children), which
other load on the machine disturbs far less than wall time; wall time is
printed too. Each ratio is taken within a round and the median over rounds
is shown with its range.

  bench/analysis-speed.py [--rounds N] [--project DIR] [FILE ...]

--project DIR: a pytorch/examples checkout; its cpp/*/*.cpp files that
compile here with LibTorch are added (the others are listed as skipped).
"""

import argparse
import glob
import os
import random
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHEAP_CHECK = "readability-braces-around-statements"
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import torchtidy_scripts  # noqa: E402


def run(cmd, cwd=None):
    """CPU and wall seconds of one command, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        sys.exit("analysis-speed: %s failed (%d):\n%s" % (
            " ".join(map(shlex.quote, cmd)), proc.returncode,
            proc.stderr.decode(errors="replace")[-2000:]))
    return cpu, wall


def compiles(clang, path, flags):
    return subprocess.run([clang, "-fsyntax-only", *flags, path],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def summary(values):
    return statistics.median(values), min(values), max(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--project", help="a pytorch/examples checkout")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--no-cold", action="store_true",
                    help="skip the cold runs (each builds the PCH)")
    args = ap.parse_args()

    tidy = os.path.join(args.build, "driver", "libtorch-tidy")
    plugin = os.path.join(args.build, "plugin", "LibTorchTidyModule.so")
    clang = shutil.which("clang++-19") or sys.exit("clang++-19 not found")
    stock = shutil.which("clang-tidy-19") or sys.exit("clang-tidy-19 not found")
    for p in (tidy, plugin):
        if not os.path.exists(p):
            sys.exit("analysis-speed: %s not found: build first" % p)
    # -std=c++17 and LibTorch's headers, as the driver finds them without a
    # compile database.
    flags = torchtidy_scripts.libtorch_flags()

    files = args.files or [os.path.join(ROOT, "examples", "train_cifar_like.cpp")]
    if args.project:
        for path in sorted(glob.glob(os.path.join(args.project, "cpp", "*", "*.cpp"))):
            if compiles(clang, path, flags):
                files.append(path)
            else:
                print("skipped (does not compile with these flags): %s" %
                      os.path.relpath(path, args.project))

    work = tempfile.mkdtemp(prefix="analysis-speed-")
    try:
        results = {}
        for path in files:
            name = os.path.basename(path)
            # A private copy, so that 'edit' can change it.
            copy_dir = os.path.join(work, str(len(results)))
            os.makedirs(copy_dir)
            src = os.path.join(copy_dir, name)
            shutil.copy(path, src)
            cache = os.path.join(copy_dir, "cache")
            cold_cache = os.path.join(copy_dir, "cold")
            torch_checks = "-checks=-*,torch-*"
            variants = {
                "parse": [clang, "-fsyntax-only", *flags, src],
                "tidy": [tidy, "--no-cache", "--no-pch", torch_checks, src, "--", *flags],
                "tidy-none": [tidy, "--no-cache", "--no-pch", "-checks=-*," + CHEAP_CHECK, src, "--", *flags],
                "stock": [stock, "-checks=-*," + CHEAP_CHECK, src, "--", *flags],
                "plugin": [stock, "--load=" + plugin, torch_checks, src, "--", *flags],
                "pch": [tidy, "--cache-dir=" + cache, "--no-cache", torch_checks, src, "--", *flags],
                "edit": [tidy, "--cache-dir=" + cache, torch_checks, src, "--", *flags],
                "hit": [tidy, "--cache-dir=" + cache, torch_checks, src, "--", *flags],
                "cold": [tidy, "--cache-dir=" + cold_cache, torch_checks, src, "--", *flags],
            }
            if args.no_cold:
                del variants["cold"]
            # Build the PCH and a first result before timing 'pch' and 'hit'.
            run(variants["edit"])
            samples = {v: [] for v in variants}
            for r in range(args.rounds):
                order = list(variants)
                random.shuffle(order)
                # 'hit' must follow a stored result of the current content.
                if order.index("hit") < order.index("edit"):
                    order.remove("hit")
                    order.insert(order.index("edit") + 1, "hit")
                for v in order:
                    if v == "edit":
                        with open(src, "a") as f:
                            f.write("// edit %d\n" % r)
                    if v == "cold":
                        shutil.rmtree(cold_cache, ignore_errors=True)
                    samples[v].append(run(variants[v]))
                print("  %s: round %d of %d done" % (name, r + 1, args.rounds),
                      file=sys.stderr)
            results[name] = samples
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print()
    print("analysis-speed: %d round(s) per file, interleaved; CPU seconds "
          "(user+sys); ratio = median over rounds [min .. max]" % args.rounds)
    print("flags: %s; cheap check: %s" % (" ".join(flags), CHEAP_CHECK))

    def ratio(samples, a, b, i=0):
        return summary([x[i] / y[i] for x, y in zip(samples[a], samples[b])])

    def share(samples):
        # Our checks' cost: the run with them minus the run without, over
        # the parse, within each round.
        return summary([(t[0] - n[0]) / p[0] for t, n, p in
                        zip(samples["tidy"], samples["tidy-none"], samples["parse"])])

    def fmt(s, pct=False):
        m, lo, hi = s
        if pct:
            return "%+.1f%% [%+.1f .. %+.1f]" % (100 * m, 100 * lo, 100 * hi)
        return "%.3fx [%.3f .. %.3f]" % (m, lo, hi)

    rows = [
        ("parse CPU s (clang++ -fsyntax-only)", lambda s: "%.2f s [%.2f .. %.2f]" % summary([x[0] for x in s["parse"]])),
        ("(a) libtorch-tidy / parse", lambda s: fmt(ratio(s, "tidy", "parse"))),
        ("(a) torch checks' own cost / parse", lambda s: fmt(share(s), pct=True)),
        ("(a) plugin in clang-tidy-19 / parse", lambda s: fmt(ratio(s, "plugin", "parse"))),
        ("(b) libtorch-tidy / stock clang-tidy, 1 check", lambda s: fmt(ratio(s, "tidy", "stock"))),
        ("(b) stock clang-tidy, 1 check / parse", lambda s: fmt(ratio(s, "stock", "parse"))),
        ("(c) with PCH / without", lambda s: fmt(ratio(s, "pch", "tidy"))),
        ("(d) cold, empty cache / without cache", lambda s: fmt(ratio(s, "cold", "tidy")) if "cold" in s else "skipped"),
        ("(d) warm, file edited / without cache", lambda s: fmt(ratio(s, "edit", "tidy"))),
        ("(d) warm, unchanged (hit) / without cache", lambda s: fmt(ratio(s, "hit", "tidy"))),
        ("(d) warm, unchanged (hit) / parse", lambda s: fmt(ratio(s, "hit", "parse"))),
        ("wall s: tidy, pch, edit, hit", lambda s: "%.2f, %.2f, %.2f, %.3f" % tuple(
            statistics.median(x[1] for x in s[v]) for v in ("tidy", "pch", "edit", "hit"))),
    ]
    for name, samples in results.items():
        print()
        print(name)
        for label, f in rows:
            print("  %-46s %s" % (label, f(samples)))
    if len(results) > 1:
        # All files pooled: every (file, round) pair is one ratio.
        pooled = {v: [x for s in results.values() for x in s[v]]
                  for v in next(iter(results.values()))}
        print()
        print("all %d files pooled" % len(results))
        for label, f in rows:
            print("  %-46s %s" % (label, f(pooled)))


if __name__ == "__main__":
    main()
