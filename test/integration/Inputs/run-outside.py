"""run-outside.py FILE -- COMMAND...: copies FILE into a fresh directory
outside any project (so no compile_commands.json above it), runs COMMAND
there with the copy's name in place of {}, prints its stdout, then its
stderr after a line "--- stderr", then "--- exit N"; removes the directory."""
import os
import shutil
import subprocess
import sys
import tempfile

src, cmd = sys.argv[1], sys.argv[sys.argv.index("--") + 1:]
work = tempfile.mkdtemp(prefix="libtorch-tidy-nodb-", dir="/tmp")
try:
    name = os.path.join(work, os.path.basename(src))
    shutil.copy(src, name)
    proc = subprocess.run([name if a == "{}" else a for a in cmd], cwd=work,
                          capture_output=True, text=True)
    sys.stdout.write(proc.stdout + "--- stderr\n" + proc.stderr +
                     "--- exit %d\n" % proc.returncode)
finally:
    shutil.rmtree(work)
