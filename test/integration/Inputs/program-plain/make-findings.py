"""A findings file for Inputs/program-plain/main.cpp: one fix that cuts
the wasted loop fourfold (faster, same result) and one that changes the sum's bound
(changes-results).

  make-findings.py MAIN_CPP OUT
"""
import json
import os
import sys

path = os.path.realpath(sys.argv[1])
text = open(path).read()


def finding(check, needle, replacement):
    offset = text.index(needle)
    line = text.count("\n", 0, offset) + 1
    return {"check": check, "file": path, "line": line, "column": 3,
            "offset": offset, "message": check,
            "fixits": [{"file": path, "offset": offset, "length": len(needle),
                        "replacement": replacement}],
            "code": {"unit": "lines", "first_line": line, "before": needle,
                     "after": replacement}}


doc = {"format": "libtorch-tidy-findings", "version": 1, "findings": [
    finding("torch-fixture-waste", "I < 40000000", "I < 10000000"),
    finding("torch-fixture-wrong-bound", "I < 1000", "I < 999"),
]}
json.dump(doc, open(sys.argv[2], "w"), indent=1)
