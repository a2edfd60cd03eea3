#!/usr/bin/env python3
"""sarif-verdicts.py LOG: one line per result of a SARIF log, with the
verdict the runtime verifier merged into its properties."""
import json
import sys

for run in json.load(open(sys.argv[1]))["runs"]:
    for r in run["results"]:
        p = r["locations"][0]["physicalLocation"]
        v = r.get("properties", {}).get("libtorch-tidy/verification", {})
        print("%s %s:%d verdict %s" % (r["ruleId"], p["artifactLocation"]["uri"],
                                       p["region"]["startLine"], v.get("verdict", "none")))
