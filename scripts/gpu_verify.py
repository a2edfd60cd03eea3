"""The GPU run in two steps (scripts/gpu-verify.sh; docs/verifier.md, "The
GPU run").

  prepare OUTDIR [--real-project SRC ...]   here, where libtorch-tidy is built
  run OUTDIR RESULTDIR [--budget SECONDS]   on the GPU machine (or the CPU)

`prepare` analyses the bundled example (and one real project) against LibTorch
2.x headers, exports the findings with their fix-its and lays out in OUTDIR
all that `run` needs: the sources, the findings, the verifier's sources and
nlohmann/json's header. `run` needs no LLVM: it builds the verifier, which
applies the fix-its itself, and the projects against the LibTorch it finds,
then measures within the budget and writes at most 8 files into RESULTDIR.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import torchtidy_scripts  # noqa: E402

MANIFEST = "manifest.json"
# OUTDIR travels to the GPU machine with the working tree: 64 MiB in all.
SIZE_LIMIT = 48 * 1024 * 1024
EXAMPLE_RUN = "{build}/train_cifar_like --epochs 1 --batches-per-epoch 8"
# What program mode measures first when the budget allows only some
# findings: the guide's headline levers before the rest.
PRIORITY = [
    "torch-debug-api-enabled", "torch-zero-grad", "torch-host-sync-in-loop",
    "torch-blocking-host-to-device-copy", "torch-cudnn-benchmark",
    "torch-tf32-disabled", "torch-unfused-pointwise",
    "torch-host-tensor-to-device", "torch-missing-no-grad",
    "torch-dataloader-workers", "torch-conv-bias-before-batchnorm",
]
RESULT_FILES = ["summary.md", "run.log", "references.json", "example.json",
                "example.html", "real.json", "real.html"]


class Failed(Exception):
    """A step that cannot go on: one line for the user."""


# ----------------------------------------------------------------------------
# prepare


def copy_source(src, dest):
    """A project's sources without .git and build directories."""
    def ignore(folder, names):
        return [n for n in names if n == ".git" or os.path.exists(
            os.path.join(folder, n, "CMakeCache.txt"))]
    shutil.copytree(src, dest, ignore=ignore, symlinks=True)


def apply_edit(root, spec):
    """--real-edit FILE:OLD=>NEW, a literal replacement that must match."""
    path, _, change = spec.partition(":")
    old, sep, new = change.partition("=>")
    if not sep or not old:
        raise Failed(f"--real-edit '{spec}': expected FILE:OLD=>NEW")
    target = os.path.join(root, path)
    with open(target, encoding="utf-8") as f:
        text = f.read()
    if text.count(old) != 1:
        raise Failed(f"--real-edit: '{old}' occurs {text.count(old)} times in "
                     f"{path}, not once")
    with open(target, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))
    return {"file": path, "old": old, "new": new}


def torch2_include(args):
    root = args.torch_headers or os.path.join(ROOT, "third_party",
                                              "libtorch-2.6")
    include = os.path.join(root, "usr", "include")
    if not torchtidy_scripts.has_libtorch(include):
        raise Failed(f"no LibTorch 2.x headers under {root} (scripts/"
                     "setup-debian.sh unpacks them; or --torch-headers ROOT)")
    with open(os.path.join(root, "VERSION"), encoding="utf-8") as f:
        version = f.read().strip()
    return include, version


def analyse(args, source, include):
    """The project's torch-* findings with fix-its, against the 2.x headers
    (a GPU machine's LibTorch is 2.x: the fix-its are written for it)."""
    files = sorted(os.path.join(d, n) for d, _, names in os.walk(source)
                   for n in names if n.endswith((".cpp", ".cc", ".cxx")))
    flags = ["-std=c++17", *torchtidy_scripts.include_flags(include)]
    database = [{"directory": source, "file": f,
                 "arguments": ["c++", *flags, "-c", f]} for f in files]
    work = tempfile.mkdtemp(prefix="gpu-verify-prepare.")
    try:
        with open(os.path.join(work, "compile_commands.json"), "w") as f:
            json.dump(database, f)
        out = os.path.join(work, "findings.json")
        proc = subprocess.run(
            [args.driver, "--checks=-*,torch-*", "--quiet", "--no-cache",
             "-p", work, f"--export-findings={out}", *files],
            capture_output=True, text=True)
        if proc.returncode != 0 or not os.path.exists(out):
            raise Failed(f"libtorch-tidy failed on {source} (exit "
                         f"{proc.returncode}): {proc.stderr.strip()[-400:]}")
        with open(out, encoding="utf-8") as f:
            return json.load(f)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def reference_findings(args, out, findings_2x):
    """One finding with a fix-it per check, for the reference table: the
    2.x analysis first, then the checks only LibTorch 1.13 code has
    (torch-zero-grad: 2.x's zero_grad() already resets)."""
    debian = os.path.join(torchtidy_scripts.DEBIAN_PREFIX, "include")
    older = analyse(args, os.path.join(out, "example"), debian) \
        if torchtidy_scripts.has_libtorch(debian) else {"findings": []}
    chosen, seen = [], set()
    for f in findings_2x["findings"] + older["findings"]:
        if f.get("fixits") and f["check"] not in seen:
            chosen.append(f)
            seen.add(f["check"])
    with open(os.path.join(out, "references.findings.json"), "w") as f:
        json.dump(dict(findings_2x, findings=chosen), f, indent=1)
    print(f"prepare: references: {len(chosen)} checks")


def say_findings(name, findings):
    fixable = sum(1 for f in findings["findings"] if f.get("fixits"))
    print(f"prepare: {name}: {len(findings['findings'])} findings, "
          f"{fixable} with fix-its")


def add_project(args, out, include, name, src, run, extra):
    """Copies a project into OUT/NAME and analyses it; its manifest entry
    and its findings."""
    dest = os.path.join(out, name)
    copy_source(src, dest)
    edits = [apply_edit(dest, e) for e in extra.get("edits", [])]
    findings = analyse(args, dest, include)
    with open(os.path.join(out, name + ".findings.json"), "w") as f:
        json.dump(findings, f, indent=1)
    return {"name": name, "source": name, "findings": name + ".findings.json",
            "prepared_root": dest, "run": run, "edits": edits,
            "data": extra.get("data"), "origin": extra.get("origin", ""),
            "cmake_args": extra.get("cmake_args", [])}, findings


def tree_size(folder):
    return sum(os.path.getsize(os.path.join(d, n))
               for d, _, names in os.walk(folder) for n in names
               if not os.path.islink(os.path.join(d, n)))


def copy_verifier(out):
    dest = os.path.join(out, "verifier")
    shutil.copytree(os.path.join(ROOT, "runtime-verify"),
                    os.path.join(dest, "runtime-verify"),
                    ignore=shutil.ignore_patterns("__pycache__",
                                                  ".clang-tidy"))
    os.makedirs(os.path.join(dest, "checks"))
    for name in ("CheckTable.h", "CheckTable.def"):
        shutil.copy2(os.path.join(ROOT, "checks", name),
                     os.path.join(dest, "checks", name))


def copy_json_header(out, header):
    """nlohmann/json.hpp and, where it is the multi-header release (Debian's),
    the headers beside it: a machine's own older or newer copies must not
    fill in for them."""
    if not os.path.isfile(header):
        raise Failed(f"no nlohmann/json.hpp at {header} (install "
                     "nlohmann-json3-dev, or --json-header FILE)")
    shutil.copytree(os.path.dirname(os.path.abspath(header)),
                    os.path.join(out, "json", "nlohmann"))


def git_commit():
    proc = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def prepare(args):
    out = os.path.abspath(args.outdir)
    if os.path.exists(out) and os.listdir(out):
        raise Failed(f"{out} exists and is not empty")
    if not shutil.which(args.driver) and not os.access(args.driver, os.X_OK):
        raise Failed(f"no libtorch-tidy at {args.driver} (build it: "
                     "scripts/build.sh libtorch-tidy; or --driver PATH)")
    os.makedirs(out, exist_ok=True)
    start = time.time()
    include, version = torch2_include(args)
    example, findings = add_project(args, out, include, "example",
                                    os.path.join(ROOT, "examples"),
                                    args.example_run,
                                    {"origin": "examples/ (bundled)"})
    reference_findings(args, out, findings)
    say_findings("example", findings)
    projects = [example]
    if args.real_project:
        real, findings = add_project(
            args, out, include, "real", os.path.abspath(args.real_project),
            args.real_run, {"edits": args.real_edit, "data": args.real_data,
                            "cmake_args": args.real_cmake_arg,
                            "origin": args.real_origin or args.real_project})
        say_findings("real", findings)
        projects.append(real)
    copy_verifier(out)
    # The data are written on the GPU machine (55 MB would not travel).
    shutil.copy2(os.path.join(ROOT, "bench", "synthetic-mnist.py"), out)
    copy_json_header(out, args.json_header)
    manifest = {"format": "libtorch-tidy-gpu-run", "version": 1,
                "commit": git_commit(),
                "prepared": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%d %H:%M UTC"),
                "analysed_against": f"LibTorch {version} headers",
                "projects": projects}
    with open(os.path.join(out, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1)
    size = tree_size(out)
    if size > SIZE_LIMIT:
        raise Failed(f"{out} holds {size / 2**20:.1f} MiB, over the "
                     f"{SIZE_LIMIT // 2**20} MiB that may travel")
    print(f"prepare: {out} ready ({size / 2**20:.1f} MiB, "
          f"{time.time() - start:.0f} s); on the GPU machine: "
          f"scripts/gpu-verify.sh run {args.outdir} RESULTDIR")
    return 0


# ----------------------------------------------------------------------------
# run: the log, the clock and the child processes


class Log:
    """Everything printed goes to stdout and RESULTDIR/run.log, stamped with
    the seconds since the start."""

    def __init__(self, path):
        self.start = time.time()
        self.file = open(path, "w", encoding="utf-8")
        self.lock = threading.Lock()

    def elapsed(self):
        return time.time() - self.start

    def __call__(self, text):
        with self.lock:
            for line in str(text).rstrip("\n").split("\n"):
                stamped = f"[{self.elapsed():5.0f} s] {line}"
                print(stamped, flush=True)
                self.file.write(stamped + "\n")
            self.file.flush()


def run_logged(log, command, timeout, cwd=None, quiet=False):
    """Runs COMMAND, its output streamed into the log as it comes (only
    its last lines when quiet). Returns (exit code, or None when it was
    stopped at TIMEOUT seconds, and its output)."""
    log("$ " + " ".join(shlex.quote(c) for c in command))
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            errors="replace", start_new_session=True)
    stopped = threading.Event()

    def stop():
        stopped.set()
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            time.sleep(10)
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    timer = threading.Timer(timeout, stop)
    timer.start()
    lines = []
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if not quiet:
            log(lines[-1])
    proc.wait()
    timer.cancel()
    if quiet and lines:
        log("\n".join(lines[-15:]))
    if stopped.is_set():
        log(f"(stopped at its time limit of {timeout:.0f} s)")
        return None, "\n".join(lines)
    if proc.returncode < 0:
        log(f"(killed by signal {-proc.returncode})")
        resolve_crash(log, lines)
    elif proc.returncode > 0:
        log(f"(exit {proc.returncode})")
    return proc.returncode, "\n".join(lines)


CRASH_PLACE = re.compile(r"^  (?:instruction|called from): 0x[0-9a-f]+ "
                         r"(\S+)\+(0x[0-9a-f]+)")
STACK_PLACE = re.compile(r"^(/\S+)\(\+(0x[0-9a-f]+)\)\[")


def resolve_crash(log, lines):
    """The verifier's crash report (CrashReport.h) names places as
    BINARY+OFFSET: each as a function and line, where addr2line is here."""
    addr2line = shutil.which("addr2line")
    places = []
    for line in lines:
        m = CRASH_PLACE.match(line) or STACK_PLACE.match(line)
        if m and m.groups() not in places:
            places.append(m.groups())
    if not places or not addr2line:
        return
    for binary, offset in places[:24]:
        try:
            out = subprocess.run([addr2line, "-f", "-C", "-e", binary, offset],
                                 capture_output=True, text=True, timeout=30)
            where = " at ".join(out.stdout.split("\n")[:2])
        except (OSError, subprocess.TimeoutExpired) as e:
            where = str(e)
        log(f"crash place {binary}+{offset}: {where}")


def first_line(text, default=""):
    for line in text.split("\n"):
        if line.strip():
            return line.strip()
    return default


def python_torch():
    """Python torch's CMake prefix and versions, or None."""
    code = ("import json, torch, torch.utils; print(json.dumps({"
            "'prefix': torch.utils.cmake_prefix_path, "
            "'version': torch.__version__, 'cuda': torch.version.cuda, "
            "'cudnn': torch.backends.cudnn.version() if "
            "torch.backends.cudnn.is_available() else None, "
            "'device': torch.cuda.get_device_name(0) if "
            "torch.cuda.is_available() else 'cpu'}))")
    python = os.environ.get("LIBTORCH_TIDY_PYTHON", "python3")
    try:
        proc = subprocess.run([python, "-c", code], capture_output=True,
                              text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().split("\n")[-1])


def nvidia_smi():
    try:
        proc = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
             "--format=csv,noheader"], capture_output=True, text=True,
            timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return first_line(proc.stdout) if proc.returncode == 0 else None


def cuda_on_path():
    """CUDA's compiler where CMake's CUDA search finds it: a CUDA LibTorch's
    package configuration looks for the toolkit."""
    cuda_bin = "/usr/local/cuda/bin"
    if not shutil.which("nvcc") and os.path.exists(cuda_bin + "/nvcc"):
        os.environ["PATH"] = os.environ.get("PATH", "") + ":" + cuda_bin


def machine_facts(log):
    cuda_on_path()
    facts = {"date": datetime.datetime.now(datetime.timezone.utc)
             .strftime("%Y-%m-%d %H:%M UTC"),
             "cores": os.cpu_count(), "gpu": nvidia_smi()}
    torch = python_torch()
    facts["python_torch"] = torch
    cuda = shutil.which("nvcc")
    if cuda:
        proc = subprocess.run(["nvcc", "--version"], capture_output=True,
                              text=True)
        facts["nvcc"] = (re.findall(r"release [0-9.]+", proc.stdout) or
                         [""])[0]
    log("machine: " + json.dumps(facts))
    return facts


# ----------------------------------------------------------------------------
# run: building


def cmake_args(facts, args):
    common = ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"]
    if facts.get("python_torch"):
        common.append("-DCMAKE_PREFIX_PATH=" +
                      facts["python_torch"]["prefix"])
    if args.cxx:
        common.append("-DCMAKE_CXX_COMPILER=" + args.cxx)
    return common


def build_step(log, name, configure, target, timeout):
    """Configure and build; returns (seconds or None, why it failed)."""
    start = time.time()
    code, out = run_logged(log, configure, timeout, quiet=True)
    if code != 0:
        return None, f"{name}: configure failed: " + tail_error(out)
    build_dir = configure[configure.index("-B") + 1]
    left = max(10, timeout - (time.time() - start))
    code, out = run_logged(log, ["cmake", "--build", build_dir, "--target",
                                 target], left, quiet=True)
    if code != 0:
        return None, f"{name}: build failed: " + tail_error(out)
    seconds = time.time() - start
    log(f"{name}: built in {seconds:.1f} s")
    return seconds, ""


def tail_error(output):
    errors = [l for l in output.split("\n") if "error" in l.lower()]
    return (errors[0] if errors else first_line(output[-400:], "?"))[:300]


def unity_build():
    """On a few cores, one parse of the headers that every source of the
    verifier includes (nlohmann/json, LibTorch) per batch of sources beats
    building them in parallel: measured on 2 cores, 96 s against 153 s. On
    a GPU machine's 16 cores the parallel build is the faster."""
    return ["-DCMAKE_UNITY_BUILD=ON"] if (os.cpu_count() or 1) <= 4 else []


def build_all(log, outdir, work, manifest, facts, args):
    """The verifier and every project's baseline, side by side."""
    common = cmake_args(facts, args)
    json_dir = os.path.join(outdir, "json")
    jobs = {"verifier": (["cmake", "-S", os.path.join(outdir, "verifier",
                                                      "runtime-verify"),
                          "-B", os.path.join(work, "verifier"), *common,
                          "-DLIBTORCH_TIDY_BUILD_TESTS=OFF",
                          # Line tables: a crash report's places resolve
                          # to functions and lines (resolve_crash).
                          "-DCMAKE_CXX_FLAGS=-g1",
                          "-DLIBTORCH_TIDY_JSON_INCLUDE_DIR=" + json_dir,
                          *unity_build()],
                         "libtorch-tidy-verify")}
    for p in manifest["projects"]:
        jobs[p["name"]] = (["cmake", "-S", p["run_source"], "-B",
                            p["build"], *common, *p.get("cmake_args", []),
                            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], "all")
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        started = {n: pool.submit(build_step, log, n, configure, target,
                                  args.build_timeout)
                   for n, (configure, target) in jobs.items()}
        return {n: f.result() for n, f in started.items()}


def verifier_links_llvm(log, verifier):
    proc = subprocess.run(["ldd", verifier], capture_output=True, text=True)
    linked = [l.split()[0] for l in proc.stdout.split("\n")
              if re.search(r"libLLVM|libclang", l)]
    log("ldd libtorch-tidy-verify: " + (", ".join(linked) if linked else
                                        "no LLVM or Clang library"))
    return linked


# ----------------------------------------------------------------------------
# run: measuring


def rewrite_paths(value, old, new):
    """The findings name the prepared tree's paths: point them at OUTDIR's."""
    if isinstance(value, dict):
        return {k: rewrite_paths(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [rewrite_paths(v, old, new) for v in value]
    if isinstance(value, str) and (value == old or
                                   value.startswith(old + "/")):
        return new + value[len(old):]
    return value


def load_findings(outdir, project):
    with open(os.path.join(outdir, project["findings"]), encoding="utf-8") \
            as f:
        findings = json.load(f)
    return rewrite_paths(findings, project["prepared_root"],
                         project["run_source"])


def priority(finding):
    check = finding.get("check", "")
    return PRIORITY.index(check) if check in PRIORITY else len(PRIORITY)


def measurable(findings):
    """Findings program mode can measure, one per check first (by the
    guide's order), then the others."""
    usable = [f for f in findings if f.get("fixits") and
              "unsafe_fix" not in f]
    usable.sort(key=priority)
    first, rest, seen = [], [], set()
    for f in usable:
        (rest if f["check"] in seen else first).append(f)
        seen.add(f["check"])
    return first + rest


def plan_program(count, build_s, variant_s, run_s, share):
    """How many findings fit the share, and the rounds: (findings, runs or 0
    for 'until decided', time cap of the rounds). Program mode builds its
    own baseline (BUILD_S) and each variant (VARIANT_S; the all-fixes
    variant too when there are two or more), warms each up and runs the
    baseline twice and a rounding probe before its rounds. Rounds that can
    decide come first (12: the sequential rule's; 6: a large effect), then
    findings."""
    for fewest in (12, 6, 2):
        for k in range(count, 0, -1):
            builds = build_s + (k + (1 if k > 1 else 0)) * variant_s
            fixed = builds + (k + 5) * run_s
            per_round = (k + 2) * run_s
            rounds = int((share - fixed) / per_round) if share > fixed else 0
            if rounds >= fewest:
                return k, (0 if rounds >= 12 else rounds), share - fixed
    return 0, 0, 0


def run_command(project, data_dir):
    return project["run"].replace("{data}", data_dir)


def time_once(log, project, data_dir, timeout):
    """One run of the baseline: the estimate of a run (and its warm-up)."""
    command = run_command(project, data_dir).replace(
        "{build}", project["build"]).replace("{source}",
                                             project["run_source"])
    start = time.time()
    code, _ = run_logged(log, ["/bin/sh", "-c", command], timeout,
                         cwd=project["run_source"], quiet=True)
    seconds = time.time() - start
    return (seconds if code == 0 else None), code


def verify_references(log, verifier, outdir, project, results, share):
    """Every check's reference benchmark: one finding per check (prepare
    chose them; findings with the same workload share one measurement)."""
    findings = load_findings(outdir, dict(project,
                                          findings="references.findings.json"))
    chosen = findings["findings"]
    path = os.path.join(results, "references.findings.tmp")
    with open(path, "w") as f:
        json.dump(findings, f)
    # Each benchmark stops sampling at its cap; a third of the share is
    # left for warm-up and what the cap does not cover.
    cap = max(2.0, share * 0.66 / max(1, len(chosen)))
    log(f"== references: {len(chosen)} checks, up to {cap:.1f} s each ==")
    code, _ = run_logged(log, [verifier, path, "--references-only",
                               "--time-cap", f"{cap:.1f}", "--json",
                               os.path.join(results, "references.json")],
                         share + 60)
    os.remove(path)
    return {"step": "references", "exit": code, "checks": len(chosen),
            "cap": cap}


def verify_program(log, verifier, outdir, project, results, share, data_dir,
                   run_s):
    """Program mode on a project, with as many findings as the share
    allows (one per check first)."""
    name = project["name"]
    findings = load_findings(outdir, project)
    every = measurable(findings["findings"])
    usable = every[:project.get("max_findings")]
    k, runs, cap = plan_program(len(usable), project["build_s"],
                                project["variant_s"], run_s, share)
    step = {"step": name, "findings": len(findings["findings"]),
            "measurable": len(every), "measured": k, "runs": runs,
            "cap": cap, "run_s": run_s, "build_s": project["build_s"]}
    if k == 0:
        step["skipped"] = (f"the share of {share:.0f} s does not fit one "
                           f"finding (a build {project['build_s']:.0f} s, a "
                           f"run {run_s:.1f} s)")
        log(f"== {name}: skipped: {step['skipped']} ==")
        return step
    path = os.path.join(results, name + ".findings.tmp")
    with open(path, "w") as f:
        json.dump(dict(findings, findings=usable[:k]), f)
    log(f"== {name}: program mode, {k} of {len(every)} findings with "
        f"fix-its, {'until decided' if runs == 0 else f'{runs} rounds'}, "
        f"rounds capped at {cap:.0f} s ==")
    arguments = [verifier, path, "--project", project["build"], "--run",
                 run_command(project, data_dir), "--time-cap", f"{cap:.0f}",
                 "--json", os.path.join(results, name + ".json"), "--html",
                 os.path.join(results, name + ".html")]
    if runs:
        arguments += ["--runs", str(runs)]
    start = time.time()
    code, _ = run_logged(log, arguments, share * 1.5 + 60)
    if read_report(results, name) is None and code is not None:
        # Say what the process limit and the sandbox stood on, and measure
        # once more without the sandbox when the share allows.
        log_limits(log)
        left = share - (time.time() - start)
        if left > project["build_s"] + project["variant_s"] + 8 * run_s:
            step["retried"] = f"again with --no-sandbox after exit {code}"
            log(f"== {name}: no report (exit {code}): once more with "
                "--no-sandbox ==")
            cap = left - project["build_s"] - project["variant_s"] - 6 * run_s
            arguments[arguments.index("--time-cap") + 1] = f"{cap:.0f}"
            code, _ = run_logged(log, arguments + ["--no-sandbox"],
                                 left * 1.5 + 30)
    os.remove(path)
    step["exit"] = code
    return step


def log_limits(log):
    """The cgroups this process is in and those it could make: where the
    verifier's process limit lives."""
    for path in ("/proc/self/cgroup", "/sys/fs/cgroup/cgroup.subtree_control"):
        try:
            with open(path, encoding="utf-8") as f:
                log(f"{path}: {f.read().strip()}")
        except OSError as e:
            log(f"{path}: {e.strerror}")
    try:
        names = sorted(os.listdir("/sys/fs/cgroup"))
        log("/sys/fs/cgroup: " + " ".join(names))
    except OSError as e:
        log(f"/sys/fs/cgroup: {e.strerror}")


def make_data(log, outdir, project, work):
    """The data a project reads, made here (it would not travel)."""
    if not project.get("data"):
        return work
    if project["data"] != "synthetic-mnist":
        raise Failed(f"unknown data '{project['data']}'")
    parent = os.path.join(work, "data-parent")
    os.makedirs(os.path.join(parent, "data"), exist_ok=True)
    code, _ = run_logged(log, [sys.executable, os.path.join(
        outdir, "synthetic-mnist.py"), os.path.join(parent, "data")], 300)
    if code != 0:
        raise Failed("the synthetic MNIST data could not be written")
    return parent


# ----------------------------------------------------------------------------
# run: the summary


def read_report(results, name):
    path = os.path.join(results, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def speedup_text(result):
    s = result.get("speedup")
    if not s:
        return ""
    return f"{s['point']:.2f}x ({s['low']:.2f} .. {s['high']:.2f})"


def difference_text(result):
    d = result.get("difference") or {}
    if d.get("max_rel") is None:
        return ""
    text = f"{d['max_rel']:.1e} relative"
    if d.get("tolerance") is not None:
        text += f" (tolerance {d['tolerance']:.0e})"
    return text


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def reason_of(result):
    reason = result.get("reason", "")
    return "" if reason.startswith("--references-only: measured") else reason


def environment_rows(facts, reports, manifest, used, args, verifier_note):
    env = next((r["environment"] for r in reports if r), {})
    torch = facts.get("python_torch") or {}
    device = env.get("device_name") or env.get("device") or "cpu"
    rows = [("device", device + (f" ({facts['gpu']})" if facts.get("gpu")
                                 else "")),
            ("driver", env.get("driver", "none (no GPU)")),
            ("CUDA", env.get("cuda") or torch.get("cuda") or "none"),
            ("cuDNN", env.get("cudnn") or torch.get("cudnn") or "none"),
            ("LibTorch", env.get("libtorch", "?") + (
                " (Python torch " + torch["version"] + ")" if torch else "")),
            ("CPU", f"{env.get('cpu', '?')}, {facts['cores']} cores"),
            ("date", facts["date"]),
            ("prepared", f"commit {manifest['commit']}, "
                         f"{manifest['prepared']}, findings analysed "
                         f"against {manifest['analysed_against']}"),
            ("verifier", verifier_note),
            ("budget", f"{args.budget:.0f} s; the run took {used:.0f} s")]
    return ["| | |", "|---|---|"] + [f"| {k} | {cell(v)} |" for k, v in rows]


def reference_table(report):
    lines = ["## Reference benchmarks (one finding per check)", ""]
    if not report:
        return lines + ["Not measured (see the steps below).", ""]
    lines += ["| check | verdict | speedup (95% interval) | difference | "
              "reason |", "|---|---|---|---|---|"]
    for r in report["results"]:
        lines.append(f"| {r['check']} | {r['verdict']} | {speedup_text(r)} "
                     f"| {difference_text(r)} | {cell(reason_of(r))} |")
    return lines + [""]


def program_table(title, report, step):
    lines = [f"## Program mode: {title}", ""]
    if step.get("skipped"):
        return lines + [f"Skipped: {step['skipped']}.", ""]
    if not report:
        return lines + ["No report (see the steps below).", ""]
    program = report.get("program", {})
    lines += [f"`{program.get('command', '')}`: {step['measured']} of "
              f"{step['measurable']} findings with fix-its measured (one "
              f"per check first), {program.get('rounds', '?')} rounds, "
              f"timed: {program.get('timing', '?')}.", "",
              "| check | line | verdict | speedup (95% interval) | "
              "stop / reason |", "|---|---|---|---|---|"]
    results = list(report["results"])
    if program.get("all_fixes"):
        results.append(dict(program["all_fixes"], check="(all fixes)",
                            line=""))
    for r in results:
        why = r.get("stop", "") if r.get("speedup") else r.get("reason", "")
        lines.append(f"| {r['check']} | {r.get('line', '')} | "
                     f"{r['verdict']} | {speedup_text(r)} | {cell(why)} |")
    return lines + [""]


def step_lines(steps):
    lines = ["## Steps", "", "| step | what | seconds |", "|---|---|---|"]
    for s in steps:
        what = s.get("skipped") or s.get("what", "")
        if s.get("exit") is None and "exit" in s:
            what += " (stopped at its time limit)"
        elif s.get("exit"):
            what += (f" (killed by signal {-s['exit']})" if s["exit"] < 0
                     else f" (exit {s['exit']})")
        if s.get("retried"):
            what += "; " + s["retried"]
        lines.append(f"| {s['step']} | {cell(what)} | "
                     f"{s.get('seconds', 0):.0f} |")
    return lines + [""]


def write_summary(results, facts, manifest, steps, used, args,
                  verifier_note):
    refs = read_report(results, "references")
    reports = {p["name"]: read_report(results, p["name"])
               for p in manifest["projects"]}
    head = environment_rows(facts, [refs, *reports.values()], manifest, used,
                            args, verifier_note)
    lines = ["# libtorch-tidy: the GPU run's results", "", *head, "",
             *reference_table(refs)]
    for p in manifest["projects"]:
        step = next((s for s in steps if s["step"] == p["name"]), {})
        title = p["name"] + (f" ({p['origin']})" if p.get("origin") else "")
        if p.get("edits"):
            title += "; workload: " + ", ".join(
                f"{e['file']}: `{e['old']}` -> `{e['new']}`"
                for e in p["edits"])
        lines += program_table(title, reports[p["name"]], step)
    lines += step_lines(steps)
    with open(os.path.join(results, "summary.md"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(lines))


# ----------------------------------------------------------------------------
# run


class Budget:
    def __init__(self, seconds, log):
        self.seconds, self.log = seconds, log

    def left(self):
        return self.seconds - self.log.elapsed()

    def share(self, weight, weights_left):
        # 10 s stay for the summary.
        return max(0.0, (self.left() - 10) * weight / weights_left)


def load_manifest(outdir):
    path = os.path.join(outdir, MANIFEST)
    if not os.path.exists(path):
        raise Failed(f"{outdir} holds no {MANIFEST}: run "
                     "'scripts/gpu-verify.sh prepare OUTDIR' first")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("format") != "libtorch-tidy-gpu-run":
        raise Failed(f"{path} is not a prepared GPU run")
    return manifest


def start_results(results):
    os.makedirs(results, exist_ok=True)
    stale = [n for n in os.listdir(results) if n in RESULT_FILES]
    if stale:
        raise Failed(f"{results} already holds {', '.join(sorted(stale))}")


def compiler_id(build):
    """CMake's CMAKE_CXX_COMPILER_ID of a configured build directory."""
    files = os.path.join(build, "CMakeFiles")
    for version in sorted(os.listdir(files)) if os.path.isdir(files) else []:
        path = os.path.join(files, version, "CMakeCXXCompiler.cmake")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                found = re.search(r'CMAKE_CXX_COMPILER_ID "([^"]*)"', f.read())
            if found:
                return found.group(1)
    return ""


def rebuild_seconds(log, project):
    """What a variant's build costs: the project's sources touched and
    rebuilt (the builds before ran side by side, so their times overstate
    one build)."""
    sources = [os.path.join(d, n) for d, _, names in
               os.walk(project["run_source"]) for n in names
               if n.endswith((".cpp", ".cc", ".cxx"))]
    for path in sources:
        os.utime(path)
    start = time.time()
    code, _ = run_logged(log, ["cmake", "--build", project["build"]], 600,
                         quiet=True)
    return time.time() - start if code == 0 else None


def logged_build_seconds(build):
    """The wall time of the project's build, from ninja's log (each step's
    start and end in ms): what a rebuild would measure, for free. None
    without a log."""
    spans = {}
    try:
        with open(os.path.join(build, ".ninja_log"), encoding="utf-8") as f:
            for line in f:
                fields = line.split("\t")
                if line.startswith("#") or len(fields) < 4:
                    continue
                spans[fields[3]] = (int(fields[0]), int(fields[1]))
    except (OSError, ValueError):
        return None
    if not spans:
        return None
    return (max(e for _, e in spans.values()) -
            min(b for b, _ in spans.values())) / 1000.0


def plan_costs(log, project):
    """Program mode's own baseline build and a variant's, estimated from the
    baseline's build (ninja's log; else one timed rebuild): with Clang the
    baseline also precompiles LibTorch's headers (about one more build) and
    a variant then costs about a third. The log's build ran beside the
    verifier's, so it overstates a build alone: the plan errs on the side
    of fewer rounds."""
    seconds = logged_build_seconds(project["build"])
    source = "ninja's log of its build"
    if seconds is None:
        seconds = rebuild_seconds(log, project)
        source = "one timed rebuild"
    if seconds is None:
        return False
    clang = compiler_id(project["build"]) == "Clang"
    project["build_s"] = seconds * (2.0 if clang else 1.0)
    project["variant_s"] = seconds * (0.4 if clang else 1.0)
    log(f"{project['name']}: a build takes {seconds:.1f} s ({source})")
    return True


def baselines(log, manifest, built, outdir, work, steps):
    """Each project that built: its data, one timed run of it and what a
    rebuild costs."""
    ready = []
    for p in manifest["projects"]:
        seconds, why = built[p["name"]]
        if seconds is None:
            steps.append({"step": p["name"], "skipped": why})
            continue
        data_dir = make_data(log, outdir, p, work)
        run_s, code = time_once(log, p, data_dir, 300)
        if run_s is None:
            steps.append({"step": p["name"], "skipped":
                          f"its command failed on the baseline (exit {code})"})
            continue
        log(f"{p['name']}: one run of the baseline took {run_s:.1f} s")
        if not plan_costs(log, p):
            steps.append({"step": p["name"], "skipped": "it did not rebuild"})
            continue
        ready.append((p, data_dir, run_s))
    return ready


def measure(log, verifier, outdir, results, manifest, ready, budget, steps):
    weights = {"references": 2.0, "example": 4.0, "real": 4.0}
    pending = ["references"] + [p["name"] for p, _, _ in ready]
    example = next(p for p in manifest["projects"] if p["name"] == "example")
    for name in pending:
        left = sum(weights.get(n, 4.0) for n in
                   pending[pending.index(name):])
        share = budget.share(weights.get(name, 4.0), left)
        start = time.time()
        if name == "references":
            step = verify_references(log, verifier, outdir, example, results,
                                     share)
            step["what"] = (f"{step['checks']} reference benchmarks, up to "
                            f"{step['cap']:.1f} s of samples each")
        else:
            p, data_dir, run_s = next(r for r in ready if r[0]["name"] == name)
            step = verify_program(log, verifier, outdir, p, results, share,
                                  data_dir, run_s)
            if not step.get("skipped"):
                step["what"] = (f"program mode, {step['measured']} of "
                                f"{step['measurable']} findings, build "
                                f"{step['build_s']:.0f} s, run "
                                f"{run_s:.1f} s")
        step["seconds"] = time.time() - start
        steps.append(step)


def run(args):
    outdir = os.path.abspath(args.outdir)
    results = os.path.abspath(args.resultdir)
    manifest = load_manifest(outdir)
    if args.projects:
        wanted = args.projects.split(",")
        # The example stays: the reference table is made from it.
        manifest["projects"] = [p for p in manifest["projects"]
                                if p["name"] in (*wanted, "example")]
    start_results(results)
    log = Log(os.path.join(results, "run.log"))
    budget = Budget(args.budget, log)
    work = tempfile.mkdtemp(prefix="gpu-verify-run.")
    steps = []
    facts = machine_facts(log)
    verifier_note = "not built"
    try:
        for p in manifest["projects"]:
            p["max_findings"] = args.max_findings
            p["run_source"] = os.path.join(outdir, p["source"])
            p["build"] = os.path.join(work, p["name"] + "-build")
        built = build_all(log, outdir, work, manifest, facts, args)
        seconds, why = built["verifier"]
        if seconds is None:
            raise Failed(why)
        verifier = os.path.join(work, "verifier", "libtorch-tidy-verify")
        linked = verifier_links_llvm(log, verifier)
        verifier_note = (f"built here in {seconds:.0f} s; ldd: " +
                         (", ".join(linked) if linked else
                          "no LLVM or Clang library"))
        steps.append({"step": "builds", "what": "the verifier and each "
                      "project's baseline, side by side",
                      "seconds": log.elapsed()})
        ready = baselines(log, manifest, built, outdir, work, steps)
        measure(log, verifier, outdir, results, manifest, ready, budget,
                steps)
        return 1 if linked else 0
    except Failed as e:
        log(f"gpu-verify: {e}")
        steps.append({"step": "stopped", "what": str(e)})
        return 1
    finally:
        write_summary(results, facts, manifest, steps, log.elapsed(), args,
                      verifier_note)
        log(f"gpu-verify: summary in {os.path.join(results, 'summary.md')}; "
            f"{log.elapsed():.0f} s in all")
        shutil.rmtree(work, ignore_errors=True)


# ----------------------------------------------------------------------------


def parse(argv):
    ap = argparse.ArgumentParser(prog="gpu-verify.sh", description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare", help="lay out OUTDIR (here, with LLVM)")
    p.add_argument("outdir")
    p.add_argument("--example-run", default=EXAMPLE_RUN,
                   help=f"the example's command (default '{EXAMPLE_RUN}')")
    p.add_argument("--real-project", help="a real project's source folder")
    p.add_argument("--real-run", default="{build}/main",
                   help="its command ({build}, {source}, {data})")
    p.add_argument("--real-edit", action="append", default=[],
                   metavar="FILE:OLD=>NEW",
                   help="shorten its workload: a literal replacement")
    p.add_argument("--real-data", choices=["synthetic-mnist"],
                   help="data written on the GPU machine into {data}/data")
    p.add_argument("--real-origin", help="where it comes from, for the report")
    p.add_argument("--real-cmake-arg", action="append", default=[],
                   metavar="-DNAME=VALUE", help="for its configure")
    p.add_argument("--driver", default=os.path.join(
        os.environ.get("BUILD_DIR", os.path.join(ROOT, "build")), "driver",
        "libtorch-tidy"))
    p.add_argument("--torch-headers", help="unpacked LibTorch 2.x (ROOT/usr/"
                   "include); default third_party/libtorch-2.6")
    p.add_argument("--json-header", default="/usr/include/nlohmann/json.hpp")
    r = sub.add_parser("run", help="build and measure (on the GPU machine)")
    r.add_argument("outdir")
    r.add_argument("resultdir")
    r.add_argument("--budget", type=float, default=480,
                   help="seconds for the whole run (default 480)")
    r.add_argument("--build-timeout", type=float, default=300)
    r.add_argument("--cxx", help="the C++ compiler (default: CMake's)")
    r.add_argument("--projects", help="only these projects (example,real)")
    r.add_argument("--max-findings", type=int,
                   help="program mode measures at most N findings a project")
    return ap.parse_args(argv)


def main(argv):
    args = parse(argv)
    try:
        return prepare(args) if args.step == "prepare" else run(args)
    except Failed as e:
        print(f"gpu-verify: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
