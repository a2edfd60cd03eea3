"""run-together.py CMD1 --- CMD2 [--- ...]: starts every command at once and
waits for all; prints each one's stderr in turn, and exits with the first
non-zero exit code (0 when every command succeeded)."""
import subprocess
import sys

commands, current = [], []
for arg in sys.argv[1:]:
    if arg == "---":
        commands.append(current)
        current = []
    else:
        current.append(arg)
commands.append(current)
procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
         for c in commands]
code = 0
for i, p in enumerate(procs):
    _, err = p.communicate()
    sys.stdout.write(f"run {i + 1}: exit {p.returncode}\n{err}")
    code = code or p.returncode
sys.exit(code)
