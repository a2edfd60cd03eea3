"""dump-index.py CACHE_DIR: the functions of the one project index in
CACHE_DIR, a line each, sorted by USR: the name (main with its file), then
"step LOOP_FUNCTION LOOP_FILE:LINE call CALL_FILE:LINE" when it runs per
step, "once" when it runs once, and cuda=yes|no|unknown."""
import glob
import json
import os
import sys

paths = glob.glob(os.path.join(sys.argv[1], "index", "*", "index.json"))
if len(paths) != 1:
    sys.exit("expected one index in %s, found %d" % (sys.argv[1], len(paths)))


def place(p):
    return "%s:%d" % (os.path.basename(p[0]), p[1])


for f in json.load(open(paths[0]))["functions"]:
    usr = f["usr"]
    name = usr[2:].split("(")[0]
    if "@" in name:  # main, or what other files cannot name: NAME@FILE:LINE
        name, where = name.split("@", 1)
        name += "@" + os.path.basename(where.rsplit(":", 1)[0])
    words = [name]
    step = f.get("step")
    if step:
        words += ["step", step["loopFunction"], place(step["loop"]), "call",
                  place(step["call"])]
    if f["once"]:
        words.append("once")
    words.append("cuda=" + f["cuda"])
    print(" ".join(words))
