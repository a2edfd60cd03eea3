"""make-compdb.py DIR FLAGS FILE...: DIR/build/compile_commands.json for the
FILEs in DIR, compiled with FLAGS. A FILE written NAME|MORE FLAGS has flags
of its own after FLAGS."""
import json
import os
import shlex
import sys

root, flags, files = os.path.abspath(sys.argv[1]), shlex.split(sys.argv[2]), sys.argv[3:]
os.makedirs(os.path.join(root, "build"), exist_ok=True)
entries = []
for spec in files:
    name, _, own = spec.partition("|")
    entries.append({"directory": root, "file": os.path.join(root, name),
                    "arguments": ["clang++"] + flags + shlex.split(own) + ["-c", name]})
with open(os.path.join(root, "build", "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=1)
