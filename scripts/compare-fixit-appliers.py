#!/usr/bin/env python3
"""The driver's and the verifier's fix-it appliers, side by side.
  compare-fixit-appliers.py --driver LIBTORCH-TIDY --verify LIBTORCH-TIDY-VERIFY
                            FINDINGS.json ROOT [--work DIR] [--quiet]
FINDINGS.json is the driver's --export-findings of files under ROOT. For
each finding with fix-its, and for all of them together, ROOT is copied
twice and the fix-its applied to one copy by `libtorch-tidy --apply-fixits`
(clang's replacements) and to the other by `libtorch-tidy-verify
--apply-fixits` (runtime-verify/FixitApplier, no LLVM). Both must succeed or
both fail, and the two trees must be identical byte for byte. One line per
difference and a summary; exit 1 on any difference, 2 on bad input.

On the real code of bench/real-code.py (a manual check: it needs the
downloaded projects): `bench/real-code.py LABELS MIRROR --project` leaves
each repository's findings in WORK/<owner>+<name>-db/findings.json and its
extracted tree in WORK; then, per repository,
  compare-fixit-appliers.py --quiet --driver build/driver/libtorch-tidy \
      --verify build/runtime-verify/libtorch-tidy-verify \
      WORK/<owner>+<name>-db/findings.json WORK/<extracted tree>
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile


def spec_sets(findings):
    """(name, edits) for each finding with fix-its, then all together."""
    sets, every = [], []
    for i, f in enumerate(findings):
        edits = f.get("fixits") or []
        if not edits:
            continue
        name = "%s %s:%s" % (f.get("check", "?"), os.path.basename(f.get("file", "?")),
                             f.get("line", 0))
        sets.append(("#%d %s" % (i, name), edits))
        every.extend(edits)
    if len(sets) > 1:
        sets.append(("(all fixes)", every))
    return sets


def moved(edits, root, copy):
    """The edits with their files in the copy of root, or None if one is outside."""
    out = []
    for e in edits:
        path = os.path.realpath(e["file"])
        if not path.startswith(root + os.sep):
            return None
        out.append(dict(e, file=os.path.join(copy, os.path.relpath(path, root))))
    return out


def apply(tool, edits, root, copy, spec):
    shutil.copytree(root, copy, symlinks=True)
    json.dump({"format": "libtorch-tidy-fixits", "version": 1,
               "edits": moved(edits, root, copy)}, open(spec, "w"))
    r = subprocess.run([tool, "--apply-fixits=" + spec], capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def tree_files(top):
    for dirpath, _, names in os.walk(top):
        for n in names:
            yield os.path.relpath(os.path.join(dirpath, n), top)


def differing(a, b):
    """Files that differ or exist on one side only; and how many were compared."""
    fa, fb = set(tree_files(a)), set(tree_files(b))
    out = sorted(fa ^ fb)
    for rel in sorted(fa & fb):
        if not filecmp.cmp(os.path.join(a, rel), os.path.join(b, rel), shallow=False):
            out.append(rel)
    return out, len(fa | fb)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("findings")
    p.add_argument("root")
    p.add_argument("--driver", required=True)
    p.add_argument("--verify", required=True)
    p.add_argument("--work")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args()
    try:
        findings = json.load(open(args.findings))["findings"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("error: cannot read the findings '%s': %s" % (args.findings, e), file=sys.stderr)
        return 2
    root = os.path.realpath(args.root)
    work = args.work or tempfile.mkdtemp(prefix="compare-appliers-")
    specs = applied = refused = compared = changed = diffs = 0
    for name, edits in spec_sets(findings):
        if moved(edits, root, root) is None:
            print("skipped %s: a fix-it outside %s" % (name, root))
            continue
        specs += 1
        d, v = os.path.join(work, "driver"), os.path.join(work, "verify")
        for old in (d, v):
            shutil.rmtree(old, ignore_errors=True)
        rd, ed = apply(args.driver, edits, root, d, os.path.join(work, "driver.json"))
        rv, ev = apply(args.verify, edits, root, v, os.path.join(work, "verify.json"))
        files, count = differing(d, v)
        compared += count
        if (rd == 0) != (rv == 0) or files:
            diffs += 1
            print("DIFFERENT %s: driver exit %d%s, verifier exit %d%s, files %s"
                  % (name, rd, " (%s)" % ed if ed else "", rv,
                     " (%s)" % ev if ev else "", ", ".join(files) or "identical"))
            continue
        if rd == 0:
            applied += 1
            changed += len(differing(root, d)[0])
        else:
            refused += 1
        if not args.quiet:
            print("same %s: %s" % (name, "applied" if rd == 0 else "refused by both"))
    print("%d specs: %d applied, %d refused by both, %d different; "
          "%d files compared, %d changed by a fix" % (specs, applied, refused, diffs,
                                                      compared, changed))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
