"""hold-gate.py GATE SECONDS -- COMMAND...: makes GATE a named pipe, runs
COMMAND, and once a compiler has GATE open (an #include of it) holds it for
SECONDS before closing it, so that the analysis of the file that includes
it finishes that much later. Exits with COMMAND's exit code."""
import errno
import os
import subprocess
import sys
import time

gate, seconds = sys.argv[1], float(sys.argv[2])
cmd = sys.argv[sys.argv.index("--") + 1:]
os.mkfifo(gate)
proc = subprocess.Popen(cmd)
deadline = time.time() + 300
while True:
    try:
        fd = os.open(gate, os.O_WRONLY | os.O_NONBLOCK)
        break
    except OSError as e:
        if e.errno != errno.ENXIO:
            raise
        if proc.poll() is not None or time.time() > deadline:
            sys.exit("hold-gate: nothing ever opened " + gate)
        time.sleep(0.005)
time.sleep(seconds)
os.close(fd)
code = proc.wait()
os.unlink(gate)
sys.exit(code)
