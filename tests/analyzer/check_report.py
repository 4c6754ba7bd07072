#!/usr/bin/python3
"""check_report.py REPORT CATEGORY FUNCTION PROCESSES — checks the top root
cause of a report.json against the planted answer ('none': no root cause at
all; '-' for FUNCTION/PROCESSES: not checked) and the schema.  Environment:
EXPECT_COST (seconds, the saving of fixing it: cost_seconds within 25 %) and
EXPECT_EVIDENCE (a substring of its evidence); '-' or unset: not checked.
Every report: culprits are never listed as waiting processes, no root cause
lies under the minimum cost, and the processes of #1 are exactly PROCESSES
('even', 'odd': those ranks of the largest run)."""
import json
import os
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
    both = set(rc["processes"]) & set(rc.get("waiting_processes", []))
    assert not both, "processes %s are both culprits and waiting" % sorted(both)
    assert rc["cost_percent_of_base"] >= rep["thresholds"]["min_cost_percent"] - 1e-6, \
        "root cause under the threshold: %.3g %% < %g %%" % (rc["cost_percent_of_base"],
                                                             rep["thresholds"]["min_cost_percent"])
# the shown percentage is of the largest run's measured wall time, and the
# shown percentages of a list never add up to more than 100
wall = max(rep["runs"], key=lambda r: r["processes"])["wall_seconds"]
for lst in ("root_causes", "candidates"):
    left = 100.0
    for rc in rep.get(lst, []):
        want = min(left, 100.0 * rc["cost_seconds"] / wall)
        assert abs(rc["cost_percent"] - want) <= 0.01 + 1e-3 * want, \
            "%s #%d: cost_percent %.4g, expected %.4g (cost %.4g s of the %.4g s wall)" % (
                lst, rc["rank"], rc["cost_percent"], want, rc["cost_seconds"], wall)
        left -= rc["cost_percent"]
    assert left >= -0.01, "%s: shown percentages add up to %.4g %%" % (lst, 100 - left)
# the evidence sentence of a wait's computation uses the cause's own fields
import re
Pmax = max(r["processes"] for r in rep["runs"])
for rc in rep["root_causes"]:
    ev = rc["evidence"]
    here = [int(x) for x in re.findall(r"\(\S+ on the (\d+) process(?:es)? waiting there\)", ev)]
    for n in here:  # each symptom's waiting processes are among the cause's
        assert n <= len(rc["waiting_processes"]), \
            "evidence says %d waiting processes, waiting_processes has %d: %s" % (n, len(rc["waiting_processes"]), ev)
    if len(here) == 1:
        assert here[0] == len(rc["waiting_processes"]), \
            "evidence says %d waiting processes, waiting_processes has %d: %s" % (
                here[0], len(rc["waiting_processes"]), ev)
    m = re.search(r"on process (\d+) against a mean of [-0-9.e+]+ s on the (\d+) other process", ev)
    if m:
        assert int(m.group(1)) in rc["processes"], "evidence names process %s, not a culprit: %s" % (m.group(1), ev)
        assert int(m.group(2)) == Pmax - len(rc["processes"]), \
            "evidence compares with %s other processes, %d are not culprits: %s" % (
                m.group(2), Pmax - len(rc["processes"]), ev)
    m = re.search(r"(\d+) culprit process", ev)
    if m:
        assert int(m.group(1)) == len(rc["processes"]), \
            "evidence says %s culprits, processes has %d: %s" % (m.group(1), len(rc["processes"]), ev)
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
    P = max(r["processes"] for r in rep["runs"])
    if procs in ("even", "odd"):  # every even (odd) rank of the largest run
        want = list(range(0 if procs == "even" else 1, P, 2))
    else:
        want = [int(x) for x in procs.split(",")]
    assert sorted(top["processes"]) == sorted(want), "expected processes %s, got %s" % (want, top["processes"])
want_cost = os.environ.get("EXPECT_COST", "-")
if want_cost not in ("", "-"):
    c = float(want_cost)
    assert abs(top["cost_seconds"] - c) <= 0.25 * c, "cost %.4g s, the saving is %.4g s (25 %% allowed)" % (
        top["cost_seconds"], c)
want_ev = os.environ.get("EXPECT_EVIDENCE", "-")
if want_ev not in ("", "-"):
    assert want_ev in top["evidence"], "evidence lacks '%s': %s" % (want_ev, top["evidence"])
print("ok:", desc[0])
