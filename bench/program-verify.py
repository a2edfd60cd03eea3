#!/usr/bin/env python3
"""Program mode, end to end, on a project: per finding the verdict, its
interval, its rounds and its variant's build seconds; in all the wall time
and the share of measured findings decided.

  program-verify.py [--project DIR] [--run CMD] [--file F]...
                    [--work-dir DIR] NAME=DRIVER[:VERIFIER] ...

Each NAME=DRIVER[:VERIFIER] is one build of the product (the driver that
analyses and applies the fix-its, and the verifier it starts; by default
the verifier beside the driver, as libtorch-tidy finds it). Every
configuration runs, one after the other in the order given, on a fresh copy
of the project (default: examples/, the bundled example, with the demo's
command) configured with CMake in Release with --cxx (default clang++-19,
as the demo does), as

  libtorch-tidy --checks='-*,torch-*' -p BUILD --verify --run CMD FILES

so the table compares them on the same machine in one session (these
machines are noisy: run them back to back, and read the decided share and
the build seconds, which noise moves less than wall time).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RUN = "{build}/train_cifar_like --epochs 1 --batches-per-epoch 4"
DECIDED = ("faster", "same", "slower")


def configure(project, work, cxx):
    src = os.path.join(work, "src")
    build = os.path.join(work, "build")
    shutil.copytree(project, src)
    subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_COMPILER=" + cxx,
                    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return src, build


def run_config(name, driver, verifier, args, work):
    src, build = configure(args.project, os.path.join(work, name), args.cxx)
    report = os.path.join(work, name, "report.json")
    env = dict(os.environ)
    if verifier:
        env["LIBTORCH_TIDY_VERIFY"] = verifier
    files = [os.path.join(src, f) for f in args.file]
    cmd = [driver, "--checks=-*,torch-*", "-p", build, "--quiet", "--verify",
           "--run", args.run, "--verify-json=" + report] + files
    start = time.monotonic()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    with open(report) as f:
        return wall, json.load(f)


def row_of(r):
    s = r.get("speedup")
    interval = ("%.2fx (%.2f .. %.2f)" % (s["point"], s["low"], s["high"])
                if s else "")
    build = r.get("build_seconds")
    return [r.get("check", ""), "%s:%s" % (os.path.basename(r.get("file", "")),
                                           r.get("line", "")),
            r.get("verdict", ""), interval, str(r.get("runs", "")),
            "%.1f" % build if build is not None else ""]


def summary(name, wall, rep):
    results = rep["results"]
    measured = [r for r in results if r.get("runs")]
    decided = [r for r in measured if r["verdict"] in DECIDED]
    builds = [r["build_seconds"] for r in results
              if r.get("build_seconds") is not None]
    prog = rep.get("program", {})
    print("## %s" % name)
    print("| finding | location | verdict | speedup (95% CI) | runs | build s |")
    print("|---|---|---|---|---|---|")
    for r in results + ([prog["all_fixes"]] if prog.get("all_fixes") else []):
        print("| " + " | ".join(row_of(r)) + " |")
    med = sorted(builds)[len(builds) // 2] if builds else 0
    print("\n%s: %d findings, %d measured, %d decided (%.0f%%); baseline "
          "build %.1f s, variant builds median %.1f s (max %.1f); %s rounds, "
          "timed: %s; whole verification %.0f s wall\n" % (
              name, len(results), len(measured), len(decided),
              100.0 * len(decided) / max(1, len(measured)),
              prog.get("baseline_build_seconds", 0), med,
              max(builds) if builds else 0, prog.get("rounds", "?"),
              prog.get("timing", "wall"), wall))
    return wall, len(decided) / max(1, len(measured)), med


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("configs", nargs="+", metavar="NAME=DRIVER[:VERIFIER]")
    p.add_argument("--project", default=os.path.join(ROOT, "examples"))
    p.add_argument("--run", default=DEFAULT_RUN)
    p.add_argument("--file", action="append",
                   help="source file of the project to analyse (repeatable; "
                        "default train_cifar_like.cpp)")
    p.add_argument("--work-dir")
    p.add_argument("--cxx", default="clang++-19",
                   help="the project's C++ compiler (default clang++-19, as "
                        "scripts/demo.sh configures it)")
    args = p.parse_args()
    args.file = args.file or ["train_cifar_like.cpp"]
    work = args.work_dir or tempfile.mkdtemp(prefix="program-verify-")
    totals = []
    for c in args.configs:
        name, _, tools = c.partition("=")
        driver, _, verifier = tools.partition(":")
        if not name or not os.access(driver, os.X_OK):
            sys.exit("program-verify.py: '%s' is not NAME=DRIVER[:VERIFIER] "
                     "with an executable DRIVER" % c)
        wall, rep = run_config(name, driver, verifier, args, work)
        totals.append((name,) + summary(name, wall, rep))
    if len(totals) > 1:
        base = totals[0]
        for name, wall, share, build in totals[1:]:
            print("%s vs %s: wall %.2fx, decided %.0f%% vs %.0f%%, variant "
                  "build median %.2fx" % (
                      name, base[0], wall / base[1], 100 * share,
                      100 * base[2], build / base[3] if base[3] else 0))
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
