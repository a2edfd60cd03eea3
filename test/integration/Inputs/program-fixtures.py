"""Fixture findings for the program-mode tests, added to a findings file.

  program-fixtures.py inject FINDINGS SETTINGS_CPP [wrong] [hang] [rounding]
  program-fixtures.py wrap REAL_VERIFY FINDINGS ARGS...   (as $LIBTORCH_TIDY_VERIFY)

`wrong` exports a fix that changes a constant of the training (the learning
rate): the verifier must say changes-results and --fix-only never apply it.
`hang` exports a fix after which the program never ends: killed at the
timeout, the other variants go on. `rounding` exports a fix of
torch-unfused-pointwise (a check whose fixes may change the rounding) that
moves the losses as little as a fused op's rounding does after training:
the learning rate 4e-4 relative higher moves them by about 1e-5 relative,
so that at the four decimals printed two losses flip their last digit
(1.4126 to 1.4125 on an x86-64 CPU: 7e-5 relative). Within what
rounding may make, it must not be changes-results. `wrap` adds all three to
the findings of the project (its settings.cpp, next to the first finding's
file) and runs the real verifier with a 10 s timeout. They edit
settings.cpp, which compiles in a second; the hang's fix has two fix-its
(the call and its #include).
"""
import json
import os
import sys


def finding(check, edits, message):
    """A finding at the first edit, with every edit a fix-it of it."""
    path, text, offset = edits[0][0], edits[0][1], edits[0][2]
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return {
        "check": check,
        "level": "warning",
        "file": path,
        "line": line,
        "column": column,
        "offset": offset,
        "message": message,
        "fixits": [{"file": p, "offset": o, "length": n, "replacement": r}
                   for p, _, o, n, r in edits],
        "code": {"unit": "lines", "first_line": line, "before": "a",
                 "after": "b"},
    }


def inject(findings_path, settings_cpp, kinds):
    path = os.path.realpath(settings_cpp)
    text = open(path).read()
    doc = json.load(open(findings_path))
    if "wrong" in kinds:
        at = text.index("0.05")
        doc["findings"].append(finding(
            "torch-fixture-wrong-constant", [(path, text, at, 4, "0.07")],
            "a fix that changes the learning rate"))
    if "hang" in kinds:
        body = text.index("int defaultSteps() {") + len("int defaultSteps() {")
        doc["findings"].append(finding(
            "torch-fixture-hang",
            [(path, text, body, 0, " ::pause();"),
             (path, text, 0, 0, "#include <unistd.h>\n")],
            "a fix after which the program never ends"))
    if "rounding" in kinds:
        at = text.index("0.05")
        doc["findings"].append(finding(
            "torch-unfused-pointwise", [(path, text, at, 4, "0.05002")],
            "a fix that changes the losses by rounding only"))
    json.dump(doc, open(findings_path, "w"), indent=1)


def main():
    if sys.argv[1] == "inject":
        inject(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    real, findings = sys.argv[2], sys.argv[3]
    files = [f["file"] for f in json.load(open(findings))["findings"]]
    settings = os.path.join(os.path.dirname(files[0]), "settings.cpp")
    inject(findings, settings, ["wrong", "hang", "rounding"])
    os.execv(real, [real] + sys.argv[3:] + ["--timeout", "10"])


if __name__ == "__main__":
    main()
