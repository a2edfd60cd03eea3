"""odd-names.py WORK SOURCE DRIVER VERIFY CACHE -- FLAGS...: analyzes and
verifies a copy of SOURCE under a name full of shell syntax, with every
output and the temporary directory named alike, and prints what came out.

A shell that ever saw one of these names would run `touch pwned` in its
working directory and `touch "$PWNED"` (an absolute path); the script looks
for both afterwards. FLAGS are the compiler flags for the analysis."""
import json
import os
import subprocess
import sys

work, source, driver, verify, cache = map(os.path.abspath, sys.argv[1:6])
flags = sys.argv[sys.argv.index("--") + 1:]
odd = "it's $(touch pwned) $(touch \"$PWNED\") `touch pwned`;&"
folder = os.path.join(work, "dir with space")
tmp = os.path.join(work, "tmp %s dir" % odd)
os.makedirs(folder)
os.makedirs(tmp)
src = os.path.join(folder, odd + ".cpp")
with open(source) as f, open(src, "w") as out:
    out.write(f.read())
out = {k: os.path.join(folder, "%s %s" % (odd, k)) for k in
       ("findings.json", "one.json", "one.html", "report.json", "report.html")}
env = dict(os.environ, TMPDIR=tmp, PWNED=os.path.join(work, "pwned-absolute"))


def run(cmd):
    proc = subprocess.run(cmd, cwd=folder, env=env, capture_output=True,
                          text=True)
    print("exit %d" % proc.returncode)
    if proc.returncode:
        sys.stdout.write(proc.stdout + proc.stderr)


# The driver analyzes, exports the findings and verifies in one command.
print("driver:")
run([driver, "--checks=-*,torch-*", "--export-findings=" + out["findings.json"],
     "--verify", "--verify-json=" + out["one.json"],
     "--verify-html=" + out["one.html"], src, "--"] + flags)
findings = json.load(open(out["findings.json"]))
print("findings file names the source: %s" %
      (findings["findings"][0]["file"] == src))
one = json.load(open(out["one.json"]))["results"][0]
print("driver verdict: %s, file: %s" % (one["verdict"], one["file"] == src))
page = open(out["one.html"]).read()
escaped = "".join({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                   "'": "&#39;"}.get(c, c) for c in os.path.basename(src))
print("driver page names the source: %s" % (escaped in page))

# The verifier on its own, building the snippet (its #line names the file).
print("verifier:")
run([verify, out["findings.json"], "--measure-on-cpu", "--timeout", "30",
     "--time-cap", "1", "--cache-dir", cache, "--json", out["report.json"],
     "--html", out["report.html"], "--merge-into", out["findings.json"]])
r = json.load(open(out["report.json"]))["results"][0]
print("verifier verdict: %s, kind: %s, file: %s" %
      (r["verdict"], r.get("kind"), r["file"] == src))
merged = json.load(open(out["findings.json"]))["findings"][0]
print("merged verdict: %s" % merged.get("verification", {}).get("verdict"))
page = open(out["report.html"]).read()
print("report page: %s" % ("<svg" in page))

pwned = [os.path.join(d, f) for d, _, files in os.walk(work) for f in files
         if f.startswith("pwned")]
pwned += [p for p in ("pwned", "/pwned", os.path.join(os.getcwd(), "pwned"))
          if os.path.exists(p)]
print("pwned files: %s" % (pwned or "none"))
print("temporary entries: %d" % len(os.listdir(tmp)))
