#!/usr/bin/env python3
"""Accuracy of the torch checks on labelled sites of real LibTorch projects.

  real-code.py LABELS.tsv MIRROR_DIR [--repos REPOS.tsv] [--driver PATH]
               [--torch26 ROOT] [--jobs N] [--json OUT] [--require P,R [--one-file]]
               [--cache-dir DIR] [--findings EARLIER.json]
               [--project] [--only-repo REPO ...]
               [--fix-check [--cxx CLANG++] [--show-diff]]
               [--compare-appliers [--verify PATH]]

LABELS.tsv (header line, tab-separated):
  repo commit path line check verdict line_sha1 reason
REPOS.tsv (default: repos.tsv beside LABELS.tsv):
  repo commit generation includes flags deps note
where generation is 1.13 or 2.x, includes a comma-separated list of folders
(relative to the repository root; './' and '../' ones relative to the
analysed file's folder) and flags extra compiler flags (defines, system
include folders of installed third-party packages, a -std= that replaces
the default C++17; {torch_include} stands for the generation's LibTorch
include folder). deps names third-party repositories the project fetches at
build time, comma-separated, each owner/name[@commit][:include-folder]: they
are extracted from MIRROR_DIR like the labelled ones (at the pinned commit,
else at the mirror's HEAD) and their include folder (default: their root)
is added with -isystem. Columns are found by the header's names; deps and
note may be left out.

MIRROR_DIR holds <owner>+<name>/repo (bare git directories, as the search
tool's fetch brings them) or <owner>+<name>/ checkouts. The labelled commit's
source files are extracted with git into a work folder that is kept between
runs (--work-dir), so the driver's result cache makes re-runs fast.

Every labelled file is analysed with
  libtorch-tidy --checks='-*,torch-*' FILE -- -std=c++17 [-x c++] HEADERS INCLUDES FLAGS
where HEADERS are Debian's LibTorch 1.13 or the unpacked 2.6 root, by the
repository's generation. A finding counts for the nearest site of its check
within 2 lines (one site only), a note for the site at its line. Exit status: 0, 1 when
--require is not met (with --one-file: on the sites without [cross-file],
what one file can decide), 2 on bad input (a label whose line_sha1 does not match
the file's line is an error). --findings scores the findings stored by an
earlier --json run against the labels as they are now (after new labels,
without running the driver again). The tables: all sites, the sites without
[cross-file] (what one file decides), the [cross-file] sites alone.
--only-repo REPO (repeatable) keeps the labels of those repositories only.

--project analyses each repository as a whole project instead, as users run
it on their build: WORK/<owner>+<name>-db/compile_commands.json (outside the
extracted tree) lists every translation unit of the repository (.c, .cc,
.cpp, .cxx files, vendored folders included) with the per-file mode's flags,
run from the repository's root, and the driver runs once per repository:
  libtorch-tidy --checks='-*,torch-*' -p WORK/<owner>+<name>-db --jobs=N
                --header-filter=ROOT/.* --export-findings=WORK/<...>-db/findings.json
Labelled headers are analysed through the translation units that include
them (the header filter reports their findings; one finding per file, line,
check and kind is kept); a labelled header that no translation unit includes
(the #include lines followed textually, #if not evaluated) is added to the
database on its own, as the per-file mode analyses it. The findings are read
from the driver's output and scored as in the per-file mode; compiler errors
are listed by the file they are in. The JSON records "mode" ("per-file" or
"project") and, for --project, each repository's run ("project_runs": files,
headers alone, seconds, exit code).

--fix-check scores nothing: for each labelled file, on a scratch copy of its
extracted repository, it applies the fixes (--fix), checks that the fixed
file still compiles with the same flags (clang++ -fsyntax-only; "skipped"
for a file that did not compile before) and that a second --fix changes
nothing, with scripts/fix-check.py's per-file check. One line per file, the
diffs of failures, a summary; exit 1 on any failure.

--compare-appliers scores nothing either: for each labelled file, on a
scratch copy, it exports the file's findings and has
scripts/compare-fixit-appliers.py apply each finding's fix-its, and then all
of them, with the driver's and with the verifier's --apply-fixits: the two
trees must be identical byte for byte (and both refuse what one refuses).
One line per file, a summary; exit 1 on any difference.
"""

import argparse
import concurrent.futures
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
import torchtidy_scripts  # noqa: E402

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".cuh", ".h", ".hh",
                   ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".inc")
# What --project lists in the compilation database (headers are reached
# through them).
COMPILED_SUFFIXES = (".c", ".cc", ".cpp", ".cxx")
INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(["<])([^">\n]+)[">]', re.M)
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".cuh", ".inc")
LABEL_FIELDS = ["repo", "commit", "path", "line", "check", "verdict", "line_sha1", "reason"]
REPO_FIELDS = ["repo", "commit", "generation", "includes", "flags", "deps", "note"]
OPTIONAL_FIELDS = {"deps", "note", "reason"}
WINDOW = 2
CROSS_FILE = "[cross-file]"


class InputError(Exception):
    pass


def read_tsv(path, fields):
    """Rows as dicts keyed by the header's names; every field not in
    OPTIONAL_FIELDS must be a column."""
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\n").split("\t")
        missing = [name for name in fields if name not in header and name not in OPTIONAL_FIELDS]
        if missing:
            raise InputError(f"{path}: header must be: {' '.join(fields)} "
                             f"(missing: {' '.join(missing)})")
        for number, text in enumerate(f, start=2):
            text = text.rstrip("\n")
            if not text.strip() or text.startswith("#"):
                continue
            cells = text.split("\t")
            cells += [""] * (len(header) - len(cells))
            row = dict.fromkeys(fields, "") | dict(zip(header, cells))
            row["where"] = f"{path}:{number}"
            rows.append(row)
    return rows


def line_sha1(text):
    return hashlib.sha1(text.strip().encode("utf-8", "surrogateescape")).hexdigest()[:12]


# ----------------------------------------------------------------------------
# Bringing the labelled commit's sources out of the mirror.

def find_git_dir(mirror, repo):
    base = os.path.join(mirror, repo.replace("/", "+"))
    for candidate in (os.path.join(base, "repo"), os.path.join(base, ".git"), base):
        if os.path.isdir(candidate) and os.path.isfile(os.path.join(candidate, "HEAD")):
            return candidate, base
    return None, base


def git(git_dir, *args, data=None):
    return subprocess.run(["git", "--git-dir", git_dir, *args], input=data,
                          capture_output=True, check=False)


def list_sources(git_dir, commit):
    out = git(git_dir, "ls-tree", "-r", "-z", commit)
    if out.returncode != 0:
        raise InputError(f"{git_dir}: commit {commit} not found: "
                         f"{out.stderr.decode(errors='replace').strip()}")
    entries = []
    for entry in out.stdout.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        kind, obj = meta.split()[1:3]
        name = path.decode("utf-8", "surrogateescape")
        if kind == b"blob" and name.lower().endswith(SOURCE_SUFFIXES):
            entries.append((obj.decode(), name))
    return entries


def write_blobs(git_dir, entries, root):
    """Writes each blob with one git cat-file --batch; absent blobs are skipped."""
    request = "".join(obj + "\n" for obj, _ in entries).encode()
    out = git(git_dir, "cat-file", "--batch", data=request).stdout
    pos = 0
    for _, name in entries:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue
        size = int(header[2])
        target = os.path.join(root, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(out[pos:pos + size])
        pos += size + 1


def extract(mirror, repo, commit, work_dir):
    """The folder holding the repository's sources at commit (None: the
    mirror's HEAD)."""
    git_dir, base = find_git_dir(mirror, repo)
    if git_dir is None:
        if os.path.isdir(base):
            return base  # a plain copy without git: used as it is
        raise InputError(f"{repo}: not in {mirror} (expected {base}/repo or {base}/)")
    if not commit:
        out = git(git_dir, "rev-parse", "HEAD")
        if out.returncode != 0:
            raise InputError(f"{git_dir}: no HEAD commit")
        commit = out.stdout.decode().strip()
    root = os.path.join(work_dir, f"{repo.replace('/', '+')}@{commit[:12]}")
    stamp = os.path.join(root, ".extracted")
    if not os.path.exists(stamp):
        write_blobs(git_dir, list_sources(git_dir, commit), root)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(commit + "\n")
    return root


def parse_deps(text, where):
    """deps cells: owner/name[@commit][:include-folder], comma-separated."""
    deps = []
    for entry in filter(None, (e.strip() for e in text.split(","))):
        match = re.fullmatch(r"([\w.-]+/[\w.-]+)(?:@([0-9a-fA-F]{7,40}))?(?::(.*))?", entry)
        if not match:
            raise InputError(f"{where}: bad deps entry {entry!r} "
                             f"(owner/name[@commit][:include-folder])")
        deps.append((match[1], match[2], match[3] or ""))
    return deps


def extract_deps(repo_row, args):
    """The -isystem folders of a repository's fetched dependencies."""
    folders = []
    for dep, commit, include in parse_deps(repo_row.get("deps", ""), repo_row.get("where", "")):
        root = extract(args.mirror, dep, commit, args.work_dir)
        folders.append(os.path.normpath(os.path.join(root, include)))
    return folders


# ----------------------------------------------------------------------------
# Labels and the compile flags of each repository.

def verify_labels(labels, roots):
    errors = []
    for label in labels:
        path = os.path.join(roots[label["repo"]], label["path"])
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                lines = f.read().split("\n")
        except OSError:
            errors.append(f"{label['where']}: {label['repo']} {label['path']}: file not found")
            continue
        number = int(label["line"])
        actual = line_sha1(lines[number - 1]) if 0 < number <= len(lines) else "(no such line)"
        if actual != label["line_sha1"]:
            errors.append(f"{label['where']}: {label['repo']} {label['path']}:{number} "
                          f"{label['check']}: line_sha1 {label['line_sha1']} does not match "
                          f"the file's line ({actual})")
    return errors


def default_torch26():
    env = os.environ.get("LIBTORCH_TIDY_TORCH26")
    if env:
        return env
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(src, "third_party", "libtorch-2.6")


def header_flags(generation, args):
    if generation == "1.13":
        if args.torch113_flags is not None:
            return shlex.split(args.torch113_flags)
        return torchtidy_scripts.include_flags("/usr/include")
    if args.torch2_flags is not None:
        return shlex.split(args.torch2_flags)
    # Absolute: --fix-check compiles from inside the scratch copy.
    root = os.path.abspath(args.torch26 or default_torch26())
    include = os.path.join(root, "usr", "include")
    if not torchtidy_scripts.has_libtorch(include):
        raise InputError(f"no LibTorch 2.6 headers under {root} (give --torch26 ROOT)")
    return torchtidy_scripts.include_flags(include)


def torch_include(headers):
    """The LibTorch include folder: the one above torch/csrc/api/include."""
    return torchtidy_scripts.include_dir_of(headers) or "/usr/include"


def compile_flags(repo_row, root, path, args):
    headers = header_flags(repo_row.get("generation", "2.x"), args)
    extra = [f.replace("{torch_include}", torch_include(headers))
             for f in shlex.split(repo_row.get("flags", ""))]
    # The project's own standard (CMAKE_CXX_STANDARD) replaces the default.
    flags = [] if any(f.startswith("-std=") for f in extra) else ["-std=c++17"]
    if path.lower().endswith(HEADER_SUFFIXES):
        flags += ["-x", "c++"]
    flags += headers
    file_dir = os.path.dirname(os.path.join(root, path))
    for include in filter(None, repo_row.get("includes", "").split(",")):
        base = file_dir if include.startswith(("./", "../")) else root
        flags += ["-I", os.path.normpath(os.path.join(base, include))]
    for folder in repo_row.get("dep_includes", []):
        flags += ["-isystem", folder]
    return flags + extra


# ----------------------------------------------------------------------------
# Running the driver and reading its diagnostics.

def checks_of(args):
    """The driver's --checks: every torch check, or those of --only-check."""
    return "-*," + ",".join(args.only_check or ["torch-*"])


def run_driver(job, args):
    root, path, flags = job
    cache = [f"--cache-dir={args.cache_dir}"] if args.cache_dir else []
    command = [args.driver, f"--checks={checks_of(args)}", "--quiet", *cache,
               f"--header-filter={re.escape(root)}/.*", os.path.join(root, path), "--", *flags]
    out = subprocess.run(command, cwd=root, capture_output=True, text=True,
                         errors="replace", check=False)
    return parse_output(out.stdout + "\n" + out.stderr, root)


def relative(path, root):
    path = os.path.normpath(path)
    prefix = os.path.normpath(root) + os.sep
    return path[len(prefix):] if path.startswith(prefix) else None


def parse_output(text, root):
    findings, errors, last_check = [], [], None
    for match in torchtidy_scripts.parse_diagnostics(text):
        path = relative(match["file"], root)
        kind, check = match["kind"], match["check"] or ""
        if kind == "note":
            if path is not None and last_check:
                findings.append((path, int(match["line"]), last_check, "note", match["msg"]))
            continue
        last_check = check if check.startswith("torch-") else None
        if kind == "error" or check.startswith("clang-diagnostic-error"):
            errors.append((path or match["file"], int(match["line"]), match["msg"]))
        elif last_check and path is not None:
            findings.append((path, int(match["line"]), check, "warning", match["msg"]))
    return findings, errors


# ----------------------------------------------------------------------------
# --project: one whole-project run (libtorch-tidy -p DB) per repository.

def translation_units(root):
    """Every compiled source file under root (relative paths, sorted)."""
    units = []
    for folder, _, names in os.walk(root):
        units += [os.path.relpath(os.path.join(folder, n), root) for n in names
                  if n.lower().endswith(COMPILED_SUFFIXES)]
    return sorted(units)


def include_folders(flags):
    """The folders of -I, -iquote and -isystem flags, in order."""
    return [value for flag, value in zip(flags, flags[1:])
            if flag in ("-I", "-iquote", "-isystem")]


def includes_of(path, memo):
    """The names the file #includes, each with whether it is quoted."""
    if path not in memo:
        try:
            with open(path, "rb") as f:
                text = f.read()
        except OSError:
            text = b""
        memo[path] = [(m[1] == b'"', m[2].decode("utf-8", "surrogateescape"))
                      for m in INCLUDE_LINE.finditer(text)]
    return memo[path]


def resolve_include(name, quoted, includer, folders, root):
    """The project file an #include names (as the compiler searches: the
    includer's folder first for a quoted one), or None outside the project."""
    candidates = ([os.path.dirname(includer)] if quoted else []) + folders
    prefix = os.path.normpath(root) + os.sep
    for folder in candidates:
        path = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(path):
            return path if path.startswith(prefix) else None
    return None


def reached_files(root, units, flags_of):
    """The project files the translation units include, directly or not.
    Textual: #if around an #include is not evaluated, so a header only
    included under a condition that is off counts as reached."""
    reached, memo = set(), {}
    for unit in units:
        folders = include_folders(flags_of[unit])
        todo = [os.path.join(root, unit)]
        seen = set(todo)
        while todo:
            includer = todo.pop()
            for quoted, name in includes_of(includer, memo):
                path = resolve_include(name, quoted, includer, folders, root)
                if path and path not in seen:
                    seen.add(path)
                    todo.append(path)
        reached |= {relative(p, root) for p in seen}
    return reached


def project_entries(repo, labels, repos, roots, args):
    """The files of the repository's compilation database with their flags:
    every translation unit, and the labelled headers none of them includes
    (analysed on their own, as the per-file mode does)."""
    root = roots[repo]
    units = translation_units(root)
    flags_of = {u: compile_flags(repos[repo], root, u, args) for u in units}
    reached = reached_files(root, units, flags_of)
    alone = sorted({l["path"] for l in labels if l["repo"] == repo} - reached - set(units))
    for path in alone:
        flags_of[path] = compile_flags(repos[repo], root, path, args)
    return flags_of, alone


def write_database(repo, flags_of, root, work_dir):
    """WORK/<owner>+<name>-db/compile_commands.json (outside the extracted
    tree): each file with the per-file mode's command, run from the
    repository's root as the per-file mode runs it."""
    db_dir = os.path.join(work_dir, repo.replace("/", "+") + "-db")
    os.makedirs(db_dir, exist_ok=True)
    entries = [{"directory": root, "file": os.path.join(root, path),
                "arguments": ["clang++", *flags, "-c", os.path.join(root, path)]}
               for path, flags in sorted(flags_of.items())]
    with open(os.path.join(db_dir, "compile_commands.json"), "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)
    return db_dir


def project_command(db_dir, root, args, extra=()):
    """The driver's whole-project run on a database (no files named)."""
    cache = [f"--cache-dir={args.cache_dir}"] if args.cache_dir else []
    return [args.driver, f"--checks={checks_of(args)}", "--quiet", *cache,
            f"--header-filter={re.escape(root)}/.*", f"--jobs={max(1, args.jobs)}",
            "-p", db_dir, *extra]


def run_project(repo, labels, repos, roots, args):
    """One repository's whole-project run: its findings, compiler errors (by
    the file they are in), failures the driver reported, and a summary."""
    root = roots[repo]
    flags_of, alone = project_entries(repo, labels, repos, roots, args)
    db_dir = write_database(repo, flags_of, root, args.work_dir)
    command = project_command(db_dir, root, args,
                              [f"--export-findings={os.path.join(db_dir, 'findings.json')}"])
    start = time.monotonic()
    out = subprocess.run(command, cwd=root, capture_output=True, text=True,
                         errors="replace", check=False)
    seconds = time.monotonic() - start
    findings, errors = parse_output(out.stdout + "\n" + out.stderr, root)
    # The driver's errors, and its notes (a file the project index has no
    # facts of).
    failures = [line for line in out.stderr.splitlines()
                if line.startswith(("error: ", "libtorch-tidy: note: "))]
    run = {"files": len(flags_of), "headers_alone": alone, "seconds": round(seconds, 1),
           "exit_code": out.returncode, "failures": failures}
    return findings, errors, run


def unique_findings(findings):
    """One finding per (file, line, check, kind): a header's finding comes
    from every translation unit that includes it."""
    kept = {}
    for finding in sorted(findings):
        kept.setdefault(finding[:4], finding)
    return sorted(kept.values())


def analyse_project(labels, repos, roots, args):
    findings, errors, runs = {}, {}, {}
    for repo in sorted(roots):
        found, errs, runs[repo] = run_project(repo, labels, repos, roots, args)
        run = runs[repo]
        print(f"{repo}: {run['files']} files ({len(run['headers_alone'])} headers alone) "
              f"in {run['seconds']} s, exit code {run['exit_code']}", file=sys.stderr)
        for line in run["failures"]:
            print(f"  {line}", file=sys.stderr)
        findings[repo] = unique_findings(found)
        for path, line, msg in errs:
            errors.setdefault((repo, path), []).append((path, line, msg))
    return findings, errors, runs


# ----------------------------------------------------------------------------
# Scoring.

def hit_sites(labels, findings_by_repo):
    """The labels (by index) that the findings hit. A warning credits only the
    nearest site of its check within WINDOW lines (the earlier one on a tie),
    so one finding cannot count for two neighbouring sites; a note credits the
    site at its own line."""
    by_file = {}
    for index, label in enumerate(labels):
        by_file.setdefault((label["repo"], label["path"], label["check"]), []).append(index)
    hits = set()
    for repo, findings in findings_by_repo.items():
        for path, at, check, kind, _ in findings:
            sites = by_file.get((repo, path, check), [])
            if kind == "note":
                hits.update(i for i in sites if int(labels[i]["line"]) == at)
                continue
            near = [(abs(int(labels[i]["line"]) - at), int(labels[i]["line"]), i) for i in sites
                    if abs(int(labels[i]["line"]) - at) <= WINDOW]
            if near:
                hits.add(min(near)[2])
    return hits


def near_any_site(finding, sites):
    path, at, check, _, _ = finding
    return any(s["path"] == path and s["check"] == check and abs(int(s["line"]) - at) <= WINDOW
               for s in sites)


def score(labels, findings_by_repo):
    table = {}
    hits = hit_sites(labels, findings_by_repo)
    for index, label in enumerate(labels):
        row = table.setdefault(label["check"], {"tp": 0, "true": 0, "fp": 0, "false": 0,
                                                 "missed": [], "false_positives": []})
        hit = index in hits
        if label["verdict"] == "TRUE":
            row["true"] += 1
            row["tp"] += hit
            if not hit:
                row["missed"].append(label)
        else:
            row["false"] += 1
            row["fp"] += hit
            if hit:
                row["false_positives"].append(label)
        scope = "_cross_file" if CROSS_FILE in label["reason"] else "_one_file"
        key = "true" if label["verdict"] == "TRUE" else "false"
        row[key + scope] = row.get(key + scope, 0) + 1
        hit_key = "tp" if label["verdict"] == "TRUE" else "fp"
        row[hit_key + scope] = row.get(hit_key + scope, 0) + hit
    for row in table.values():
        row["precision"], row["recall"] = ratios(row["tp"], row["fp"], row["true"])
        for scope in ("_one_file", "_cross_file"):
            row["precision" + scope], row["recall" + scope] = ratios(
                row.get("tp" + scope, 0), row.get("fp" + scope, 0), row.get("true" + scope, 0))
    return table


def ratios(tp, fp, true):
    """Precision and recall, None where undefined."""
    return (tp / (tp + fp) if tp + fp else None, tp / true if true else None)


def fmt(value):
    return "n/a" if value is None else f"{value:.2f}"


def print_table(table):
    print(f"{'check':40} {'recall (TRUE found/total)':>26} {'FALSE hit/total':>16} {'precision':>9}")
    total = {"tp": 0, "true": 0, "fp": 0, "false": 0}
    for check in sorted(table):
        row = table[check]
        for key in total:
            total[key] += row[key]
        print(f"{check:40} {fmt(row['recall']):>6} ({row['tp']:3}/{row['true']:3}){'':11} "
              f"{row['fp']:5}/{row['false']:<5}{'':5} {fmt(row['precision']):>9}")
    precision = total["tp"] / (total["tp"] + total["fp"]) if total["tp"] + total["fp"] else None
    recall = total["tp"] / total["true"] if total["true"] else None
    print(f"{'overall':40} {fmt(recall):>6} ({total['tp']:3}/{total['true']:3}){'':11} "
          f"{total['fp']:5}/{total['false']:<5}{'':5} {fmt(precision):>9}")


def print_scope_table(table, title, scope):
    """The table on part of the sites (scope: a key suffix of score's rows)."""
    print(f"\n{title}:")
    for check in sorted(table):
        row = table[check]
        print(f"{check:40} {fmt(row['recall' + scope]):>6} "
              f"({row.get('tp' + scope, 0):3}/{row.get('true' + scope, 0):3}){'':11} "
              f"{row.get('fp' + scope, 0):5}/{row.get('false' + scope, 0):<5}{'':5} "
              f"{fmt(row['precision' + scope]):>9}")


def print_one_file_table(table):
    """The same without the sites only another file decides: what analysis of
    one file at a time can be expected to get right; then those sites alone,
    what a whole-project run adds."""
    print_scope_table(table, f"without {CROSS_FILE} sites (what one file shows)", "_one_file")
    print_scope_table(table, f"{CROSS_FILE} sites only (what another file decides)",
                      "_cross_file")


def print_sites(title, table, key):
    rows = [(check, s) for check in sorted(table) for s in table[check][key]]
    print(f"\n{title}: {len(rows)}")
    for check, s in rows:
        print(f"  {s['repo']} {s['path']}:{s['line']} {check}: {s['reason']}")


def print_unlabelled(labels, findings_by_repo):
    print("\nunlabelled findings (for review):")
    count = 0
    for repo in sorted(findings_by_repo):
        sites = [s for s in labels if s["repo"] == repo]
        for finding in sorted(set(findings_by_repo[repo])):
            if finding[3] == "warning" and not near_any_site(finding, sites):
                count += 1
                print(f"  {repo} {finding[0]}:{finding[1]} {finding[2]}: {finding[4]}")
    print(f"  ({count})")


def unmet(table, require, one_file=False):
    """The checks under the targets, on all sites or (one_file) on the sites
    one file can decide."""
    if not require:
        return []
    p_min, r_min = (float(v) for v in require.split(","))
    suffix, scope = ("_one_file", " (one file)") if one_file else ("", "")
    failing = []
    for check, row in sorted(table.items()):
        precision, recall = row["precision" + suffix], row["recall" + suffix]
        if precision is not None and precision < p_min:
            failing.append(f"{check}: precision{scope} {fmt(precision)} < {p_min}")
        if recall is not None and recall < r_min:
            failing.append(f"{check}: recall{scope} {fmt(recall)} < {r_min}")
    return failing


# ----------------------------------------------------------------------------

def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("labels")
    p.add_argument("mirror")
    p.add_argument("--repos", help="repos.tsv (default: beside LABELS)")
    p.add_argument("--driver", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "driver", "libtorch-tidy"))
    p.add_argument("--torch26", help="root of the unpacked LibTorch 2.6 package (ROOT/usr/include)")
    p.add_argument("--torch113-flags", help="header flags for 1.13 repositories instead of Debian's")
    p.add_argument("--torch2-flags", help="header flags for 2.x repositories instead of the 2.6 root")
    p.add_argument("--work-dir", default=os.path.join(
        tempfile.gettempdir(), f"libtorch-tidy-real-code-{os.getuid()}"))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--json", help="write the results as JSON")
    p.add_argument("--require", metavar="P,R", help="exit 1 when a check's precision < P or recall < R")
    p.add_argument("--one-file", action="store_true",
                   help="--require on the sites one file can decide (without [cross-file])")
    p.add_argument("--cache-dir", help="the driver's result cache (default: the driver's own)")
    p.add_argument("--findings", metavar="JSON",
                   help="score the findings of an earlier --json run instead of running the driver")
    p.add_argument("--project", action="store_true",
                   help="one whole-project run (libtorch-tidy -p DB) per repository, over a "
                   "compile_commands.json of all its translation units, instead of one run per "
                   "labelled file")
    p.add_argument("--only-repo", action="append", metavar="REPO",
                   help="only the labels of this repository (owner/name; repeatable)")
    p.add_argument("--only-check", action="append", metavar="CHECK",
                   help="only the labels of this check, and only it runs (repeatable): "
                   "re-measure the checks a change touches. Only the files with such labels "
                   "are analysed: a finding that only another labelled file's analysis reports "
                   "(a header it includes) is not seen")
    p.add_argument("--fix-check", action="store_true",
                   help="instead of scoring: on a scratch copy of each labelled file's repository, "
                   "apply the fixes, check the file still compiles and a second --fix changes nothing")
    p.add_argument("--cxx", default=shutil.which("clang++-19") or "clang++",
                   help="compiler for --fix-check's syntax checks")
    p.add_argument("--show-diff", action="store_true", help="--fix-check: print every file's fixes")
    p.add_argument("--compare-appliers", action="store_true",
                   help="instead of scoring: for each labelled file's fix-its (each finding's, then "
                   "all together), the driver's and the verifier's --apply-fixits must leave "
                   "identical trees (scripts/compare-fixit-appliers.py)")
    p.add_argument("--verify", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "runtime-verify",
        "libtorch-tidy-verify"), help="--compare-appliers: the verifier")
    args = p.parse_args(argv)
    # The drivers run in the repositories' folders: paths must not depend on ours.
    args.work_dir = os.path.abspath(args.work_dir)
    return args


def prepare(args):
    labels = read_tsv(args.labels, LABEL_FIELDS)
    if args.only_repo:
        labels = [l for l in labels if l["repo"] in args.only_repo]
        if not labels:
            raise InputError(f"no labels of {', '.join(args.only_repo)}")
    if args.only_check:
        labels = [l for l in labels if l["check"] in args.only_check]
        if not labels:
            raise InputError(f"no labels of {', '.join(args.only_check)}")
    repos_path = args.repos or os.path.join(os.path.dirname(os.path.abspath(args.labels)), "repos.tsv")
    repos = {r["repo"]: r for r in read_tsv(repos_path, REPO_FIELDS)}
    for label in labels:
        if label["verdict"] not in ("TRUE", "FALSE") or not label["line"].isdigit():
            raise InputError(f"{label['where']}: bad verdict or line")
        repos.setdefault(label["repo"], {"repo": label["repo"], "generation": "2.x"})
    roots = {}
    for repo in sorted({l["repo"] for l in labels}):
        commits = {l["commit"] for l in labels if l["repo"] == repo}
        if len(commits) != 1:
            raise InputError(f"{repo}: labels name {len(commits)} commits; one per repository")
        roots[repo] = extract(args.mirror, repo, commits.pop(), args.work_dir)
        repos[repo]["dep_includes"] = extract_deps(repos[repo], args)
    return labels, repos, roots


def analyse(labels, repos, roots, args):
    jobs = sorted({(l["repo"], l["path"]) for l in labels})
    specs = {j: (roots[j[0]], j[1], compile_flags(repos[j[0]], roots[j[0]], j[1], args)) for j in jobs}
    findings, errors = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = dict(zip(jobs, pool.map(lambda j: run_driver(specs[j], args), jobs)))
    for (repo, path), (found, errs) in results.items():
        findings.setdefault(repo, []).extend(found)
        if errs:
            errors[(repo, path)] = errs
    return {r: sorted(set(f)) for r, f in findings.items()}, errors


# ----------------------------------------------------------------------------
# --fix-check: do the fixes compile, and is a second --fix a no-op?

def load_fix_check():
    """scripts/fix-check.py, whose per-file check this mode shares."""
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(
        "fix_check", os.path.join(src, "scripts", "fix-check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def moved(flag, root, scratch):
    if flag == root or flag.startswith(root + os.sep):
        return scratch + flag[len(root):]
    return flag


def fix_check_file(job, spec, args, fix_check):
    """Fixes one labelled file on a scratch copy of its repository."""
    root, path, flags = spec
    top = tempfile.mkdtemp(prefix="fix-check-", dir=args.work_dir)
    try:
        scratch = os.path.join(top, "src")
        shutil.copytree(root, scratch, symlinks=True)
        flags = [moved(f, os.path.normpath(root), scratch) for f in flags]
        target = os.path.join(scratch, path)
        cache = [f"--cache-dir={args.cache_dir}"] if args.cache_dir else []
        unit = fix_check.Unit(target, f"{job[0]} {path}",
                              [f"--header-filter={re.escape(scratch)}/.*", target, "--", *flags],
                              [args.cxx, "-fsyntax-only", *flags, target], scratch)
        result = fix_check.check(unit, args.driver, "-*,torch-*", ["--quiet", *cache], quick=True)
        for key in ("compile_error_before", "compile_error"):
            if result.get(key):
                result[key] = result[key].replace(scratch + os.sep, "")
        return result
    finally:
        shutil.rmtree(top, ignore_errors=True)


def run_fix_check(labels, repos, roots, args):
    fix_check = load_fix_check()
    os.makedirs(args.work_dir, exist_ok=True)
    jobs = sorted({(l["repo"], l["path"]) for l in labels})
    specs = {j: (roots[j[0]], j[1], compile_flags(repos[j[0]], roots[j[0]], j[1], args)) for j in jobs}
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # Printed as they come: a long run shows its progress.
        for r in pool.map(lambda j: fix_check_file(j, specs[j], args, fix_check), jobs):
            # The diffs of failures are the report: a check's fix to look at.
            fix_check.print_result(r, args.show_diff or r["compiles"] == "no" or not r["idempotent"])
            sys.stdout.flush()
            results.append(r)
    fix_check.print_summary(results)
    return 0 if fix_check.all_good(results) else 1


# ----------------------------------------------------------------------------
# --compare-appliers: the driver's and the verifier's fix-it appliers on the
# fixed files of --fix-check.

APPLIERS_SUMMARY = re.compile(r"(\d+) specs: (\d+) applied, (\d+) refused by both, "
                              r"(\d+) different; (\d+) files compared, (\d+) changed")


def compare_appliers_file(job, spec, args):
    """One labelled file's findings exported on a scratch copy of its
    repository, then scripts/compare-fixit-appliers.py over the folder that
    holds every file its fix-its touch."""
    root, path, flags = spec
    top = tempfile.mkdtemp(prefix="compare-appliers-", dir=args.work_dir)
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        scratch = os.path.join(top, "src")
        shutil.copytree(root, scratch, symlinks=True)
        flags = [moved(f, os.path.normpath(root), scratch) for f in flags]
        target = os.path.join(scratch, path)
        findings = os.path.join(top, "findings.json")
        cache = [f"--cache-dir={args.cache_dir}"] if args.cache_dir else []
        subprocess.run([args.driver, "--checks=-*,torch-*", "--quiet", *cache,
                        f"--header-filter={re.escape(scratch)}/.*",
                        f"--export-findings={findings}", target, "--", *flags],
                       cwd=scratch, capture_output=True, text=True)
        try:
            found = json.load(open(findings))["findings"]
        except (OSError, ValueError, KeyError):
            return {"file": f"{job[0]} {path}", "error": "no findings exported"}
        touched = [e["file"] for f in found for e in f.get("fixits") or []]
        if not touched:
            return {"file": f"{job[0]} {path}", "specs": 0, "applied": 0, "refused": 0,
                    "different": 0, "compared": 0, "changed": 0, "lines": []}
        folder = os.path.commonpath([os.path.dirname(t) for t in touched])
        out = subprocess.run([sys.executable, os.path.join(src, "scripts", "compare-fixit-appliers.py"),
                              "--quiet", "--driver", args.driver, "--verify", args.verify,
                              "--work", os.path.join(top, "work"), findings, folder],
                             capture_output=True, text=True)
        m = APPLIERS_SUMMARY.search(out.stdout)
        if not m:
            return {"file": f"{job[0]} {path}", "error": (out.stderr or out.stdout).strip()[-300:]}
        keys = ("specs", "applied", "refused", "different", "compared", "changed")
        result = dict(zip(keys, map(int, m.groups())))
        result["file"] = f"{job[0]} {path}"
        result["lines"] = [l.replace(scratch + os.sep, "") for l in out.stdout.splitlines()
                           if l.startswith(("DIFFERENT", "skipped"))]
        return result
    finally:
        shutil.rmtree(top, ignore_errors=True)


def run_compare_appliers(labels, repos, roots, args):
    os.makedirs(args.work_dir, exist_ok=True)
    jobs = sorted({(l["repo"], l["path"]) for l in labels})
    specs = {j: (roots[j[0]], j[1], compile_flags(repos[j[0]], roots[j[0]], j[1], args)) for j in jobs}
    totals = dict.fromkeys(("files", "specs", "applied", "refused", "different", "compared",
                            "changed", "errors"), 0)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(lambda j: compare_appliers_file(j, specs[j], args), jobs):
            totals["files"] += 1
            if "error" in r:
                totals["errors"] += 1
                print(f"error {r['file']}: {r['error']}")
                continue
            for k in ("specs", "applied", "refused", "different", "compared", "changed"):
                totals[k] += r[k]
            print(f"{'DIFFERENT' if r['different'] else 'same'} {r['file']}: {r['specs']} specs, "
                  f"{r['applied']} applied, {r['refused']} refused by both, {r['different']} different")
            for line in r["lines"]:
                print("  " + line)
            sys.stdout.flush()
    print("{files} files: {specs} fix-it sets, {applied} applied, {refused} refused by both, "
          "{different} different; {compared} files compared, {changed} changed by a fix; "
          "{errors} errors".format(**totals))
    return 1 if totals["different"] or totals["errors"] else 0


def main(argv):
    args = parse_args(argv)
    try:
        labels, repos, roots = prepare(args)
        bad = verify_labels(labels, roots)
        if bad:
            print("\n".join("error: " + b for b in bad), file=sys.stderr)
            return 2
        if args.fix_check:
            return run_fix_check(labels, repos, roots, args)
        if args.compare_appliers:
            return run_compare_appliers(labels, repos, roots, args)
        start = time.monotonic()
        runs, mode = None, "project" if args.project else "per-file"
        if args.findings:
            findings, errors, mode = load_findings(args.findings)
        elif args.project:
            findings, errors, runs = analyse_project(labels, repos, roots, args)
        else:
            findings, errors = analyse(labels, repos, roots, args)
        if not args.findings:
            print(f"{mode} analysis: {time.monotonic() - start:.0f} s", file=sys.stderr)
    except (InputError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    table = score(labels, findings)
    print(f"mode: {mode}")
    print_table(table)
    print_one_file_table(table)
    print_sites("missed TRUE sites", table, "missed")
    print_sites("findings at FALSE sites", table, "false_positives")
    print(f"\nfiles with compiler errors: {len(errors)}")
    for (repo, path), errs in sorted(errors.items()):
        print(f"  {repo} {path}: {len(errs)} error(s), first: {errs[0][0]}:{errs[0][1]}: {errs[0][2]}")
    print_unlabelled(labels, findings)
    if args.json:
        write_json(args.json, table, findings, errors, mode, runs)
    failing = unmet(table, args.require, args.one_file)
    for f in failing:
        print(f"requirement not met: {f}", file=sys.stderr)
    return 1 if failing else 0


def load_findings(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    findings = {r: [tuple(f) for f in fs] for r, fs in data["findings"].items()}
    errors = {tuple(key.split(" ", 1)): [tuple(e) for e in errs]
              for key, errs in data["compiler_errors"].items()}
    return findings, errors, data.get("mode", "per-file")


def write_json(path, table, findings, errors, mode, runs):
    data = {"checks": {c: {k: v for k, v in row.items() if k not in ("missed", "false_positives")}
                       | {"missed": [f"{s['repo']} {s['path']}:{s['line']}" for s in row["missed"]],
                          "false_positives": [f"{s['repo']} {s['path']}:{s['line']}"
                                              for s in row["false_positives"]]}
                       for c, row in table.items()},
            "findings": {r: [list(f) for f in fs] for r, fs in findings.items()},
            "compiler_errors": {f"{r} {p}": [list(e) for e in errs] for (r, p), errs in errors.items()},
            "mode": mode}
    if runs is not None:
        data["project_runs"] = runs
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
