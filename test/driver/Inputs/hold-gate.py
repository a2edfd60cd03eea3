"""hold-gate.py GATE SECONDS -- COMMAND...: makes GATE a named pipe, runs
COMMAND, and once a compiler has GATE open (an #include of it) holds it for
SECONDS before closing it, so that the analysis of the file that includes
it finishes that much later. Exits with COMMAND's exit code."""
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from fifo_gate import wait_until_read  # noqa: E402

gate, seconds = sys.argv[1], float(sys.argv[2])
cmd = sys.argv[sys.argv.index("--") + 1:]
os.mkfifo(gate)
proc = subprocess.Popen(cmd)
fd = wait_until_read(gate, proc, "hold-gate")
time.sleep(seconds)
os.close(fd)
code = proc.wait()
os.unlink(gate)
sys.exit(code)
