#!/usr/bin/env python3
"""What the project index costs, against the analysis, on a real project.

  index-cost.py LABELS.tsv MIRROR_DIR [--repo OWNER/NAME] [--driver PATH]
                [--torch26 ROOT] [--jobs N] [--repeat N] [--work-dir DIR]
                [--cache-root DIR] [--baseline-driver PATH] [--json OUT]

The repository (default prabhuomkar/pytorch-cpp) is extracted at its
labelled commit and given a compile_commands.json of all its translation
units, exactly as bench/real-code.py --project makes them (same flags). Each
repetition then times, one after the other, each in a fresh empty cache
directory where it says "cold":

  analysis       libtorch-tidy -p DB                      (cold: PCHs, results)
  index cold     libtorch-tidy -p DB --update-index       (cold: index only)
  index warm     libtorch-tidy -p DB --update-index       (again, same cache:
                                                           nothing changed)

and prints the median of each, the ratio index cold / analysis and the warm
refresh time (the targets: one light pass per file, under a second). Each run
is timed in wall seconds and in CPU seconds (user and system, of the driver
and its children): on a shared machine the CPU ratios are the ones to trust.
A fourth
run times the same driver's whole-project analysis with
--no-project-index, cold (or, with --baseline-driver, another driver's, e.g.
one built before the index), and the ratio analysis / baseline says what the
index adds to a whole-project run (the target: at most 1.20); index cold / baseline is then
the index's cost against the analysis alone (a driver with the index builds
it first in every whole-project run, so its "analysis" includes it). A
driver that does not know --update-index makes the index rows "not
available". The runs of a repetition follow each other, in an order that turns from
one repetition to the next, so a machine that slows down over time weighs
on all of them alike; give --repeat 3 or more on
a busy machine.
"""

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
NOT_AVAILABLE = "Unknown command line argument '--update-index'"


def load_real_code():
    """bench/real-code.py, whose extraction and database this script shares."""
    spec = importlib.util.spec_from_file_location("real_code", os.path.join(BENCH, "real-code.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("labels")
    p.add_argument("mirror")
    p.add_argument("--repo", default="prabhuomkar/pytorch-cpp")
    p.add_argument("--driver", default=os.path.join(os.path.dirname(BENCH), "build", "driver",
                                                    "libtorch-tidy"))
    p.add_argument("--torch26", help="root of the unpacked LibTorch 2.6 package (ROOT/usr/include)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--repeat", type=int, default=1, help="repetitions (medians are printed)")
    p.add_argument("--work-dir", default=os.path.join(
        tempfile.gettempdir(), f"libtorch-tidy-real-code-{os.getuid()}"))
    p.add_argument("--cache-root", default=tempfile.gettempdir(),
                   help="where the fresh cache directories are made (and removed)")
    p.add_argument("--baseline-driver", metavar="PATH",
                   help="time this driver's whole-project analysis as the baseline "
                   "(default: --driver with --no-project-index)")
    p.add_argument("--json", help="write every time measured as JSON")
    return p.parse_args(argv)


def project_database(args, real_code):
    """The repository's root, its database folder and the real-code.py
    arguments the commands are made with."""
    argv = [args.labels, args.mirror, "--only-repo", args.repo, "--driver", args.driver,
            "--jobs", str(args.jobs), "--work-dir", args.work_dir]
    if args.torch26:
        argv += ["--torch26", args.torch26]
    rargs = real_code.parse_args(argv)
    labels, repos, roots = real_code.prepare(rargs)
    flags_of, alone = real_code.project_entries(args.repo, labels, repos, roots, rargs)
    # The project as its build has it: translation units only.
    units = {path: flags for path, flags in flags_of.items() if path not in alone}
    root = roots[args.repo]
    db_dir = real_code.write_database(args.repo, units, root, os.path.join(rargs.work_dir, "cost"))
    return root, db_dir, rargs, len(units)


def timed(command, cwd):
    """Wall and CPU seconds (user and system, of the driver and every
    process it waited for) the command took, or None when the driver has no
    --update-index. A run that fails is still timed (files with compiler
    errors are part of a real project), and its output's end is shown."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    out = subprocess.run(command, cwd=cwd, capture_output=True, text=True, errors="replace",
                         check=False)
    seconds = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if NOT_AVAILABLE in out.stderr:
        return None
    # The driver's own summary: files, findings, files re-indexed.
    for line in out.stdout.splitlines():
        if line.startswith("libtorch-tidy: "):
            print(f"  {line}", file=sys.stderr)
    if out.returncode not in (0, 1):
        tail = "\n".join("  " + line for line in (out.stdout + out.stderr).splitlines()[-10:])
        print(f"warning: {' '.join(command)}: exit code {out.returncode}\n{tail}", file=sys.stderr)
    return seconds, cpu


def record(times, name, measured):
    """Stores a run's wall time under NAME and its CPU time under NAME cpu."""
    times[name] = measured[0] if measured else None
    times[name + " cpu"] = measured[1] if measured else None


def one_repetition(root, db_dir, rargs, real_code, args, repetition):
    """The runs, each cold one in a fresh empty cache directory, in an order
    that turns from one repetition to the next (drift weighs on each run
    alike)."""
    times = {}
    runs = [("analysis", args.driver, []), ("index cold", args.driver, ["--update-index"])]
    if args.baseline_driver:
        runs.append(("baseline", args.baseline_driver, []))
    else:
        # The same driver with the index off: exactly what the index adds.
        runs.append(("baseline", args.driver, ["--no-project-index"]))
    shift = repetition % len(runs)
    for name, driver, extra in runs[shift:] + runs[:shift]:
        cache = tempfile.mkdtemp(prefix="index-cost-", dir=args.cache_root)
        try:
            rargs.cache_dir, rargs.driver = cache, driver
            record(times, name, timed(real_code.project_command(db_dir, root, rargs, extra), root))
            if name == "index cold":
                record(times, "index warm",
                       timed(real_code.project_command(db_dir, root, rargs, extra), root)
                       if times[name] is not None else None)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return times


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt_seconds(value):
    return "not available" if value is None else f"{value:.2f} s"


def print_ratios(medians, suffix, what):
    """The ratios of the runs' medians, of wall or CPU time."""
    analysis, cold = medians["analysis" + suffix], medians["index cold" + suffix]
    baseline = medians.get("baseline" + suffix)
    ratio = f"{cold / analysis:.2f}" if cold is not None and analysis else "not available"
    print(f"  {what}: index cold / analysis: {ratio}")
    if baseline:
        # A driver with the index builds it in a whole-project run: against
        # the analysis alone (the baseline), the ratio is what it adds.
        print(f"  {what}: analysis / baseline: {analysis / baseline:.2f}")
        if cold is not None:
            print(f"  {what}: index cold / baseline: {cold / baseline:.2f}")


def print_report(repo, units, runs):
    print(f"{repo}: {units} translation units, {len(runs)} repetition(s), medians:")
    medians = {name: median([r[name] for r in runs]) for name in runs[0]}
    for name, value in medians.items():
        print(f"  {name:16} {fmt_seconds(value)}")
    warm = medians["index warm"]
    print(f"  warm refresh: {fmt_seconds(warm)}"
          + ("" if warm is None else f" ({'under' if warm < 1 else 'over'} 1 s)"))
    print_ratios(medians, "", "wall")
    # CPU time counts the work done, whatever else the machine runs: the
    # measure to trust on a shared machine, where wall time is mostly noise.
    print_ratios(medians, " cpu", "CPU")
    return medians


def main(argv):
    args = parse_args(argv)
    real_code = load_real_code()
    try:
        root, db_dir, rargs, units = project_database(args, real_code)
        runs = []
        for repetition in range(max(1, args.repeat)):
            runs.append(one_repetition(root, db_dir, rargs, real_code, args, repetition))
            print(f"repetition {repetition + 1}: "
                  + ", ".join(f"{k} {fmt_seconds(v)}" for k, v in runs[-1].items()),
                  file=sys.stderr)
    except (real_code.InputError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    medians = print_report(args.repo, units, runs)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"repo": args.repo, "translation_units": units, "runs": runs,
                       "medians": medians}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
