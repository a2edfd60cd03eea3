"""change-during-analysis.py GATE FILE -- COMMAND...: runs COMMAND, an
analysis of a file that includes GATE, and edits FILE (a line inserted at
the top) while the analysis runs: GATE is made a named pipe, which the
compiler opens when it reaches the #include and then reads until it is
closed. Opening the pipe for writing succeeds only once the compiler has it
open, so the edit falls after the compiler read the files before the
#include and before the analysis ends, every time. Exits with COMMAND's exit
code."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from fifo_gate import wait_until_read  # noqa: E402

gate, target = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
os.mkfifo(gate)
proc = subprocess.Popen(cmd)
fd = wait_until_read(gate, proc, "change-during-analysis")
with open(target) as f:
    text = f.read()
with open(target, "w") as f:
    f.write("// edited while the analysis ran\n" + text)
os.close(fd)
sys.exit(proc.wait())
