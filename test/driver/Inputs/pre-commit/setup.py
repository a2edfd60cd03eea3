"""setup.py SRC_ROOT WORK FLAGS: a hook repository holding this project's
.pre-commit-hooks.yaml and hook script (committed, as pre-commit clones it),
and a project repository using it, with a compile database in build/ and a
first commit holding an old anti-pattern (old.cpp), made before the hook was
installed."""
import json
import os
import shlex
import shutil
import subprocess
import sys

src, work, flags = sys.argv[1], sys.argv[2], shlex.split(sys.argv[3])
hooks, proj = os.path.join(work, "hooks"), os.path.join(work, "proj")
inputs = os.path.dirname(os.path.abspath(__file__))
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
       "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]


def git(repo, *args):
    subprocess.run(GIT + list(args), cwd=repo, check=True,
                   stdout=subprocess.DEVNULL)


os.makedirs(os.path.join(hooks, "scripts"))
shutil.copy(os.path.join(src, ".pre-commit-hooks.yaml"), hooks)
for name in ("pre-commit-hook.py", "torchtidy_scripts.py"):
    shutil.copy(os.path.join(src, "scripts", name),
                os.path.join(hooks, "scripts"))
git(hooks, "init", "-q")
git(hooks, "add", "-A")
git(hooks, "commit", "-qm", "hooks")
rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hooks, check=True,
                     capture_output=True, text=True).stdout.strip()

os.makedirs(os.path.join(proj, "build"))
for name in ("old.cpp", "clean.cpp", "README.txt"):
    shutil.copy(os.path.join(inputs, name), proj)
with open(os.path.join(proj, ".pre-commit-config.yaml"), "w") as f:
    f.write("repos:\n- repo: %s\n  rev: %s\n  hooks:\n  - id: libtorch-tidy\n"
            % (hooks, rev))
db = [{"directory": proj, "file": os.path.join(proj, name),
       "arguments": ["clang++"] + flags + ["-c", name]}
      for name in ("old.cpp", "clean.cpp", "new.cpp", "real.cpp")]
with open(os.path.join(proj, "build", "compile_commands.json"), "w") as f:
    json.dump(db, f, indent=1)
git(proj, "init", "-q")
git(proj, "add", "-A")
git(proj, "commit", "-qm", "start")
subprocess.run(["pre-commit", "install"], cwd=proj, check=True,
               stdout=subprocess.DEVNULL)
