#!/usr/bin/env python3
"""compare-tensor-props.py BEFORE AFTER: each line is `name key=value ...`.
dtype, requires_grad, the device type and the sizes must be unchanged by the fix;
is_leaf may only go from 0 to 1 (the device-direct tensor is a leaf again)."""
import sys


def read(path):
    props = {}
    with open(path) as f:
        for line in f:
            name, *pairs = line.split()
            props[name] = dict(p.split("=", 1) for p in pairs)
    return props


before, after = read(sys.argv[1]), read(sys.argv[2])
if before.keys() != after.keys() or not before:
    sys.exit("different tensors: %s vs %s" % (sorted(before), sorted(after)))
for name in before:
    b, a = before[name], after[name]
    for key in ("dtype", "requires_grad", "device_type", "sizes"):
        if b[key] != a[key]:
            sys.exit("%s: %s changed from %s to %s" % (name, key, b[key], a[key]))
    if (b["is_leaf"], a["is_leaf"]) not in (("0", "0"), ("1", "1"), ("0", "1")):
        sys.exit("%s: is_leaf went from %s to %s" % (name, b["is_leaf"], a["is_leaf"]))
    print("%s: dtype=%s requires_grad=%s is_leaf %s -> %s" %
          (name, a["dtype"], a["requires_grad"], b["is_leaf"], a["is_leaf"]))
