#!/usr/bin/env python3
"""What a whole-project run costs on a cold cache, side by side in one run.

For each repository of the team's benchmark named with --repo, the driver's
whole-project run (`libtorch-tidy -p DB`, DB the compilation database
bench/real-code.py --project writes: every translation unit with the flags
its users build it with) runs in these variants, once per round, in a new
order each round, so that a slow spell of a noisy machine hits all of them:

  nopch  --no-cache --no-pch: every file parses LibTorch itself
  cold   an empty cache directory: the shared PCH is built, then used

Times are CPU seconds (user + sys of the driver and all its children) and
wall seconds; each ratio cold/nopch is taken within a round. The findings
of the two variants must be the same lines (sorted); the script says so and
exits 1 when they differ (in content or in order).

  bench/project-speed.py --repo OWNER/NAME [--repo ...] [--rounds N]
      [--jobs N] [--mirror DIR] [--torch26 DIR] [--driver PATH]
"""

import argparse
import importlib.util
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_real_code():
    """bench/real-code.py as a module: its extraction and databases."""
    spec = importlib.util.spec_from_file_location(
        "real_code", os.path.join(ROOT, "bench", "real-code.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(cmd, cwd):
    """(cpu seconds, wall seconds, stdout, exit code) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          errors="replace", check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1, 3):
        sys.exit("project-speed: %s failed (%d):\n%s" % (
            " ".join(cmd), proc.returncode, proc.stderr[-2000:]))
    return cpu, wall, proc.stdout, proc.stderr


def findings_of(stdout):
    """The findings as printed, in the run's order (file order)."""
    return [line for line in stdout.splitlines() if ": warning: " in line]


def measure(repo, rc, rc_args, args, scratch):
    labels, repos, roots = rc.prepare(rc_args)
    flags_of, _ = rc.project_entries(repo, labels, repos, roots, rc_args)
    root = roots[repo]
    db_dir = rc.write_database(repo, flags_of, root, rc_args.work_dir)
    base = rc.project_command(db_dir, root, rc_args)
    variants = {
        "nopch": lambda r: base[:1] + ["--no-cache", "--no-pch"] + base[1:],
        "cold": lambda r: base[:1] + ["--cache-dir=" + os.path.join(
            scratch, f"{repo.replace('/', '+')}-{r}")] + base[1:],
    }
    samples = {name: [] for name in variants}
    outputs = {}
    for r in range(args.rounds):
        order = list(variants)
        random.shuffle(order)
        for name in order:
            cpu, wall, out, _ = timed(variants[name](r), root)
            samples[name].append((cpu, wall))
            outputs.setdefault(name, findings_of(out))
            print(f"  round {r + 1} {name:5s}: {cpu:7.1f} s CPU, {wall:7.1f} s wall",
                  file=sys.stderr, flush=True)
    return len(flags_of), samples, outputs


def pch_count(scratch, repo):
    folder = os.path.join(scratch, f"{repo.replace('/', '+')}-0", "pch")
    if not os.path.isdir(folder):
        return 0
    return sum(1 for f in os.listdir(folder) if f.endswith(".pch"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repo", action="append", required=True)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--mirror", default="/work/.mirror")
    ap.add_argument("--torch26", default=os.path.join(ROOT, "third_party", "libtorch-2.6"))
    ap.add_argument("--driver", default=os.path.join(ROOT, "build", "driver", "libtorch-tidy"))
    ap.add_argument("--labels", default=os.path.join(ROOT, "bench", "data", "labels.tsv"))
    ap.add_argument("--work-dir", default=os.path.join(
        tempfile.gettempdir(), f"libtorch-tidy-real-code-{os.getuid()}"))
    args = ap.parse_args()
    rc = load_real_code()
    scratch = tempfile.mkdtemp(prefix="project-speed-")
    same = True
    rows = []
    try:
        for repo in args.repo:
            rc_args = rc.parse_args([args.labels, args.mirror, "--torch26", args.torch26,
                                     "--driver", args.driver, "--jobs", str(args.jobs),
                                     "--work-dir", args.work_dir, "--only-repo", repo])
            print(f"{repo}:", file=sys.stderr, flush=True)
            files, samples, outputs = measure(repo, rc, rc_args, args, scratch)
            ratios_cpu = [c[0] / n[0] for c, n in zip(samples["cold"], samples["nopch"])]
            ratios_wall = [c[1] / n[1] for c, n in zip(samples["cold"], samples["nopch"])]
            agree = outputs["nopch"] == outputs["cold"]
            same &= agree
            rows.append((repo, files, pch_count(scratch, repo), samples, ratios_cpu,
                         ratios_wall, len(outputs["cold"]), agree))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("| project | files | PCHs | no PCH: CPU, wall | cold: CPU, wall "
          "| cold / no PCH (CPU) | (wall) | findings | same findings |")
    print("|---|---|---|---|---|---|---|---|---|")
    for repo, files, pchs, samples, rcpu, rwall, nfind, agree in rows:
        med = lambda xs: statistics.median(xs)  # noqa: E731
        print(f"| {repo} | {files} | {pchs} "
              f"| {med([s[0] for s in samples['nopch']]):.0f} s, "
              f"{med([s[1] for s in samples['nopch']]):.0f} s "
              f"| {med([s[0] for s in samples['cold']]):.0f} s, "
              f"{med([s[1] for s in samples['cold']]):.0f} s "
              f"| **{med(rcpu):.3f}x** [{min(rcpu):.3f} .. {max(rcpu):.3f}] "
              f"| {med(rwall):.3f}x | {nfind} | {'yes' if agree else 'NO'} |")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
