#!/usr/bin/env python3
"""pointwise_fixgen.py: do torch-unfused-pointwise's fixes compile on
formulas composed the ways real code writes them?

  pointwise_fixgen.py [options] [-- FLAGS...]
  pointwise_fixgen.py --seeds DIR [options]

Generated mode (the default) composes --cases C++ functions from the
check's catalogue of formulas (SiLU, both GELUs, softplus, softmax,
log-softmax, log-sigmoid, rsqrt, log1p, expm1, Mish, the 2-norm, lerp,
addcmul, addcdiv, each in several spellings:
functions and methods, torch::, at:: or unqualified): a formula whose
operand is another formula, parts of formulas held in locals (declared
then assigned, aliased in chains, shared between two formulas, used again
after the formula, declared outside the loop), inside for, range-for and
while loops, if blocks and lambdas, on operands that are parameters,
members, views, indexing and arithmetic. The choice is deterministic
(--seed). The functions go --per-file to a file, each after a
"// fixgen case NAME" line, which names the case a failure belongs to.

For each file, in a copy: the original must compile (else the generator is
wrong), `libtorch-tidy --checks=-*,torch-unfused-pointwise --fix` is run,
the fixed file must compile with the same FLAGS (clang++ -fsyntax-only),
and a second --fix must change nothing. Where the driver's --help lists
--no-fix-check (its safety net drops fixes that do not compile), this is
done twice: with --no-fix-check, so the check's own fixes are what is
tested, and without it, where the driver must also print no note that a
fix was "not applied" or that the fixes "were not checked".

FLAGS default to C++17 and the mock LibTorch headers of
test/checkers/Inputs/libtorch (--mock, --version): %torch_mock_1_13 in lit.

--seeds DIR applies the same property to every .cpp file of DIR (the fuzz
seeds) with every torch-* check: the fixed file compiles if the original
did, and a second --fix changes nothing. Each seed gets the mock version
its RUN line names (as fuzz/TorchTidyFuzzer.cpp picks it), else all three,
(one where it includes no LibTorch header), and the fuzzer's extra include
directories.

Prints one line per failure (the case, its fixed text, the compiler's
error or the second --fix's change) and a summary:

  fixgen: N passed, M failed (C cases composed in F files, K findings, ...)

Exit code: 0 when everything passed, 1 on any failure, 2 for usage errors.
"""

import argparse
import collections
import concurrent.futures
import difflib
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import torchtidy_scripts  # noqa: E402

CHECK = "torch-unfused-pointwise"
MARKER = re.compile(r"^// fixgen case (\w+)$", re.M)
CHECK_LINE = re.compile(r"//\s*CHECK-[A-Z0-9-]+:[^\n]*")
VERSIONS = ("v1.13", "v2.1", "unversioned")

# --- The catalogue -----------------------------------------------------------
#
# Each spelling is a template: {x} is the operand as a call argument, {p}
# the operand where an operator or a method follows (parenthesized unless
# atomic), {d} a softmax dimension, {ns} "torch::", "at::" or "" (under
# `using namespace torch`). [name|...] marks a part real code may hold in a
# local named after `name`: the composer decides whether it does. Parts
# written alike in one formula (softmax's two exps) are one local.
FORMULAS = {
    "silu": [
        "{p} * [s|{ns}sigmoid({x})]",
        "[s|{ns}sigmoid({x})] * {p}",
        "[s|{p}.sigmoid()] * {p}",
        "[s|{ns}sigmoid({x})].mul({x})",
        "{p}.mul([s|{p}.sigmoid()])",
        "{ns}mul({x}, [s|{ns}sigmoid({x})])",
    ],
    "gelu": [
        "0.5 * {p} * (1 + [g|{ns}erf({p} / std::sqrt(2.0))])",
        "{p} * 0.5 * (1.0 + [g|{ns}erf({p} * M_SQRT1_2)])",
        "{p} * [g|({p} * M_SQRT1_2).erf()].add(1) / 2",
        "0.5 * {p} * ([g|{p}.mul(M_SQRT1_2).erf()] + 1)",
    ],
    "gelu_tanh": [
        "0.5 * {p} * (1 + [th|{ns}tanh(std::sqrt(2.0 / M_PI) * "
        "({p} + 0.044715 * {ns}pow({x}, 3)))])",
        "{p} * ([th|{ns}tanh([inner|0.7978845608 * {p} + 0.7978845608 * "
        "0.044715 * {p} * {p} * {p}])] + 1.0) * 0.5",
        "0.5 * {p} * (1.0 + [th|(0.7978845608 * ({p} + 0.044715 * "
        "{p}.pow(3))).tanh()])",
    ],
    "softplus": [
        "{ns}log(1 + [e|{ns}exp({x})])",
        "{ns}log([e|{ns}exp({x})] + 1)",
        "[e|{p}.exp()].log1p()",
        "{ns}log1p([e|{ns}exp({x})])",
    ],
    "softmax": [
        "[e|{ns}exp({x})] / [e|{ns}exp({x})].sum({d}, true)",
        "[e|{p}.exp()] / [e|{p}.exp()].sum({d}, /*keepdim=*/true)",
        "[e|{ns}exp({x})] / {ns}sum([e|{ns}exp({x})], {d}, true)",
        "[e|{ns}exp({x})] / [z|[e|{ns}exp({x})].sum({d}, true)]",
    ],
    "log_softmax": [
        "{ns}log([sm|{ns}softmax({x}, {d})])",
        "[sm|{p}.softmax({d})].log()",
        "{p} - [lse|{p}.logsumexp({d}, true)]",
        "{p} - [lse|{ns}logsumexp({x}, {d}, true)]",
        "{ns}log([e|{ns}exp({x})] / [e|{ns}exp({x})].sum({d}, true))",
    ],
    "log_sigmoid": [
        "{ns}log([s|{ns}sigmoid({x})])",
        "[s|{p}.sigmoid()].log()",
    ],
    "rsqrt": [
        "1 / [r|{ns}sqrt({x})]",
        "1.0 / [r|{p}.sqrt()]",
    ],
    "log1p": [
        "{ns}log(1 + {p})",
        "{ns}log({p} + 1)",
        "({p} + 1.0).log()",
        "{ns}log([a|{p} + 1])",
    ],
    "expm1": [
        "[e|{ns}exp({x})] - 1",
        "[e|{p}.exp()] - 1.0",
    ],
    # The algebra's identities, with the case's other tensor (bias) and
    # scalar (steps).
    "mish": [
        "{p} * {ns}tanh([sp|{ns}softplus({x})])",
        "{p} * [t|{ns}tanh({ns}log1p([e|{ns}exp({x})]))]",
    ],
    "norm": [
        "{ns}sqrt([q|{ns}sum({p} * {p})])",
        "[q|{p}.pow(2).sum({d}, true)].sqrt()",
    ],
    "lerp": [
        "{p} + steps * (bias - {p})",
        "(1 - steps) * {p} + steps * bias",
    ],
    "addcmul": [
        "bias + {p} * [s|{ns}sigmoid(bias)]",
        "bias - 0.5 * {p} * bias",
    ],
    "addcdiv": [
        "bias - 0.1 * {p} / ([r|{ns}sqrt(bias)] + 1e-8)",
    ],
}
KINDS = sorted(FORMULAS)
# Formulas that compute the same intermediate: two of one group in one
# function may share the local holding it.
SHARING = [["silu", "log_sigmoid"],
           ["softplus", "softmax", "expm1", "log_softmax"]]
DIMS = ["1", "-1", "0", "/*dim=*/1"]
NAMESPACES = ["torch::", "torch::", "at::", ""]
# Operands around a base name ({b}); "slice" only where the headers
# declare Tensor::slice (the mock headers do not).
OPERANDS = [
    ("param", "{b}"), ("param", "{b}"), ("param", "{b}"),
    ("transpose", "{b}.transpose(0, 1)"),
    ("index", "{b}[0]"),
    ("view", "{b}.view({{-1, 4}})"),
    ("indexing", "{b}.index({{torch::indexing::Slice(0, 4)}})"),
    ("scaled", "{b} * 2.0"),
    ("shifted", "{b} + 1e-5"),
    ("plusbias", "{b} + bias"),
]
SLICE = ("slice", "{b}.slice(1, 0, 4)")
CONTEXTS = ["plain", "plain", "for", "range_for", "while", "if", "lambda",
            "if_in_for"]
# How a part is held: declared and initialized (four spellings), declared
# then assigned, or through a chain of two locals.
DECLS = ["auto {n} = {e};", "auto {n} = {e};", "torch::Tensor {n} = {e};",
         "const auto {n} = {e};", "at::Tensor {n} = {e};",
         "torch::Tensor {n};\n{n} = {e};",
         "auto {n}_ = {e};\nauto {n} = {n}_;"]


def atomic(text):
    """Whether text needs no parentheses before an operator or a method:
    no binary operator outside brackets, no leading unary minus."""
    depth = 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c in "+-*/" and 0 < i < len(text) - 1 and \
                text[i - 1] == " " and text[i + 1] == " ":
            return False
    return not text.startswith("-")


def paren(text):
    return text if atomic(text) else "(" + text + ")"


class Composer:
    """Composes the body of one case: the locals it declares and the
    formulas' text."""

    def __init__(self, rng, policy):
        self.rng, self.policy = rng, policy
        self.memo = {}
        self.owner = {}
        self.count = 0
        self.formula = 0
        self.locals = []
        self.shared = False
        self.target = None
        self.operand = None

    def name(self, prefix):
        self.count += 1
        return "%s%d" % (prefix, self.count)

    def declare(self, lines, name, expr, style=None):
        style = style or self.rng.choice(DECLS)
        lines.extend(style.format(n=name, e=expr).split("\n"))
        self.locals.append(name)

    def part(self, prefix, expr):
        """A part of a formula: inline, or a local declared before it."""
        # Only a "share" case looks locals up across its formulas, where
        # the sigmoid or the exp of the operand is one part however each
        # formula spells it.
        if self.policy != "share":
            key = (self.formula, expr)
        elif prefix in ("s", "e"):
            key = (prefix, self.operand)
        else:
            key = expr
        if key in self.memo:
            if self.owner[key] != self.formula and self.memo[key] != expr:
                self.shared = True
            return self.memo[key]
        result = expr
        chance = 0.9 if self.policy == "share" else 0.7
        if self.policy != "inline" and self.rng.random() < chance:
            result = self.name(prefix)
            self.declare(self.target, result, expr)
        self.memo[key], self.owner[key] = result, self.formula
        return result

    def render(self, template, x, d, ns):
        """The template's text, its [name|...] parts innermost first."""
        values = {"x": x, "p": paren(x), "d": d, "ns": ns}
        out, i = [], 0
        while i < len(template):
            c = template[i]
            if c == "[":
                bar = template.index("|", i)
                depth, j = 1, bar + 1
                while depth:
                    depth += {"[": 1, "]": -1}.get(template[j], 0)
                    j += 1
                inner = self.render(template[bar + 1:j - 1], x, d, ns)
                out.append(self.part(template[i + 1:bar], inner))
                i = j
            else:
                j = i
                while j < len(template) and template[j] != "[":
                    j += 1
                out.append(template[i:j].format(**values))
                i = j
        return "".join(out)

    def formula_text(self, kind, operand, ns):
        self.formula += 1
        self.operand = operand
        template = self.rng.choice(FORMULAS[kind])
        return self.render(template, operand, self.rng.choice(DIMS), ns)


class Case:
    def __init__(self, name, text):
        self.name, self.text = name, text


def indent(lines, n):
    return ["  " * n + l if l else l for l in lines]


def compose_case(rng, index, operands):
    """One case: a function (or a struct with a method) holding one or two
    formulas, some nested, in one of CONTEXTS."""
    context = rng.choice(CONTEXTS)
    member = rng.random() < 0.2
    policy = rng.choice(["inline", "hoist", "hoist", "share"])
    ns = rng.choice(NAMESPACES)
    # Every formula is the first one as often as the others.
    outer = KINDS[index % len(KINDS)]
    kinds = [outer]
    if policy == "share" or rng.random() < 0.3:
        group = [g for g in SHARING if outer in g]
        kinds.append(rng.choice(group[0] if group and policy == "share"
                                else KINDS))
    inner = {}
    for i in range(len(kinds)):
        if rng.random() < 0.35:
            inner[i] = rng.choice(KINDS)

    # The base operand: what the context provides.
    base = "x"
    if context == "range_for" and rng.random() < 0.7:
        base = "v"
    elif context == "lambda" and rng.random() < 0.7:
        base = "h"
    elif member and rng.random() < 0.6:
        base = rng.choice(["w", "this->w"])
    operand_kind, operand_tmpl = rng.choice(operands)
    operand = operand_tmpl.format(b=base)
    function_scope = base in ("x", "w", "this->w")

    comp = Composer(rng, policy)
    top, body = [], []
    comp.target = body
    # Parts declared before the loop or the if, where the operand allows.
    if context != "plain" and function_scope and policy != "inline" and \
            rng.random() < 0.25:
        comp.target = top
    if rng.random() < 0.2:
        local = comp.name("h")
        comp.declare(comp.target, local, operand, "auto {n} = {e};")
        operand = local

    results = []
    for i, kind in enumerate(kinds):
        x = operand
        if i in inner:
            x = comp.formula_text(inner[i], operand, ns)
            if rng.random() < 0.4:
                local = comp.name("u")
                comp.declare(comp.target, local, x)
                x = local
        results.append(comp.formula_text(kind, x, ns))

    # The operand changes between the locals and the formula: they must
    # not be read through, and their fixes still compile.
    if base == "x" and context in ("plain", "if") and rng.random() < 0.15:
        body.append("x = x * 2.0;")

    final = results[-1]
    for i, r in enumerate(results[:-1]):
        body.append("auto y%d = %s;" % (i, r))
        final = "%s + y%d" % (final, i) if rng.random() < 0.5 else \
            "y%d + %s" % (i, paren(final))
    use_after = comp.locals and rng.random() < 0.35
    after = ["bias = bias + %s;" % rng.choice(comp.locals)] if use_after \
        else []
    split = rng.random() < 0.2

    def sink(lines, kind):
        """The statement that consumes the final expression."""
        if split:
            lines.insert(0, "torch::Tensor y;")
            lines.append("y = %s;" % final)
        elif after or rng.random() < 0.4:
            lines.append("auto y = %s;" % final)
        else:
            lines.append({"return": "return %s;", "assign": "x = %s;",
                          "accumulate": "out = out + %s;"}[kind]
                         % (final if kind != "accumulate" else paren(final)))
            return
        lines.extend(after)
        lines.append({"return": "return y;", "assign": "x = y;",
                      "accumulate": "out = out + y;"}[kind])

    lines = []
    if ns == "":
        lines.append("using namespace torch;")
    lines += top
    if context == "plain":
        sink(body, "return")
        lines += body
    elif context == "for":
        sink(body, "assign")
        lines += ["for (int i = 0; i < steps; ++i) {"] + indent(body, 1) + \
            ["}", "return x;"]
    elif context == "while":
        sink(body, "assign")
        lines += ["int i = 0;", "while (i < steps) {"] + indent(body, 1) + \
            ["  ++i;", "}", "return x;"]
    elif context == "range_for":
        sink(body, "accumulate")
        lines += ["torch::Tensor out = x;",
                  "for (const auto &v : xs) {"] + indent(body, 1) + \
            ["}", "return out;"]
    elif context == "if":
        sink(body, "return")
        lines += ["if (flag) {"] + indent(body, 1) + ["}", "return x;"]
    elif context == "if_in_for":
        sink(body, "assign")
        lines += ["for (int i = 0; i < steps; ++i) {", "  if (flag) {"] + \
            indent(body, 2) + ["  }", "}", "return x;"]
    elif context == "lambda":
        sink(body, "return")
        lines += ["auto f = [&](const torch::Tensor &h) -> torch::Tensor {"]
        lines += indent(body, 1) + ["};", "return f(x);"]

    parts = [kinds[0] + ("_of_" + inner[0] if 0 in inner else "")]
    if len(kinds) > 1:
        parts.append("and_" + kinds[1] + ("_of_" + inner[1] if 1 in inner
                                          else ""))
    parts += [context, operand_kind if base in ("x", "v", "h") else "member",
              policy if not comp.shared else "shared"]
    if use_after:
        parts.append("usedafter")
    name = "case%03d_%s" % (index, "_".join(parts))
    params = "const std::vector<torch::Tensor> &xs, bool flag, int steps"
    if member:
        text = ["struct %s {" % name, "  torch::Tensor w, bias;",
                "  torch::Tensor forward(torch::Tensor x, %s) {" % params] + \
            indent(lines, 2) + ["  }", "};"]
    else:
        text = ["torch::Tensor %s(torch::Tensor x, torch::Tensor bias, %s) {"
                % (name, params)] + indent(lines, 1) + ["}"]
    return Case(name, "// fixgen case %s\n%s\n" % (name, "\n".join(text)))


def compose(seed, count, operands):
    rng = random.Random(seed)
    return [compose_case(rng, i, operands) for i in range(count)]


def file_text(cases, seed):
    head = ("// Generated by test/fixgen/pointwise_fixgen.py --seed %d: each "
            "case is\n// independent; a failure names its case.\n"
            "#include <torch/torch.h>\n\n#include <cmath>\n#include <vector>"
            "\n\n" % seed)
    return head + "\n".join(c.text for c in cases)


# --- Running the tools ------------------------------------------------------


def run(cmd, timeout=300):
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=timeout)
        return proc.returncode, proc.stdout
    except subprocess.TimeoutExpired:
        return -1, "timed out after %d s: %s" % (timeout, " ".join(cmd))
    except OSError as e:
        return -1, "cannot run %s: %s" % (cmd[0], e)


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)


def mock_flags(mock, version):
    # As test/lit.cfg.py's %torch_mock_* substitutions.
    return ["-std=c++17",
            "-isystem", torchtidy_scripts.api_include(
                os.path.join(mock, version, "include")),
            "-isystem", os.path.join(mock, "common", "include"),
            "-isystem", torchtidy_scripts.api_include(
                os.path.join(mock, "common", "include"))]


def sections(text):
    """{case name: (first line, text)} of a generated file, by its markers;
    None where a marker is missing or doubled (a fix ate one)."""
    marks = [(text.count("\n", 0, m.start()) + 1, m.group(1))
             for m in MARKER.finditer(text)]
    if len(set(n for _, n in marks)) != len(marks):
        return None
    lines = text.split("\n")
    out = {}
    for i, (line, name) in enumerate(marks):
        end = marks[i + 1][0] - 1 if i + 1 < len(marks) else len(lines)
        out[name] = (line, "\n".join(lines[line - 1:end]).rstrip("\n"))
    return out


def case_at(secs, line):
    best = None
    for name, (first, _) in secs.items():
        if first <= line and (best is None or first > secs[best][0]):
            best = name
    return best


def error_chunks(output, path):
    """The compiler's errors in path: (line, the error with its notes)."""
    chunks = []
    loc = re.compile(r"^" + re.escape(path) + r":(\d+):\d+: (error|warning|"
                     r"note): ")
    for raw in output.splitlines():
        m = loc.match(raw)
        if m and m.group(2) == "error":
            chunks.append([int(m.group(1)), [raw]])
        elif chunks and not (m and m.group(2) == "warning"):
            chunks[-1][1].append(raw)
    return [(line, "\n".join(text)) for line, text in chunks]


class Outcome:
    """What went wrong where: {unit: [reasons]}, and the findings seen."""

    def __init__(self):
        self.failures = collections.OrderedDict()
        self.findings = collections.Counter()
        self.units = []
        self.compiled = 0

    def fail(self, unit, reason):
        self.failures.setdefault(unit, []).append(reason)

    def merge(self, other):
        for unit, reasons in other.failures.items():
            for r in reasons:
                self.fail(unit, r)
        self.findings.update(other.findings)
        self.units += other.units
        self.compiled += other.compiled


def tidy_cmd(args, checks, mode, path, flags):
    cmd = [args.driver, "--config={}", "--checks=-*," + checks, "--fix"]
    if mode == "no-fix-check":
        cmd.append("--no-fix-check")
    return cmd + [path, "--"] + flags


def fix(args, checks, mode, path, flags, compiles):
    """Runs --fix on path; returns (why it failed or None, its output).
    On code that does not compile the driver exits with 1 and fixes
    nothing; only a crash or a hang is a failure then."""
    rc, output = run(tidy_cmd(args, checks, mode, path, flags))
    write(path + ".tidy.txt", output)
    if rc == 0 or (rc == 1 and not compiles):
        return None, output
    return ("[%s] libtorch-tidy --fix %s exited with %d:\n%s"
            % (mode, os.path.basename(path), rc,
               indent_text(output.strip()))), output


def compile_once(args, flags, path, text, compiled):
    """Compiles path, whose content is text; the modes' fixed files are
    mostly the same text, compiled once (the machine has two cores)."""
    if text not in compiled:
        compiled[text] = (path,) + run([args.cxx, "-fsyntax-only"] + flags +
                                       [path])
    first, rc, errors = compiled[text]
    return rc, errors.replace(first, path)


def count_findings(out, output, path):
    for m in torchtidy_scripts.findings(output):
        if os.path.basename(m.group("file")) == os.path.basename(path):
            out.findings[torchtidy_scripts.torch_check(m)] += 1


def dropped_fixes(output):
    """The safety net's notes on fixes of the checks it did not apply."""
    return [m for m in torchtidy_scripts.parse_diagnostics(output)
            if m.group("kind") == "note" and "not applied" in m.group("msg")]


def unchecked(output):
    """The safety net's notes that it could not judge the fixes: on code
    that compiles, a failure of the driver (e.g. its PCH rebuilt under it
    by a parallel run)."""
    return [l for l in output.splitlines() if "fixes were not checked" in l]


def check_generated(args, index, cases, flags, modes):
    """One generated file in every mode; failures are named by case."""
    out = Outcome()
    text = file_text(cases, args.seed)
    names = [c.name for c in cases]
    src = os.path.join(args.work, "gen%02d.cpp" % index)
    write(src, text)
    rc, output = run([args.cxx, "-fsyntax-only"] + flags + [src])
    if rc != 0:
        secs = sections(text)
        for line, chunk in error_chunks(output, src) or [(0, output)]:
            name = case_at(secs, line) or os.path.basename(src)
            out.fail(name, "the generated case does not compile (a "
                     "generator bug):\n%s\n%s" % (
                         indent_text(secs.get(name, (0, ""))[1]),
                         indent_text(chunk)))
        return out
    compiled = {}
    for mode in modes:
        path = os.path.join(args.work, mode, os.path.basename(src))
        write(path, text)
        error, output = fix(args, CHECK, mode, path, flags, True)
        if error:
            for n in names:
                out.fail(n, error)
            continue
        if mode == modes[0]:
            count_findings(out, output, path)
        fixed = read(path)
        secs = sections(fixed)
        if secs is None or sorted(secs) != sorted(names):
            out.fail("[%s] %s" % (mode, os.path.basename(path)),
                     "a fix removed or doubled a case marker")
            secs = secs or {}
        for m in dropped_fixes(output):
            name = case_at(secs, int(m.group("line"))) or path
            out.fail(name, "[%s] the driver dropped a fix of the check: %s"
                     % (mode, m.group(0)))
        for line in unchecked(output):
            out.fail("[%s] %s" % (mode, os.path.basename(path)), line)
        # (a) the fixed file compiles
        rc, errors = compile_once(args, flags, path, fixed, compiled)
        if rc != 0:
            by_case = collections.OrderedDict()
            for line, chunk in error_chunks(errors, path) or [(0, errors)]:
                by_case.setdefault(case_at(secs, line), []).append(chunk)
            for name, chunks in by_case.items():
                out.fail(name or os.path.basename(path),
                         "[%s] the fixed code does not compile:\n%s\n%s"
                         % (mode, indent_text(secs.get(name, (0, ""))[1]),
                            indent_text("\n".join(chunks))))
            # A second --fix of code that does not compile does nothing.
            continue
        # (b) fixing it again changes nothing
        again_path = path[:-len(".cpp")] + ".again.cpp"
        write(again_path, fixed)
        error, _ = fix(args, CHECK, mode, again_path, flags, True)
        if error:
            for n in names:
                out.fail(n, error)
            continue
        again = read(again_path)
        if again != fixed:
            again_secs = sections(again) or {}
            changed = [n for n in names
                       if secs.get(n, (0, ""))[1] !=
                       again_secs.get(n, (0, ""))[1]]
            for name in changed or [os.path.basename(path)]:
                out.fail(name, "[%s] a second --fix changed it:\n%s" % (
                    mode, indent_text(unified(
                        secs.get(name, (0, fixed))[1],
                        again_secs.get(name, (0, again))[1]))))
    return out


def indent_text(text):
    return "\n".join("    " + l for l in text.split("\n"))


def unified(a, b):
    return "\n".join(difflib.unified_diff(a.split("\n"), b.split("\n"),
                                          "fixed once", "fixed twice",
                                          lineterm=""))


def seed_flags(args, text):
    """The mock versions a seed runs with, as the fuzzer picks them."""
    for token, version in (("%torch_mock_2", "v2.1"),
                           ("%torch_mock_none", "unversioned"),
                           ("%torch_mock_1_13", "v1.13")):
        if token in text:
            versions = [version]
            break
    else:
        # The version matters only to a seed that includes LibTorch.
        versions = list(VERSIONS) if "torch/" in text else [VERSIONS[0]]
    inputs = os.path.dirname(args.mock)
    extra = ["-I", os.path.join(inputs, "gtest"),
             "-I", os.path.join(inputs, "conv-helpers")]
    return [(v, mock_flags(args.mock, v) + extra) for v in versions]


def check_seed(args, path, modes):
    """One seed with every torch-* check, in every version and mode."""
    out = Outcome()
    text = CHECK_LINE.sub("//", read(path))
    base = os.path.splitext(os.path.basename(path))[0]
    for version, flags in seed_flags(args, text):
        unit = "%s@%s" % (base, version)
        src = os.path.join(args.work, unit + ".cpp")
        write(src, text)
        compiles = run([args.cxx, "-fsyntax-only"] + flags + [src])[0] == 0
        out.units.append(unit)
        out.compiled += compiles
        compiled = {}
        for mode in modes:
            fixed_path = os.path.join(args.work, mode, unit + ".cpp")
            write(fixed_path, text)
            error, output = fix(args, "torch-*", mode, fixed_path, flags,
                                compiles)
            if error:
                out.fail(unit, error)
                continue
            if mode == modes[0]:
                count_findings(out, output, fixed_path)
            for m in dropped_fixes(output):
                out.fail(unit, "[%s] the driver dropped a fix: %s"
                         % (mode, m.group(0)))
            for line in unchecked(output) if compiles else []:
                out.fail(unit, "[%s] %s" % (mode, line))
            fixed = read(fixed_path)
            if compiles and fixed != text:
                rc, errors = compile_once(args, flags, fixed_path, fixed,
                                          compiled)
                if rc != 0:
                    out.fail(unit, "[%s] the fixed file does not compile:\n%s"
                             "\n%s" % (mode, indent_text(unified(text, fixed)),
                                       indent_text(errors.strip())))
                    continue
            again_path = fixed_path[:-len(".cpp")] + ".again.cpp"
            write(again_path, fixed)
            error, _ = fix(args, "torch-*", mode, again_path, flags, compiles)
            if error:
                out.fail(unit, error)
            elif read(again_path) != fixed:
                out.fail(unit, "[%s] a second --fix changed it:\n%s" % (
                    mode, indent_text(unified(fixed, read(again_path)))))
    return out


def main():
    argv, flags = torchtidy_scripts.split_compiler_flags(sys.argv[1:])
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--driver", default=os.environ.get(
        "LIBTORCH_TIDY", os.path.join(ROOT, "build", "driver",
                                      "libtorch-tidy")))
    parser.add_argument("--cxx", default=shutil.which("clang++-19") or
                        "clang++")
    parser.add_argument("--mock", default=os.path.join(
        ROOT, "test", "checkers", "Inputs", "libtorch"))
    parser.add_argument("--version", default="v1.13", choices=VERSIONS,
                        help="the mock headers' version when no FLAGS")
    parser.add_argument("--seed", type=int, default=20240613)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--per-file", type=int, default=50)
    parser.add_argument("--seeds", metavar="DIR",
                        help="check the .cpp files of DIR with every torch-* "
                        "check instead of generated cases")
    parser.add_argument("--work", help="a directory for the files (default: "
                        "a temporary one, kept when something fails)")
    parser.add_argument("--write", metavar="DIR", help="only write the "
                        "generated files to DIR")
    parser.add_argument("-j", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)

    if flags is None:
        flags = mock_flags(args.mock, args.version)
    headers = read(os.path.join(args.mock, "common", "include", "ATen",
                                "core", "TensorBody.h"))
    operands = OPERANDS + ([SLICE] if " slice(" in headers else [])
    cases = compose(args.seed, args.cases, operands)
    chunks = [cases[i:i + args.per_file]
              for i in range(0, len(cases), args.per_file)]
    if args.write:
        os.makedirs(args.write, exist_ok=True)
        for i, chunk in enumerate(chunks):
            write(os.path.join(args.write, "gen%02d.cpp" % i),
                  file_text(chunk, args.seed))
        return 0
    if not os.access(args.driver, os.X_OK):
        parser.error("libtorch-tidy not found at %s (--driver or "
                     "$LIBTORCH_TIDY)" % args.driver)

    temporary = not args.work
    args.work = os.path.abspath(args.work or tempfile.mkdtemp(
        prefix="fixgen-"))
    # Only a directory of an earlier run is emptied (lit's %t is reused).
    stamp = os.path.join(args.work, ".fixgen")
    if os.path.isdir(args.work) and os.listdir(args.work):
        if not os.path.exists(stamp):
            parser.error("--work %s exists and is not from an earlier run"
                         % args.work)
    if os.path.isdir(args.work):
        shutil.rmtree(args.work)
    # Run by hand, the driver's cache stays out of the home directory.
    os.environ.setdefault("LIBTORCH_TIDY_CACHE_DIR",
                          os.path.join(args.work, "cache"))
    modes = ["default"]
    if "no-fix-check" in run([args.driver, "--help"])[1]:
        modes = ["no-fix-check", "default"]
    for mode in modes:
        os.makedirs(os.path.join(args.work, mode))
    write(stamp, "")

    start = time.time()
    outcome = Outcome()
    with concurrent.futures.ThreadPoolExecutor(max(1, args.j)) as pool:
        if args.seeds:
            paths = sorted(os.path.join(args.seeds, n)
                           for n in os.listdir(args.seeds)
                           if n.endswith(".cpp"))
            if not paths:
                parser.error("no .cpp files in " + args.seeds)
            jobs = [pool.submit(check_seed, args, p, modes) for p in paths]
        else:
            jobs = [pool.submit(check_generated, args, i, chunk, flags, modes)
                    for i, chunk in enumerate(chunks)]
        for job in jobs:
            outcome.merge(job.result())

    for unit, reasons in outcome.failures.items():
        print("FAIL %s" % unit)
        for reason in reasons:
            print("  " + reason.replace("\n", "\n  "))
    seconds = time.time() - start
    if args.seeds:
        failed = len([u for u in outcome.units if u in outcome.failures])
        print("fixgen: %d passed, %d failed (%d seed runs (file, version), %d "
              "compile before the fixes, %d findings, modes %s, %.0f s)" % (
                  len(outcome.units) - failed, failed, len(outcome.units),
                  outcome.compiled, sum(outcome.findings.values()),
                  "+".join(modes), seconds))
    else:
        names = set(c.name for c in cases)
        failed = len([n for n in names if n in outcome.failures])
        others = [u for u in outcome.failures if u not in names]
        print("fixgen: %d passed, %d failed (%d cases composed in %d files, "
              "seed %d, %d findings, modes %s, %.0f s)" % (
                  len(names) - failed, failed + len(others), len(cases),
                  len(chunks), args.seed, outcome.findings[CHECK],
                  "+".join(modes), seconds))
    failed_any = bool(outcome.failures)
    if failed_any:
        print("fixgen: the files are in %s" % args.work)
    elif temporary:
        shutil.rmtree(args.work)
    return 1 if failed_any else 0


if __name__ == "__main__":
    sys.exit(main())
