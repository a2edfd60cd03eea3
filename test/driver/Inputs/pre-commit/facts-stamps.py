"""facts-stamps.py CACHE_DIR [BEFORE]: the stored facts of the project
indexes in CACHE_DIR. Without BEFORE, their modification times as JSON;
with BEFORE (such a JSON), "re-indexed FILE" for each source file whose
facts were made again since."""
import glob
import json
import os
import sys

stamps = {p: os.stat(p).st_mtime_ns for p in
          glob.glob(os.path.join(sys.argv[1], "index", "*", "facts", "*"))}
if len(sys.argv) < 3:
    json.dump(stamps, sys.stdout)
    sys.exit(0)
before = json.load(open(sys.argv[2]))
for path in sorted(stamps):
    if before.get(path) != stamps[path]:
        facts = json.loads(open(path).read().split("\n", 1)[1])
        print("re-indexed %s" % os.path.basename(facts["file"]))
