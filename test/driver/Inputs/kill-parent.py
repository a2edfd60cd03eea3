"""kill-parent.py [--gate GATE] [--tmp TMP] WHAT -- COMMAND...: runs
COMMAND (a libtorch-tidy run), waits until one of its descendants is WHAT
('analysis': a `libtorch-tidy --libtorch-tidy-child`, 'harness': a snippet
harness the verifier runs), kills COMMAND itself with SIGKILL and prints how
many of the descendants it had then are still running after up to 10 s.

--gate GATE: GATE is made a named pipe that the analysis #includes; the
descendants are taken once the compiler has it open, so the analysis is
caught mid-parse and stays there until it is killed (the pipe is held open
without a word written). --tmp TMP: COMMAND runs with TMPDIR=TMP; any
process naming TMP also counts as a survivor, and the entries left in TMP
are printed. Survivors are killed before the script exits."""
import errno
import os
import signal
import subprocess
import sys
import time


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().decode(errors="replace").split("\0")
    except OSError:
        return []


def alive(pid, argv):
    """Running (not a zombie) and still the same program: an exiting one
    shows no command line."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    now = cmdline(pid)
    return state != "Z" and (now == argv or now in ([], [""]))


def descendants(root):
    parent = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            pass
    found, frontier = {}, {root}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier}
        for p in frontier:
            found[p] = cmdline(p)
    return found


def is_what(what, argv):
    if what == "analysis":
        return len(argv) > 1 and argv[1] == "--libtorch-tidy-child"
    return bool(argv) and os.path.basename(argv[0]).startswith("harness") \
        and "--mode" in argv


args = sys.argv[1:]
gate = tmp = None
while args[0].startswith("--"):
    if args[0] == "--gate":
        gate = args[1]
    elif args[0] == "--tmp":
        tmp = os.path.abspath(args[1])
    args = args[2:]
what = args[0]
cmd = args[args.index("--") + 1:]
env = dict(os.environ)
if tmp:
    env["TMPDIR"] = tmp
if gate:
    os.mkfifo(gate)
proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
deadline = time.time() + 300
fd = None
while True:
    if gate and fd is None:
        try:
            fd = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
    found = descendants(proc.pid)
    if (not gate or fd is not None) and \
            any(is_what(what, argv) for argv in found.values()):
        break
    if proc.poll() is not None or time.time() > deadline:
        sys.exit("kill-parent: no %s ever ran (exit %s)" % (what, proc.poll()))
    time.sleep(0.02)
print("%s running: %s" % (what, "yes"))
print("descendants: %s" % ("some" if found else "none"))
proc.kill()
proc.wait()


def left():
    procs = [(p, a) for p, a in found.items() if alive(p, a)]
    if tmp:
        me = os.getpid()
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != me and int(name) not in found:
                argv = cmdline(int(name))
                if any(tmp in a for a in argv) and alive(int(name), argv):
                    procs.append((int(name), argv))
    return procs


end = time.time() + 10
while left() and time.time() < end:
    time.sleep(0.05)
survivors = left()
print("survivors: %d" % len(survivors))
for pid, argv in survivors:
    print("  survivor %d: %s" % (pid, " ".join(argv)[:200]))
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
if fd is not None:
    os.close(fd)
if tmp:
    names = sorted(os.listdir(tmp))
    print("temporary entries: %d%s" % (len(names), (" (" + ", ".join(names) + ")") if names else ""))
