"""Fixture findings for the program-mode tests, added to a findings file.

  program-fixtures.py inject FINDINGS MAIN_CPP [wrong] [hang]
  program-fixtures.py wrap REAL_VERIFY FINDINGS ARGS...   (as $LIBTORCH_TIDY_VERIFY)

`wrong` exports a fix that changes a constant of the training (the learning
rate): the verifier must say changes-results and --fix-only never apply it.
`hang` exports a fix after which the program never ends: killed at the
timeout, the other variants go on. `wrap` adds both to the findings of the
main.cpp among them and runs the real verifier with a 20 s timeout.
"""
import json
import os
import sys


def finding(check, path, text, needle, replacement, message, after_needle=False):
    offset = text.index(needle)
    if after_needle:
        offset += len(needle)
        length = 0
    else:
        length = len(needle)
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
        "fixits": [{"file": path, "offset": offset, "length": length,
                    "replacement": replacement}],
        "code": {"unit": "lines", "first_line": line, "before": needle,
                 "after": replacement},
    }


def inject(findings_path, main_cpp, kinds):
    path = os.path.realpath(main_cpp)
    text = open(path).read()
    doc = json.load(open(findings_path))
    if "wrong" in kinds:
        doc["findings"].append(finding(
            "torch-fixture-wrong-constant", path, text, "SGDOptions(0.05)",
            "SGDOptions(0.07)", "a fix that changes the learning rate"))
    if "hang" in kinds:
        doc["findings"].append(finding(
            "torch-fixture-hang", path, text, "int main(int argc, char **argv) {\n",
            "  for (;;)\n    std::this_thread::sleep_for(std::chrono::milliseconds(50));\n",
            "a fix after which the program never ends", after_needle=True))
    json.dump(doc, open(findings_path, "w"), indent=1)


def main():
    if sys.argv[1] == "inject":
        inject(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    real, findings = sys.argv[2], sys.argv[3]
    files = [f["file"] for f in json.load(open(findings))["findings"]]
    main_cpp = next(f for f in files if f.endswith("main.cpp"))
    inject(findings, main_cpp, ["wrong", "hang"])
    os.execv(real, [real] + sys.argv[3:] + ["--timeout", "20"])


if __name__ == "__main__":
    main()
