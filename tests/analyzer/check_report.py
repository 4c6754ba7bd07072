#!/usr/bin/python3
"""check_report.py REPORT CATEGORY FUNCTION PROCESSES — checks the top root
cause of a report.json against the planted answer ('none': no root cause at
all; '-' for FUNCTION/PROCESSES: not checked) and the schema's required keys."""
import json
import sys

rep = json.load(open(sys.argv[1]))
try:
    import jsonschema
    import os
    schema = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "..", "..", "docs", "report.schema.json")))
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(rep))
    assert not errors, "schema: " + "; ".join("/%s: %s" % ("/".join(map(str, e.path)), e.message[:200])
                                               for e in errors[:5])
except ImportError:
    pass
cat, fn, procs = sys.argv[2], sys.argv[3], sys.argv[4]
for k in ["schema_version", "tool", "program", "scaling", "runs", "root_causes", "vertices", "data_quality"]:
    assert k in rep, "missing " + k
for i, rc in enumerate(rep["root_causes"]):
    assert rc["rank"] == i + 1
    for k in ["category", "file", "line", "last_line", "function", "vertex", "cost_seconds",
              "cost_percent", "processes", "evidence", "path"]:
        assert k in rc, "root cause lacks " + k
    if i:
        assert rc["cost_seconds"] <= rep["root_causes"][i - 1]["cost_seconds"]
causes = rep["root_causes"]
desc = ["%s %s:%d %s %.3gs %s" % (c["category"], c["function"], c["line"], c["processes"][:8],
                                  c["cost_seconds"], c["evidence"][:200]) for c in causes]
if cat == "none":
    assert not causes, "expected no root cause, got:\n" + "\n".join(desc)
    print("ok: no root cause")
    sys.exit(0)
assert causes, "expected %s, got no root cause" % cat
top = causes[0]
assert top["category"] == cat, "expected %s, got:\n%s" % (cat, "\n".join(desc))
if fn != "-":
    assert top["function"] == fn, "expected function %s, got:\n%s" % (fn, "\n".join(desc))
if procs != "-":
    want = [int(x) for x in procs.split(",")]
    assert all(p in top["processes"] for p in want), "expected processes %s, got %s" % (want, top["processes"])
print("ok:", desc[0])
