"""with-pty.py COMMAND...: runs COMMAND with its stderr on a terminal (a
pseudo-terminal), prints its stdout, then what it wrote to the terminal with
each carriage return as a line break and escape sequences shown as <ESC>."""
import os
import pty
import subprocess
import sys

master, slave = pty.openpty()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=slave)
os.close(slave)
chunks = []
while True:
    try:
        data = os.read(master, 4096)
    except OSError:
        break
    if not data:
        break
    chunks.append(data)
out = proc.stdout.read().decode()
proc.wait()
sys.stdout.write(out)
tty = b"".join(chunks).decode(errors="replace")
sys.stdout.write("--- terminal\n" + tty.replace("\x1b", "<ESC>").replace("\r", "\n") + "\n")
sys.exit(proc.returncode)
