"""Prints a line per file under each directory given: its path (relative to
the directories' common parent), mode, modification time and SHA-256,
sorted; for checking that a run left a tree byte-identical.

  tree-digest.py DIR...
  tree-digest.py --changed BEFORE AFTER   (the paths whose line differs)
"""
import hashlib
import os
import sys

if sys.argv[1] == "--changed":
    before = dict(l.split(" ", 1) for l in open(sys.argv[2]).read().splitlines())
    after = dict(l.split(" ", 1) for l in open(sys.argv[3]).read().splitlines())
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            print("changed:", path)
    print("end")
    sys.exit(0)
root = os.path.commonpath([os.path.abspath(d) for d in sys.argv[1:]])
for top in sys.argv[1:]:
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if os.path.islink(path):
                digest = "link:" + os.readlink(path)
            else:
                digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
            print(os.path.relpath(path, root), oct(st.st_mode), st.st_mtime_ns, digest)
