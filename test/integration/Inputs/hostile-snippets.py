"""hostile-snippets.py WORK [--abort] -- VERIFY [ARGS...]: runs the
verifier on snippets that attack the machine and prints what became of
their targets.

One snippet writes a file and deletes one in each of two directories outside
its own (WORK/outside, and a fresh directory under /var/tmp, which no sandbox
hides); one connects to a TCP server this script listens with; one kills a
process this script started; one writes its own directory and /tmp, which
must work; with --abort, one more aborts. Each makes all its attempts, then
throws how each went ("done" or why not), so the report says what was
refused; the last throws only if one failed, and is timed otherwise.
After the verifier's output (the findings file and --json WORK/report.json
are appended to its command line), prints one line per target, then the
report's sandbox, process limit and failures. Everything it made outside
WORK is removed."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

work = sys.argv[1]
verify = sys.argv[sys.argv.index("--") + 1:]
os.makedirs(work, exist_ok=True)
outside = os.path.join(work, "outside")
os.makedirs(outside, exist_ok=True)
var_tmp = tempfile.mkdtemp(prefix="libtorch-tidy-sandbox-test-", dir="/var/tmp")
host_tmp = os.path.join("/tmp", "libtorch-tidy-sandbox-test-%d" % os.getpid())

server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(8)
server.settimeout(0.5)
connections = []
stop = threading.Event()


def accept():
    while not stop.is_set():
        try:
            connections.append(server.accept()[0])
        except socket.timeout:
            pass


threading.Thread(target=accept, daemon=True).start()
sleeper = subprocess.Popen(["sleep", "300"])


def cxx(text):
    return json.dumps(text)  # a valid C++ literal for these ASCII strings


def attack(name, line, before):
    return {"check": "torch-example", "file": "hostile.cpp", "line": line,
            "column": 1, "message": name,
            "code": {"unit": "statement", "first_line": line,
                     "before": before, "after": "  (void)0;\n",
                     "free_variables": []}}


def attempt(code, what, why="std::strerror(errno)"):
    """C++ that runs CODE (true when it worked) and notes how WHAT went."""
    return ("  ltt_ok = (%s);\n"
            "  ltt_failed |= !ltt_ok;\n"
            "  ltt_outcome += std::string(ltt_outcome.empty() ? \"\" : \"; \") + %s +\n"
            "                 \": \" + (ltt_ok ? std::string(\"done\") : %s);\n"
            % (code, cxx(what), why))


def attacks(name, line, parts, always_throw=True):
    """A snippet that makes every attempt of PARTS, then throws how each went:
    always (nothing is timed then), or when one failed."""
    code = ("  std::FILE *ltt_f = nullptr;\n  std::string ltt_outcome;\n"
            "  bool ltt_ok = false, ltt_failed = false;\n")
    for part in parts:
        code += attempt(*part)
    code += "  if (%s)\n    throw std::runtime_error(ltt_outcome);\n" % (
        "true" if always_throw else "ltt_failed")
    return attack(name, line, code)


targets = {}
for label, where in (("work", outside), ("var-tmp", var_tmp)):
    with open(os.path.join(where, "victim"), "w") as f:
        f.write("keep\n")
    targets[label] = where
port = server.getsockname()[1]
connect = ("%s -c \"import socket; socket.create_connection(('127.0.0.1', %d), 5)\""
           % (sys.executable, port))
files = []
for label, where in targets.items():
    files += [("(ltt_f = std::fopen(%s, \"w\")) && std::fputs(\"pwned\\n\", ltt_f) >= 0 && "
               "std::fclose(ltt_f) == 0" % cxx(os.path.join(where, "planted")),
               "%s write" % label),
              ("std::remove(%s) == 0" % cxx(os.path.join(where, "victim")),
               "%s delete" % label)]
findings = [
    attacks("files outside", 1, files),
    attacks("connect", 2, [("std::system(%s) == 0" % cxx(connect), "connect",
                            cxx("refused"))]),
    attacks("kill", 3, [("std::system(%s) == 0" % cxx("kill -TERM %d" % sleeper.pid),
                         "kill", cxx("refused"))]),
    # Must work: its own directory, and /tmp (which the sandbox keeps).
    attacks("own directory and /tmp", 4, [
        ("(ltt_f = std::fopen(\"own-file\", \"w\")) && std::fclose(ltt_f) == 0",
         "own directory"),
        ("(ltt_f = std::fopen(%s, \"w\")) && std::fclose(ltt_f) == 0" % cxx(host_tmp),
         "/tmp")], always_throw=False),
]
findings[-1]["code"]["after"] = findings[-1]["code"]["before"] + "  // fixed\n"
if "--abort" in sys.argv[:sys.argv.index("--")]:
    findings.append(attack("abort", 5, "  std::abort();\n"))
path = os.path.join(work, "hostile.json")
json.dump({"format": "libtorch-tidy-findings", "version": 1,
           "findings": findings}, open(path, "w"), indent=1)

try:
    report = os.path.join(work, "report.json")
    proc = subprocess.run(verify + [path, "--json", report],
                          capture_output=True, text=True)
    sys.stdout.write(proc.stdout + "--- stderr\n" + proc.stderr +
                     "--- exit %d\n" % proc.returncode)
    for label, where in targets.items():
        print("%s planted: %s" % (label, "present" if os.path.exists(
            os.path.join(where, "planted")) else "absent"))
        victim = os.path.join(where, "victim")
        state = "deleted"
        if os.path.exists(victim):
            state = "intact" if open(victim).read() == "keep\n" else "changed"
        print("%s victim: %s" % (label, state))
    print("host /tmp file: %s" % ("present" if os.path.exists(host_tmp) else "absent"))
    print("connections: %d" % len(connections))
    try:
        sleeper.wait(timeout=1)
    except subprocess.TimeoutExpired:
        pass
    print("sleeper: %s" % ("alive" if sleeper.poll() is None else "killed"))
    r = json.load(open(report))
    print("sandbox: %s" % r["environment"].get("sandbox"))
    print("process limit: %s" % r["environment"].get("process_limit"))
    for x in r["results"]:
        print("%s: %s %s" % (x["message"], x["verdict"], x.get("failure", "-")))
finally:
    stop.set()
    if sleeper.poll() is None:
        sleeper.kill()
    shutil.rmtree(var_tmp, ignore_errors=True)
    if os.path.exists(host_tmp):
        os.remove(host_tmp)
