#!/usr/bin/env python3
"""What precompiled LibTorch headers save a program-mode variant's rebuild.

  program-rebuild.py [--verify PATH] [--fix-tool PATH] [--project DIR]
                     [--repeat N] [--keep DIR]

The project (default test/integration/Inputs/program-project) is copied and
configured (Release, its own generator: Ninja when present); a findings file
with two findings is written, each with a fix-it that edits one translation
unit that includes LibTorch (main.cpp: anomaly mode off; model.cpp: a
comment, which still recompiles the file). libtorch-tidy-verify then
verifies them in program mode twice, with --no-precompiled-headers and with
the default (the PCH hook), --runs 2 --compare none, in an order that turns
from one repetition to the next. The script prints, for each way, the
baseline's build seconds and each variant's rebuild seconds as the report
records them (build_seconds, the build command only: not the copy of the
baseline or the fix-its), and the ratios without / with. On a shared
machine run it when the load is low, and compare the two ways of the same
repetition.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def edit(path, old, new):
    """A fix-it replacing the first `old` of path with `new`."""
    text = open(path, encoding="utf-8").read()
    at = text.encode("utf-8").find(old.encode("utf-8"))
    if at < 0:
        sys.exit("program-rebuild.py: '%s' not in %s" % (old, path))
    line = text[:text.find(old)].count("\n") + 1
    return line, {"file": path, "offset": at, "length": len(old.encode()),
                  "replacement": new}


def findings(src):
    """Two findings whose fix-its each recompile one LibTorch source."""
    out = []
    for check, name, old, new in [
            ("torch-debug-api-enabled", "main.cpp",
             "AnomalyMode::set_enabled(true)",
             "AnomalyMode::set_enabled(false)"),
            ("torch-zero-grad", "model.cpp", "#include \"model.h\"",
             "#include \"model.h\"\n// edited by bench/program-rebuild.py")]:
        path = os.path.join(src, name)
        line, fix = edit(path, old, new)
        out.append({"check": check, "file": path, "line": line, "column": 1,
                    "message": "bench", "fixits": [fix]})
    return {"format": "libtorch-tidy-findings", "version": 1,
            "findings": out}


def verify(args, work, build, pch):
    """One program-mode run; its report's program section and results."""
    report = os.path.join(work, "report-%s.json" % ("pch" if pch else "plain"))
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp, exist_ok=True)
    cmd = [args.verify, os.path.join(work, "findings.json"), "--project", build,
           "--run", "{build}/train 4", "--runs", "2", "--compare", "none",
           "--fix-tool", args.fix_tool, "--json", report]
    if not pch:
        cmd.append("--no-precompiled-headers")
    env = dict(os.environ, TMPDIR=tmp)
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("program-rebuild.py: the verifier failed:\n" + done.stderr)
    doc = json.load(open(report))
    return doc["program"], doc["results"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--verify", default=os.environ.get(
        "LIBTORCH_TIDY_VERIFY",
        os.path.join(ROOT, "build", "runtime-verify", "libtorch-tidy-verify")))
    p.add_argument("--fix-tool", default=os.environ.get(
        "LIBTORCH_TIDY", os.path.join(ROOT, "build", "driver",
                                      "libtorch-tidy")))
    p.add_argument("--project", default=os.path.join(
        ROOT, "test", "integration", "Inputs", "program-project"))
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--keep", help="work here and keep it (default: a "
                   "temporary directory, removed)")
    args = p.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="program-rebuild.")
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(args.project, src)
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    subprocess.run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release"]
                   + generator, check=True, stdout=subprocess.DEVNULL)
    json.dump(findings(src), open(os.path.join(work, "findings.json"), "w"),
              indent=1)
    times = {False: [], True: []}  # per way: (baseline, [variant seconds])
    for r in range(args.repeat):
        for pch in ([False, True] if r % 2 == 0 else [True, False]):
            program, results = verify(args, work, build, pch)
            variants = [x.get("build_seconds") for x in results]
            methods = {x.get("build_method") for x in results}
            times[pch].append((program["baseline_build_seconds"], variants))
            print("%-8s baseline %6.1f s, variants %s s (%s)" % (
                "PCH" if pch else "no PCH", program["baseline_build_seconds"],
                ", ".join("%.1f" % v for v in variants), "; ".join(methods)))
            if pch:
                print("         precompiled: %s" % json.dumps(
                    program.get("precompiled_headers")))
    for what, pick in [("baseline build", lambda t: [t[0]]),
                       ("variant rebuild", lambda t: t[1])]:
        plain = statistics.median(v for t in times[False] for v in pick(t))
        pch = statistics.median(v for t in times[True] for v in pick(t))
        print("%-16s median: no PCH %6.1f s, PCH %6.1f s, ratio %.2fx" %
              (what, plain, pch, plain / pch))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
