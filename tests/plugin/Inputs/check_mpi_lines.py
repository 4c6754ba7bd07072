#!/usr/bin/python3
"""check_mpi_lines.py REPORT SOURCE OPERATION: every MPI vertex of report.json
has a source line (none reads line 0), the vertices of OPERATION (MPI_Send)
are exactly the lines of SOURCE that call it, and neither the time summary
nor a root cause names a location at line 0 (tests/plugin/merged_calls.test)."""
import json
import re
import sys

report, source, op = sys.argv[1:4]
r = json.load(open(report))
want = sorted(i + 1 for i, l in enumerate(open(source))
              if re.match(r"^\s+call\s+%s\s*\(" % re.escape(op), l, re.I))
bad = []
got = sorted({v["line"] for v in r["vertices"] if v["kind"] == "MPI" and v["name"] == op})
if got != want:
    bad.append("%s vertices at lines %s, want the source's %s" % (op, got, want))
for v in r["vertices"]:
    if v["kind"] == "MPI" and not v.get("line"):
        bad.append("MPI vertex %s (%s) has line 0" % (v["name"], v.get("function")))
ts = r.get("time_summary") or {}
for t in ts.get("top_vertices", []):
    if t.get("file") and not t.get("line"):
        bad.append("time summary names %s at line 0" % t.get("label"))
if re.search(r"\.f:0\b", ts.get("text", "")):
    bad.append("time summary text names line 0: %s" % ts["text"])
for c in r.get("root_causes", []) + r.get("candidates", []):
    if re.search(r":0\b", c.get("location") or ""):
        bad.append("cause located at line 0: %s" % c["location"])
for b in bad:
    print("FAIL: " + b)
if bad:
    sys.exit(1)
print("PASS: %d %s call sites at lines %s, no MPI vertex at line 0" % (len(got), op, got))
