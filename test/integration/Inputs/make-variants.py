"""Turns the one finding of verify-snippets.cpp into the cases the verifier
must tell apart: the real fix, a deliberately wrong fix, a fix that does not
compile, snippets that hang, crash and throw, and one that cannot be bound."""
import copy
import json
import sys

doc = json.load(open(sys.argv[1]))
(real,) = doc["findings"]
before, after = real["code"]["before"], real["code"]["after"]
assert "to(device)" in before and "torch::device(device)" in after


def variant(**code):
    f = copy.deepcopy(real)
    f["code"].update(code)
    return f


made = "  auto n = torch::randn({128, 128});\n"
doc["findings"] = [
    real,
    variant(after=after.replace("));", ")) * 2;")),
    variant(after="  auto n = torch::no_such_factory({128, 128});\n"),
    variant(before=made + "  while (true)\n"
            "    std::this_thread::sleep_for(std::chrono::milliseconds(50));\n"),
    variant(before=made + "  std::abort();\n"),
    variant(before="  auto n = torch::randn({128, 128}).view({3, 7});\n"),
    variant(free_variables=real["code"]["free_variables"] +
            [{"name": "scale", "type": "at::Tensor"}]),
]
json.dump(doc, open(sys.argv[2], "w"), indent=1)
