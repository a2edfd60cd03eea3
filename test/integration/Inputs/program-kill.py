"""Kills a program-mode verifier with SIGNAL (KILL or TERM) in the middle
of its scratch builds, then runs another command (a new verifier run) and
reports what the temporary directory holds.

  program-kill.py TMPDIR SIGNAL -- VERIFIER ARGS... --then NEXT ARGS...
"""
import glob
import os
import signal
import subprocess
import sys
import time

tmp = sys.argv[1]
sig = getattr(signal, "SIG" + sys.argv[2])
args = sys.argv[4:]
cut = args.index("--then")
first, then = args[:cut], args[cut + 1:]
env = dict(os.environ, TMPDIR=tmp)
proc = subprocess.Popen(first, env=env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
deadline = time.time() + 300
seen = False
while time.time() < deadline and proc.poll() is None:
    # Configured: the baseline's build is under way.
    if glob.glob(os.path.join(tmp, "libtorch-tidy-verify.*", "v0", "build", "CMakeCache.txt")):
        seen = True
        time.sleep(3)
        break
    time.sleep(0.2)
print("scratch build seen:", "yes" if seen else "no")
proc.send_signal(sig)
proc.wait()
print("verifier exit:", "SIGKILL" if proc.returncode == -signal.SIGKILL else proc.returncode)
time.sleep(1)
print("temporary entries:", len(os.listdir(tmp)))
subprocess.run(then, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("temporary entries after the next run:", len(os.listdir(tmp)))
