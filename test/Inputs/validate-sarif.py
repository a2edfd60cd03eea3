#!/usr/bin/env python3
"""validate-sarif.py SCHEMA LOG: validates the SARIF log LOG against the SARIF
2.1.0 JSON schema SCHEMA (python3-jsonschema), then against what GitHub code
scanning requires on top of it (a ruleId naming a rule of the run, a location
with a file and a start line). Prints "valid", or "invalid: " and the first
error, and exits 1."""
import json
import sys

import jsonschema


def code_scanning_errors(log):
    for r, run in enumerate(log["runs"]):
        rules = run["tool"]["driver"].get("rules", [])
        ids = [rule["id"] for rule in rules]
        for n, result in enumerate(run.get("results", [])):
            where = "runs[%d].results[%d]" % (r, n)
            if result.get("ruleId") not in ids:
                yield "%s: ruleId %r is no rule of the run" % (where, result.get("ruleId"))
            elif "ruleIndex" in result and ids[result["ruleIndex"]] != result["ruleId"]:
                yield "%s: ruleIndex %d is not rule %r" % (where, result["ruleIndex"], result["ruleId"])
            locations = result.get("locations", [])
            if not locations:
                yield "%s: no location" % where
                continue
            physical = locations[0].get("physicalLocation", {})
            if not physical.get("artifactLocation", {}).get("uri"):
                yield "%s: the first location has no artifact URI" % where
            if "startLine" not in physical.get("region", {}):
                yield "%s: the first location has no start line" % where


def main():
    schema = json.load(open(sys.argv[1]))
    # Some copies of the schema keep the log's own schema under
    # definitions/Root, leaving the top level empty: validate against it, not
    # against a schema that accepts anything.
    if "properties" not in schema and "Root" in schema.get("definitions", {}):
        schema = dict(schema)
        schema["$ref"] = "#/definitions/Root"
    log = json.load(open(sys.argv[2]))
    validator = jsonschema.Draft7Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(log))
    if error is not None:
        path = "/".join(str(p) for p in error.absolute_path)
        print("invalid: %s: %s" % (path or "(root)", error.message))
        return 1
    for problem in code_scanning_errors(log):
        print("invalid: " + problem)
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
