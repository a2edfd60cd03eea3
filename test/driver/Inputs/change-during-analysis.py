"""change-during-analysis.py GATE FILE -- COMMAND...: runs COMMAND, an
analysis of a file that includes GATE, and edits FILE (a line inserted at
the top) while the analysis runs: GATE is made a named pipe, which the
compiler opens when it reaches the #include and then reads until it is
closed. Opening the pipe for writing succeeds only once the compiler has it
open, so the edit falls after the compiler read the files before the
#include and before the analysis ends, every time. Exits with COMMAND's exit
code."""
import errno
import os
import subprocess
import sys
import time

gate, target = sys.argv[1], sys.argv[2]
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
            sys.exit("change-during-analysis: the analysis never opened " + gate)
        time.sleep(0.005)
with open(target) as f:
    text = f.read()
with open(target, "w") as f:
    f.write("// edited while the analysis ran\n" + text)
os.close(fd)
sys.exit(proc.wait())
