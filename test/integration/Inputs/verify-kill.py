"""verify-kill.py: process control for the verifier's kill and limit tests.
A snippet process is one whose command line names a path under TMP (the
TMPDIR the verifier was given): the harness, its forks, and bwrap.

  verify-kill.py kill TMP SIGNAL NPROCS -- VERIFY ARGS...
      starts VERIFY with TMPDIR=TMP, waits until NPROCS harness processes
      run, sends SIGNAL (TERM or KILL) to the verifier, waits for it, then
      prints its exit, the snippet processes that survive (after up to 5 s)
      and the entries left in TMP. With --then CMD... (before --), runs CMD
      afterwards with TMPDIR=TMP and prints the entries left again and the
      cgroups left named after the killed verifier.
  verify-kill.py survivors TMP
      prints the snippet processes still running.
Survivors are killed before the script exits, so a failing test leaves
nothing behind either."""
import os
import signal
import subprocess
import sys
import time


def cmdline(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return f.read().decode(errors="replace").split("\0")
    except OSError:
        return []


def snippet_processes(tmp):
    me = str(os.getpid())
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == me:
            continue
        argv = cmdline(pid)
        if any(tmp in a for a in argv):
            found.append((int(pid), argv))
    return found


def harnesses(tmp):
    return [p for p, argv in snippet_processes(tmp)
            if argv and os.path.basename(argv[0]).startswith("harness")
            and "--mode" in argv]


def survivors(tmp, wait):
    deadline = time.time() + wait
    while True:
        left = snippet_processes(tmp)
        if not left or time.time() > deadline:
            break
        time.sleep(0.1)
    print("survivors: %d" % len(left))
    for pid, argv in left:
        print("  survivor %d: %s" % (pid, " ".join(argv)[:200]))
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def cgroups_of(pid):
    prefix = "libtorch-tidy-verify.%d." % pid
    found = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        found += [os.path.join(root, d) for d in dirs if d.startswith(prefix)]
        if root.count("/") > 8:
            dirs[:] = []
    return found


def entries(tmp):
    names = sorted(os.listdir(tmp))
    return "%d%s" % (len(names), (" (" + ", ".join(names) + ")") if names else "")


mode, tmp = sys.argv[1], os.path.abspath(sys.argv[2])
if mode == "survivors":
    survivors(tmp, 0)
    sys.exit(0)

sig = {"TERM": signal.SIGTERM, "KILL": signal.SIGKILL}[sys.argv[3]]
expect = int(sys.argv[4])
rest = sys.argv[5:]
then = []
if rest[0] == "--then":
    then = rest[1:rest.index("--")]
cmd = rest[rest.index("--") + 1:]
env = dict(os.environ, TMPDIR=tmp)
proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
deadline = time.time() + 120
while len(harnesses(tmp)) < expect and time.time() < deadline:
    if proc.poll() is not None:
        break
    time.sleep(0.1)
print("harnesses running: %d" % len(harnesses(tmp)))
proc.send_signal(sig)
try:
    code = proc.wait(timeout=30)
except subprocess.TimeoutExpired:
    proc.kill()
    code = proc.wait()
print("verifier exit: %s" % (code if code >= 0 else signal.Signals(-code).name))
survivors(tmp, 5)
print("temporary entries: %s" % entries(tmp))
if sig == signal.SIGTERM:
    print("cgroups left: %d" % len(cgroups_of(proc.pid)))
if then:
    subprocess.run(then, env=env, stdout=subprocess.DEVNULL)
    print("temporary entries after the next run: %s" % entries(tmp))
    print("cgroups left: %d" % len(cgroups_of(proc.pid)))
