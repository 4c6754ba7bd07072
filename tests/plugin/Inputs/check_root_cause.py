#!/usr/bin/python3
"""check_root_cause.py REPORT.JSON CATEGORY FUNCTION FIRST LAST PROCESSES

Checks that root cause #1 of scalana-analyze's report.json has CATEGORY, is in
FUNCTION (its display name), lies inside source lines FIRST..LAST (the planted
loop) and names exactly the processes PROCESSES (comma list of world ranks).
Prints what it found; exit status 1 on any mismatch."""
import json
import sys


def main():
    path, category, function, first, last, procs = sys.argv[1:7]
    first, last = int(first), int(last)
    want = sorted(int(p) for p in procs.split(","))
    with open(path) as f:
        report = json.load(f)
    causes = report.get("root_causes") or []
    if not causes:
        print(f"{path}: no root cause")
        return 1
    c = causes[0]
    got = sorted(c.get("processes") or [])
    print(f"#1 {c['category']} {c['function']} {c['line']}-{c['last_line']} processes {got}")
    bad = []
    if c["category"] != category:
        bad.append(f"category {c['category']}, want {category}")
    if c["function"] != function:
        bad.append(f"function {c['function']}, want {function}")
    if not (first <= c["line"] <= c["last_line"] <= last):
        bad.append(f"lines {c['line']}-{c['last_line']} not inside the planted loop {first}-{last}")
    if got != want:
        bad.append(f"processes {got}, want {want}")
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
