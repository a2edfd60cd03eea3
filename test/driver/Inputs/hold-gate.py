"""hold-gate.py GATE SECONDS -- COMMAND...: makes GATE a named pipe, runs
COMMAND, and each time a compiler has GATE open (an #include of it: the
project index's pass, then the analysis) holds it for SECONDS before closing
it, so that the analysis of the file that includes it finishes that much
later. Exits with COMMAND's exit code."""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from fifo_gate import wait_until_read  # noqa: E402


def wait_until_read_or_exit(gate, proc):
    """The write end of GATE once a reader opens it; None when COMMAND ends
    first (every reader was served)."""
    while proc.poll() is None:
        try:
            return os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.005)
    return None



gate, seconds = sys.argv[1], float(sys.argv[2])
cmd = sys.argv[sys.argv.index("--") + 1:]
os.mkfifo(gate)
proc = subprocess.Popen(cmd)
fd = wait_until_read(gate, proc, "hold-gate")
while fd is not None:
    time.sleep(seconds)
    os.close(fd)
    fd = wait_until_read_or_exit(gate, proc)
code = proc.wait()
os.unlink(gate)
sys.exit(code)
