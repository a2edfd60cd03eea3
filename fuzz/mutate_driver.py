#!/usr/bin/env python3
"""Mutation fuzzing of the real libtorch-tidy binary (issue 9, robustness).

Each run takes a seed (a test input), applies a few random mutations
(token deletion, duplication and swap, lines spliced in from another seed,
truncation, random bytes, deep nesting, huge literals, macros, NOLINT
comments, missing headers), and runs the driver on it with every torch-*
check, in one of three modes: plain, --fix with --export-findings and
--export-sarif, or the exports alone. One run at a time (the fuzzing
machine is shared), each under a time limit.

A run is a crash when the driver dies by a signal or prints LLVM's crash
banner, a hang when it passes the time limit, and an export failure when
it exits normally but a JSON file it wrote does not parse. Each is saved
with the command that reproduces it (OUT/crashes/NAME.cpp and NAME.cmd).

Usage:
  mutate_driver.py --driver BIN --mock DIR --seeds DIR [DIR...] --out DIR
                   [--runs N] [--time-limit S] [--pch DIR] [--seed S]
                   [--extra-include DIR ...]
Prints one summary line: runs, seconds, crashes, hangs, export failures.
"""

import argparse
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
import torchtidy_scripts  # noqa: E402

TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.']*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
                   r"|//[^\n]*|/\*.*?\*/|::|->|<<|>>|[-+*/%&|^!=<>]=?|\S", re.S)
CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump:",
                 "AddressSanitizer", "UndefinedBehaviorSanitizer",
                 "Assertion `", "terminate called")
CHECK_LINE = re.compile(r"//\s*CHECK-[A-Z0-9-]+:[^\n]*")

SNIPPETS = [
    "optimizer.zero_grad();", "model->zero_grad(false);",
    "p.grad().zero_();", "loss.backward();", "x.item<float>();",
    "total += x.item<float>();", "x.cpu();", "x.to(torch::kCUDA);",
    "x.cuda();", "torch::cuda::synchronize();", "std::cout << x;",
    "torch::autograd::DetectAnomalyGuard g;",
    "torch::autograd::AnomalyMode::set_enabled(true);",
    "auto t = torch::randn({4, 8}).to(torch::kCUDA);",
    "torch::nn::Sequential s(torch::nn::Conv2d(3, 8, 3), torch::nn::BatchNorm2d(8));",
    "for (auto &p : model->parameters()) p.mutable_grad().zero_();",
    "for (int i = 0; i < 10; ++i) {", "}", "while (true) {", "do {",
    "} while (false);", "if (x.item<bool>()) break;", "return;",
    "#define zero_grad zero_grad", "#define F(x) x.zero_grad()",
    "#include <missing/header.h>", "#if 0", "#endif", "#ifndef NDEBUG",
    "// NOLINT", "// NOLINTNEXTLINE(torch-zero-grad)", "/* NOLINTBEGIN */",
    "template <typename T> void g(T t) { t.zero_grad(); }",
    "auto l = [&](auto &o) { o.zero_grad(); };",
    "namespace torch { namespace optim { struct Optimizer; } }",
    "using namespace torch;", "\\", "R\"(raw\n)\"", "u8\"\xc3\xa9\"",
]


def tokens(text):
    return [(m.start(), m.end()) for m in TOKEN.finditer(text)]


def mutate_once(text, other, rng):
    kind = rng.randrange(14)
    toks = tokens(text)
    if kind == 0 and toks:  # delete a run of tokens
        i = rng.randrange(len(toks))
        j = min(len(toks) - 1, i + rng.randrange(1, 6))
        return text[:toks[i][0]] + text[toks[j][1]:]
    if kind == 1 and toks:  # duplicate a run of tokens
        i = rng.randrange(len(toks))
        j = min(len(toks) - 1, i + rng.randrange(1, 12))
        piece = text[toks[i][0]:toks[j][1]]
        return text[:toks[j][1]] + " " + piece + text[toks[j][1]:]
    if kind == 2 and len(toks) > 2:  # swap two tokens
        a, b = sorted(rng.sample(range(len(toks)), 2))
        (s1, e1), (s2, e2) = toks[a], toks[b]
        return text[:s1] + text[s2:e2] + text[e1:s2] + text[s1:e1] + text[e2:]
    if kind == 3:  # splice lines of another seed
        lines, olines = text.split("\n"), other.split("\n")
        if olines:
            a = rng.randrange(len(olines))
            b = min(len(olines), a + rng.randrange(1, 20))
            at = rng.randrange(len(lines) + 1)
            lines[at:at] = olines[a:b]
        return "\n".join(lines)
    if kind == 4 and text:  # truncate
        return text[:rng.randrange(len(text))]
    if kind == 5:  # random bytes
        chars = list(text)
        for _ in range(rng.randrange(1, 8)):
            c = chr(rng.choice([0, 9, 10, 13, 0x5c, 0x7f, 0xe9, 0x2028,
                                rng.randrange(32, 127)]))
            at = rng.randrange(len(chars) + 1)
            if chars and rng.random() < 0.5 and at < len(chars):
                chars[at] = c
            else:
                chars.insert(at, c)
        return "".join(chars)
    if kind == 6:  # deep nesting around a snippet, in a function
        n = rng.choice([50, 200, 300, 1000])
        opener, closer = rng.choice([("{", "}"), ("(", ")"), ("for (;;) {", "}"),
                                     ("if (true) {", "}"), ("[&] {", "}();")])
        body = rng.choice(SNIPPETS)
        if opener == "(":
            body = "x" if rng.random() < 0.5 else "x.item<float>()"
            return text + "\nvoid deep(torch::Tensor x) { auto y = " + \
                "(" * n + body + ")" * n + "; }\n"
        return text + "\nvoid deep(torch::optim::SGD &optimizer, torch::Tensor x) {\n" + \
            opener * n + body + closer * n + "\n}\n"
    if kind == 7:  # huge literal or long chain
        lit = rng.choice(["9" * rng.choice([30, 5000]),
                          '"' + "a" * 100000 + '"',
                          "x" + " + x" * rng.choice([100, 5000]),
                          "x" + ".cpu()" * rng.choice([100, 3000]),
                          "1e99999", "0x" + "f" * 40])
        return text + "\nvoid big(torch::Tensor x) { auto y = " + lit + "; }\n"
    if kind == 8 and toks:  # macro-ize an identifier
        idents = [t for t in toks if re.match(r"[A-Za-z_]", text[t[0]:t[1]])]
        if idents:
            s, e = rng.choice(idents)
            name = text[s:e]
            macro = rng.choice(["#define M_%s %s\n" % (name, name),
                                "#define M_%s(...) %s __VA_ARGS__\n" % (name, name)])
            use = "M_%s" % name if "(...)" not in macro else "M_%s()" % name
            return macro + text[:s] + use + text[e:]
    if kind == 9:  # insert a snippet at a line
        lines = text.split("\n")
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(SNIPPETS))
        return "\n".join(lines)
    if kind == 10 and toks:  # replace a token by a snippet token
        s, e = rng.choice(toks)
        repl = rng.choice(["zero_grad", "item", "cpu", "cuda", "to", "backward",
                           "step", "torch", "at", "nn", "optim", "Tensor",
                           "auto", "template", "operator", "::", "<", ">",
                           "{", "}", "(", ")", ";", "#", "0", "false", "true",
                           "nullptr", "...", "\\\n"])
        return text[:s] + repl + text[e:]
    if kind == 11:  # line continuations and CRLF
        if rng.random() < 0.5:
            return text.replace("\n", "\r\n")
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        lines[i] = lines[i] + "\\"
        return "\n".join(lines)
    if kind == 12:  # repeat the whole file (redefinitions, many findings)
        return text + "\n" + text
    if kind == 13 and toks:  # delete a whole line range
        lines = text.split("\n")
        a = rng.randrange(len(lines))
        del lines[a:a + rng.randrange(1, 10)]
        return "\n".join(lines)
    return text


def mock_flags(mock, version, extra, pch):
    # The version's own headers first, then those the versions share.
    flags = ["-std=c++17",
             "-isystem", torchtidy_scripts.api_include(os.path.join(mock, version, "include")),
             "-isystem", os.path.join(mock, "common/include"),
             "-isystem", torchtidy_scripts.api_include(os.path.join(mock, "common/include"))]
    for e in extra:
        flags += ["-I", e]
    if pch:
        flags += ["-include-pch", os.path.join(pch, version + ".pch")]
    return flags


def version_of(text, rng):
    if "%torch_mock_2" in text:
        return "v2.1"
    if "%torch_mock_none" in text:
        return "unversioned"
    if "%torch_mock_1_13" in text:
        return "v1.13"
    return rng.choice(["v1.13", "v2.1", "unversioned"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--mock", required=True)
    ap.add_argument("--seeds", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--max-time", type=float, default=0,
                    help="stop after this many seconds (0: no limit)")
    ap.add_argument("--time-limit", type=float, default=20)
    ap.add_argument("--pch", default="")
    ap.add_argument("--extra-include", nargs="*", default=[])
    ap.add_argument("--seed", type=int, default=int(time.time()))
    args = ap.parse_args()

    rng = random.Random(args.seed)
    seeds = []
    for d in args.seeds:
        for name in sorted(os.listdir(d)):
            if name.endswith(".cpp"):
                with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                    seeds.append(CHECK_LINE.sub("//", f.read()))
    if not seeds:
        sys.exit("mutate_driver: no seeds")
    work = os.path.join(args.out, "work")
    crashes = os.path.join(args.out, "crashes")
    os.makedirs(work, exist_ok=True)
    os.makedirs(crashes, exist_ok=True)

    counts = {"runs": 0, "crash": 0, "hang": 0, "export": 0}
    exit_codes = {}
    findings = 0
    start = time.time()
    slowest = 0.0
    for run in range(args.runs):
        if args.max_time and time.time() - start > args.max_time:
            break
        text = rng.choice(seeds)
        for _ in range(rng.randrange(1, 5)):
            text = mutate_once(text, rng.choice(seeds), rng)
        # Only the PCH's version can be used; a file without torch/ gets none.
        version = version_of(text, rng)
        pch = args.pch if "torch/" in text else ""
        src = os.path.join(work, "input.cpp")
        with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        mode = run % 3
        cmd = [args.driver, "--checks=-*,torch-*"]
        if mode == 1:
            cmd += ["--fix"]
        if mode in (1, 2):
            cmd += ["--export-findings=" + os.path.join(work, "findings.json"),
                    "--export-sarif=" + os.path.join(work, "out.sarif"),
                    "--sarif-root=" + work]
        cmd += [src, "--"] + mock_flags(args.mock, version, args.extra_include, pch)
        for p in ("findings.json", "out.sarif"):
            if os.path.exists(os.path.join(work, p)):
                os.remove(os.path.join(work, p))
        t0 = time.time()
        kind = None
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=args.time_limit, start_new_session=True)
            out = proc.stdout.decode("utf-8", "replace")
            if proc.returncode not in exit_codes:
                # One example per exit code, to tell what the runs did.
                with open(os.path.join(args.out, "exit-%d.txt" % proc.returncode),
                          "w", encoding="utf-8") as f:
                    f.write(" ".join(shlex.quote(c) for c in cmd) + "\n" + out[-4000:])
            exit_codes[proc.returncode] = exit_codes.get(proc.returncode, 0) + 1
            findings += len(torchtidy_scripts.findings(out))
            if proc.returncode < 0 or any(m in out for m in CRASH_MARKERS):
                kind = "crash"
            elif mode in (1, 2) and proc.returncode in (0, 1, 3):
                for p in ("findings.json", "out.sarif"):
                    path = os.path.join(work, p)
                    if os.path.exists(path):
                        try:
                            with open(path, encoding="utf-8") as f:
                                json.load(f)
                        except (ValueError, UnicodeDecodeError) as e:
                            kind = "export"
                            out += "\n%s does not parse: %s" % (p, e)
        except subprocess.TimeoutExpired as e:
            kind = "hang"
            out = (e.stdout or b"").decode("utf-8", "replace")
        elapsed = time.time() - t0
        slowest = max(slowest, elapsed)
        counts["runs"] += 1
        if kind:
            counts[kind] += 1
            name = "%s-%d" % (kind, run)
            with open(os.path.join(crashes, name + ".cpp"), "w", encoding="utf-8",
                      errors="surrogateescape") as f:
                f.write(text)
            with open(os.path.join(crashes, name + ".cmd"), "w") as f:
                f.write(" ".join(shlex.quote(c) for c in cmd).replace(
                    shlex.quote(src), os.path.join(crashes, name + ".cpp")) + "\n")
                f.write("# %.1f s\n" % elapsed)
                f.write(out[-4000:])
            print("mutate_driver: %s at run %d (%.1f s), saved %s" %
                  (kind, run, elapsed, name), flush=True)
        if (run + 1) % 250 == 0:
            print("mutate_driver: %d runs, %.0f s" % (run + 1, time.time() - start),
                  flush=True)
    total = time.time() - start
    print("mutate_driver: %d runs of the driver in %.0f s (%.2f runs/s, slowest %.1f s): "
          "%d crashes, %d hangs (> %.0f s), %d export failures" %
          (counts["runs"], total, counts["runs"] / max(total, 1e-9), slowest,
           counts["crash"], counts["hang"], args.time_limit, counts["export"]))
    print("mutate_driver: exit codes %s, %d torch findings printed" %
          (dict(sorted(exit_codes.items())), findings))
    return 1 if counts["crash"] or counts["hang"] or counts["export"] else 0


if __name__ == "__main__":
    sys.exit(main())
