"""Prints a line per file under each directory given: its path (relative to
the directories' common parent), mode and SHA-256, sorted; for checking that
a run left a tree byte-identical."""
import hashlib
import os
import sys

root = os.path.dirname(os.path.commonpath([os.path.abspath(d) for d in sys.argv[1:]]))
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
