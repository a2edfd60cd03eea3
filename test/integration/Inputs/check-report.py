"""Prints what the verifier's JSON report says, for FileCheck."""
import json
import sys

VERDICTS = {"faster", "same", "slower", "ambiguous", "changes-results",
            "not-applicable", "not-verifiable"}
report = json.load(open(sys.argv[1]))
print("format", report["format"], report["version"])
env = report["environment"]
print("environment", env["device"], env["libtorch"], "threads", env["threads"],
      "date", env["date"])
results = report["results"]
assert all(r["verdict"] in VERDICTS for r in results)
print("results", len(results), "each with a verdict")
for r in results:
    if "speedup" in r:
        print(r["check"], r["verdict"], r["kind"], "low>1.1", r["speedup"]["low"] > 1.1)
    if "difference" in r and "max_abs" in r["difference"]:
        print(r["check"], r["verdict"], r.get("kind"), "max_abs_diff<1e-4",
              r["difference"]["max_abs"] < 1e-4)
    if "difference" in r and "tolerance" in r["difference"]:
        print(r["check"], r["verdict"], r.get("kind"), "tolerance",
              r["difference"]["tolerance"], "within", r["difference"]["equal"])
