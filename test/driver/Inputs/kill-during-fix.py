"""kill-during-fix.py FILE KILLS -- COMMAND...: runs COMMAND (an analysis
with --fix of FILE) to completion once, then again and again with SIGKILL:
first the moment it has a new file open in FILE's directory (the fixed text
being written), then KILLS times at random moments of the run. After each
kill FILE must be exactly the original or exactly the fixed text, and a
temporary file left behind must be complete. Prints a summary; exits 1 on a
half-written file."""
import os
import random
import re
import signal
import subprocess
import sys
import time

path, kills = os.path.abspath(sys.argv[1]), int(sys.argv[2])
cmd = sys.argv[sys.argv.index("--") + 1:]
folder = os.path.dirname(path)
original = open(path, "rb").read()


def restore():
    with open(path, "wb") as f:
        f.write(original)


def leftovers():
    return [n for n in os.listdir(folder) if ".libtorch-tidy-" in n]


def writing(pid):
    """Whether PID has a file open for the fixed text: unnamed (O_TMPFILE,
    shown as DIR/#INODE (deleted)) or a temporary name next to FILE."""
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if target.startswith(folder + "/") and (
                re.search(r"/#\d+ \(deleted\)$", target) or ".libtorch-tidy-" in target):
            return True
    return False


def run(stop):
    """Runs COMMAND; stop(proc, started) says when to kill it."""
    restore()
    devnull = open(os.devnull, "w")
    proc = subprocess.Popen(cmd, stdout=devnull, stderr=devnull)
    started = time.time()
    killed = False
    while proc.poll() is None:
        if stop(proc, started):
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
        time.sleep(0.0002)
    proc.wait()
    return killed


def check(fixed, what):
    text = open(path, "rb").read()
    if text not in (original, fixed):
        sys.exit("%s: the file is neither the original nor the fixed text (%d bytes)"
                 % (what, len(text)))
    for name in leftovers():
        extra = os.path.join(folder, name)
        if open(extra, "rb").read() != fixed:
            sys.exit("%s: a half-written temporary file %s" % (what, name))
        os.remove(extra)
    return "new" if text == fixed else "old"


start = time.time()
run(lambda proc, started: False)
duration = time.time() - start
fixed = open(path, "rb").read()
if fixed == original or leftovers():
    sys.exit("the uninterrupted run did not fix the file, or left files behind")

seen = {"old": 0, "new": 0}
mid_write = 0
for attempt in range(3):
    if run(lambda proc, started: writing(proc.pid)):
        mid_write += 1
        seen[check(fixed, "killed while writing")] += 1
    else:
        seen[check(fixed, "not killed")] += 1
for i in range(kills):
    at = random.uniform(0, duration * 1.1)
    run(lambda proc, started: time.time() - started >= at)
    seen[check(fixed, "killed at %.2f s" % at)] += 1
print("killed while writing: %d of 3" % mid_write)
print("%d runs: %d old, %d new, 0 half-written" % (3 + kills, seen["old"], seen["new"]))
restore()
