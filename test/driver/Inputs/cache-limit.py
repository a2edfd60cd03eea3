"""cache-limit.py DIR -- COMMAND...: runs COMMAND with every @SIZE@ in its
arguments replaced by the bytes the cache under DIR holds now (its pch/ and
results/ files); exits with COMMAND's exit code."""
import os
import subprocess
import sys

root = sys.argv[1]
cmd = sys.argv[sys.argv.index("--") + 1:]
size = 0
for sub in ("pch", "results"):
    for dirpath, _, files in os.walk(os.path.join(root, sub)):
        size += sum(os.lstat(os.path.join(dirpath, f)).st_size for f in files)
sys.exit(subprocess.call([a.replace("@SIZE@", str(size)) for a in cmd]))
