#!/usr/bin/env python3
"""Runs torch-* checks on a test file through both hosts and checks the result.

Usage (from lit RUN lines, through the %check_torch_tidy substitution):

  check_torch_tidy.py [options] INPUT CHECKS TEMP [-- TIDY_ARGS... [-- COMPILER_ARGS...]]

For each host (clang-tidy-19 with the plugin, and the libtorch-tidy driver):
  1. the input, with its CHECK lines blanked (line numbers kept), is copied
     to TEMP.<host>.cpp and analyzed with -fix;
  2. the diagnostics are matched with FileCheck against the CHECK-MESSAGES
     lines; any warning or error not matched fails the test;
  3. the fixed file is matched against the CHECK-FIXES lines; without such
     lines the file must come back unchanged;
  4. the fixed file is compiled with the same compiler arguments (once per
     distinct fixed text: both hosts must produce the same one; an
     unchanged file is not compiled again: step 2 already fails on its
     compiler errors, which both hosts print as errors);
  5. applying the fixes a second time must change nothing (checked when
     the first pass changed the file).
Both hosts must print the same diagnostics and produce the same fixed file.

--drop-checks REGEX runs an input whose expectations partly do not hold for
the headers given (another LibTorch version): each CHECK-MESSAGES line whose
text matches REGEX, with the CHECK lines that directly follow it (its fixes),
is dropped before matching, so those findings must be absent. Line numbers
are kept, so [[@LINE]] expressions still hold.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

CHECK_LINE = re.compile(r"//\s*CHECK-[A-Z0-9-]+:[^\n]*")


def fail(message):
    sys.exit("check_torch_tidy: " + message)


def run(cmd, expect_ok=True):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    if expect_ok and proc.returncode != 0:
        fail("command failed with exit code %d:\n  %s\n%s" %
             (proc.returncode, " ".join(cmd), proc.stdout))
    return proc.stdout


def split_args(extra):
    """Splits [-- TIDY_ARGS [-- COMPILER_ARGS]]."""
    # argparse has already taken the first "--".
    tidy, compiler = [], []
    if "--" in extra:
        cut = extra.index("--")
        tidy, compiler = extra[:cut], extra[cut + 1:]
    else:
        tidy = extra
    return tidy, compiler


def prefixes(base, suffixes):
    if not suffixes:
        return [base]
    return [base + "-" + s for s in suffixes]


def has_prefix(text, names):
    return any(re.search(r"//\s*" + re.escape(n) + r"(-NEXT|-SAME|-NOT)?:", text)
               for n in names)


def drop_checks(text, pattern):
    """Blanks the CHECK-MESSAGES lines matching pattern and their CHECK lines."""
    regex = re.compile(pattern)
    lines = text.split("\n")
    dropping = False
    for i, line in enumerate(lines):
        directive = CHECK_LINE.search(line)
        if not directive:
            dropping = False
            continue
        # A new CHECK-MESSAGES starts a group; its -NEXT/-SAME lines do not.
        if re.search(r"CHECK-MESSAGES(-[A-Z0-9]+)*:", directive.group(0)) and \
                not re.search(r"-(NEXT|SAME|EMPTY):", directive.group(0)):
            dropping = bool(regex.search(directive.group(0)))
        if dropping:
            lines[i] = line[:directive.start()] + "//"
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--driver", required=True)
    parser.add_argument("--clang-tidy", required=True)
    parser.add_argument("--filecheck", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--hosts", default="plugin,driver")
    parser.add_argument("--check-suffix", default="",
                        help="comma list: use CHECK-MESSAGES-<s>/CHECK-FIXES-<s>")
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--drop-checks", default="",
                        help="regex: CHECK-MESSAGES (and their fixes) not expected here")
    parser.add_argument("input")
    parser.add_argument("checks")
    parser.add_argument("temp")
    parser.add_argument("extra", nargs=argparse.REMAINDER)
    args = parser.parse_args()

    tidy_args, compiler_args = split_args(args.extra)
    if not any(a.startswith("-config") or a.startswith("--config")
               for a in tidy_args):
        tidy_args = ["--config={}"] + tidy_args
    suffixes = [s for s in args.check_suffix.split(",") if s]
    msg_prefixes = prefixes("CHECK-MESSAGES", suffixes)
    fix_prefixes = prefixes("CHECK-FIXES", suffixes)

    with open(args.input, encoding="utf-8") as f:
        original = f.read()
    cleaned = CHECK_LINE.sub("//", original)
    check_file = args.input
    if args.drop_checks:
        original = drop_checks(original, args.drop_checks)
        check_file = args.temp + ".checks" + (os.path.splitext(args.input)[1] or ".cpp")
        os.makedirs(os.path.dirname(os.path.abspath(check_file)), exist_ok=True)
        with open(check_file, "w", encoding="utf-8") as f:
            f.write(original)
    has_messages = has_prefix(original, msg_prefixes)
    has_fixes = has_prefix(original, fix_prefixes)
    ext = os.path.splitext(args.input)[1] or ".cpp"

    results = {}
    compiled = set()
    for host in args.hosts.split(","):
        if host == "plugin":
            tool = [args.clang_tidy, "--load=" + args.plugin]
        elif host == "driver":
            tool = [args.driver]
        else:
            fail("unknown host " + host)
        temp = "%s.%s%s" % (args.temp, host, ext)
        os.makedirs(os.path.dirname(os.path.abspath(temp)), exist_ok=True)
        with open(temp, "w", encoding="utf-8") as f:
            f.write(cleaned)

        def tidy(path):
            return run(tool + ["--checks=-*," + args.checks, "--fix"] +
                       tidy_args + [path, "--"] + compiler_args)

        output = tidy(temp)
        messages_file = temp + ".msg"
        with open(messages_file, "w", encoding="utf-8") as f:
            f.write(output)

        # 2. diagnostics
        if has_messages:
            run([args.filecheck, "-input-file=" + messages_file, check_file,
                 "-check-prefixes=" + ",".join(msg_prefixes),
                 "-implicit-check-not={{warning|error}}:"])
        elif re.search(r"(warning|error):", output):
            fail("[%s] unexpected diagnostics:\n%s" % (host, output))

        # 3. fixes
        with open(temp, encoding="utf-8") as f:
            fixed = f.read()
        if has_fixes:
            run([args.filecheck, "-input-file=" + temp, check_file,
                 "-check-prefixes=" + ",".join(fix_prefixes),
                 "-strict-whitespace"])
        elif fixed != cleaned:
            fail("[%s] the file was changed but the test has no CHECK-FIXES:\n%s"
                 % (host, fixed))

        # 4. the fixed file still compiles. A fixed file identical to one
        # already compiled (the other host's) compiles the same way; the
        # hosts' fixed files are compared below. An unchanged file's
        # compiler errors already failed step 2.
        if not args.no_compile and fixed != cleaned and fixed not in compiled:
            run([args.cxx, "-fsyntax-only"] + compiler_args + [temp])
            compiled.add(fixed)

        # 5. applying the fixes again changes nothing. When the first pass
        # changed nothing, the second would analyze the very same text.
        if fixed != cleaned:
            again = temp + ".again" + ext
            shutil.copyfile(temp, again)
            tidy(again)
            with open(again, encoding="utf-8") as f:
                if f.read() != fixed:
                    fail("[%s] applying the fixes twice differs from once" % host)

        normalized = "\n".join(
            line.replace(temp, "<input>") for line in output.splitlines()
            if re.search(r"(warning|error|note):", line))
        results[host] = (normalized, fixed)

    hosts = list(results)
    for other in hosts[1:]:
        if results[other] != results[hosts[0]]:
            fail("hosts %s and %s disagree:\n--- %s\n%s\n--- %s\n%s" %
                 (hosts[0], other, hosts[0], results[hosts[0]][0], other,
                  results[other][0]))


if __name__ == "__main__":
    main()
