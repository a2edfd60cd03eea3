#!/usr/bin/env python3
"""expect-exit.py CODE COMMAND...: runs COMMAND, prints its output (stderr
merged), and succeeds only when it exits with CODE."""
import subprocess
import sys

code = int(sys.argv[1])
proc = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE,
                      stderr=subprocess.STDOUT, text=True)
sys.stdout.write(proc.stdout)
if proc.returncode != code:
    sys.exit("expected exit code %d, got %d" % (code, proc.returncode))
