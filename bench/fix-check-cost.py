#!/usr/bin/env python3
"""What the fix-its' safety net costs: --fix with and without --no-fix-check.

  fix-check-cost.py [--driver PATH] [--repeat N] [--work-dir DIR]
                    [FILE ... [-- FLAGS...]]

Each FILE (default: examples/train_cifar_like.cpp with Debian's LibTorch
1.13 flags) is copied afresh before every run and fixed with

  check     libtorch-tidy --fix FILE                (the net parses again)
  no check  libtorch-tidy --no-fix-check --fix FILE

interleaved, in an order that turns from one repetition to the next, in one
cache directory whose automatic PCH the first (untimed) run builds, as a
user's earlier analysis would have. Each run is timed in wall and CPU
seconds (user and system of the driver); the script prints the medians and
the ratios check / no check, and checks that both write the same text (the
example's fixes all compile). On a shared machine trust the CPU ratio.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import torchtidy_scripts  # noqa: E402
DEFAULT_FLAGS = ["-std=gnu++17", "-O3", "-DNDEBUG", "-D_GLIBCXX_USE_CXX11_ABI=1",
                 "-isystem", "/usr/include/torch/csrc/api/include"]


def timed(cmd):
    """Wall and CPU seconds of cmd, and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def fix_once(args, files, work, no_check, tag):
    """Fixes fresh copies of files; their fixed texts, wall and CPU seconds."""
    copies = []
    for n, f in enumerate(files):
        dst = os.path.join(work, "%s-%d-%s" % (tag, n, os.path.basename(f)))
        shutil.copyfile(f, dst)
        copies.append(dst)
    cmd = [args.driver, "--cache-dir=" + os.path.join(work, "cache"),
           "--checks=-*,torch-*", "--fix"]
    if no_check:
        cmd.append("--no-fix-check")
    wall, cpu, rc = timed(cmd + copies + ["--"] + args.flags)
    if rc not in (0, 1):
        sys.exit("fix-check-cost: %s exited %d" % (" ".join(cmd), rc))
    return [open(c).read() for c in copies], wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driver",
                        default=os.path.join(ROOT, "build", "driver", "libtorch-tidy"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--work-dir")
    parser.add_argument("files", nargs="*")
    argv, flags = torchtidy_scripts.split_compiler_flags(sys.argv[1:])
    args = parser.parse_args(argv)
    args.flags = flags if flags is not None else DEFAULT_FLAGS
    files = args.files or [os.path.join(ROOT, "examples", "train_cifar_like.cpp")]
    work = args.work_dir or tempfile.mkdtemp(prefix="fix-check-cost-")
    os.makedirs(work, exist_ok=True)

    # Untimed: builds the automatic PCH, as an earlier analysis would have.
    fix_once(args, files, work, False, "warm")
    times = {False: ([], []), True: ([], [])}
    texts = {}
    for r in range(args.repeat):
        order = [False, True] if r % 2 == 0 else [True, False]
        for no_check in order:
            fixed, wall, cpu = fix_once(args, files, work, no_check, "r%d" % r)
            times[no_check][0].append(wall)
            times[no_check][1].append(cpu)
            texts[no_check] = fixed
            print("round %d %-8s wall %6.2f s  cpu %6.2f s" %
                  (r + 1, "no check" if no_check else "check", wall, cpu))
    med = {k: (statistics.median(w), statistics.median(c))
           for k, (w, c) in times.items()}
    print("median check:    wall %6.2f s  cpu %6.2f s" % med[False])
    print("median no check: wall %6.2f s  cpu %6.2f s" % med[True])
    print("ratio check / no check: wall %.2f  cpu %.2f" %
          (med[False][0] / med[True][0], med[False][1] / med[True][1]))
    same = texts[False] == texts[True]
    print("same fixed text: %s" % ("yes" if same else "no"))
    if not args.work_dir:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
