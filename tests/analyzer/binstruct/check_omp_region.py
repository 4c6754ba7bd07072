#!/usr/bin/python3
"""check_omp_region.py — an OpenMP region's outlined body in the structure
recovered from machine code (docs/binstruct.md "OpenMP regions").

omp_region.c built with mpicc -O2 -g -fopenmp (gcc): main calls
GOMP_parallel at the pragma's line 14; the recovered PSG has a CALL there
whose callee is the outlined body main._omp_fn.0, and that body is a
function of the binary (nested in main's DWARF) with the region's loops at
lines 15-17 in omp_region.c.  Exit 0 pass, 1 fail, 77 skip.
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 3:
        print("usage: check_omp_region.py BS_DUMP PROGRAM", file=sys.stderr)
        return 2
    bs_dump, prog = sys.argv[1:]
    p = subprocess.run([bs_dump, prog], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        print("FAIL: bs_dump exited %d: %s" % (p.returncode, p.stderr))
        return 1
    lines = p.stdout.splitlines()
    fails = []
    # the fork call in main, in the iteration loop, names the outlined body
    call = [l for l in lines if l.strip().startswith("CALL main omp_region.c:14-14") and "callee main._omp_fn.0" in l]
    if len(call) != 1:
        fails.append("no CALL at omp_region.c:14 to main._omp_fn.0 in main")
    # the outlined body is a function with the region's loop lines
    try:
        k = next(i for i, l in enumerate(lines) if l.startswith("FUNCTION main._omp_fn.0 omp_region.c:"))
    except StopIteration:
        fails.append("no FUNCTION main._omp_fn.0 in omp_region.c")
        k = None
    if k is not None:
        body = []
        for l in lines[k + 1:]:
            if not l.startswith(" "):
                break
            body.append(l.strip())
        loops = []
        for l in body:
            m = re.match(r"LOOP main\._omp_fn\.0 omp_region\.c:(\d+)-(\d+) depth (\d+)", l)
            if l.startswith("LOOP"):
                loops.append((int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else l)
        # the region's nest (gcc's i loop reads as 16-17: its `for` line has
        # no code of its own once the schedule has split the iterations), and
        # at most the reduction's compare-and-swap retry loop on the pragma's line
        nest = [x for x in loops if isinstance(x, tuple) and 15 <= x[0] and x[1] == 17]
        if [x[2] for x in nest] != [0, 1]:
            fails.append("the outlined body's loops are %s, want a loop nest of depth 2 in lines 15-17" % loops)
        if any(not isinstance(x, tuple) or not (14 <= x[0] <= x[1] <= 17) for x in loops):
            fails.append("a loop of the outlined body outside lines 14-17: %s" % loops)
    for f in fails:
        print("FAIL: " + f)
    if fails:
        print("bs_dump printed:\n" + p.stdout)
        return 1
    print("PASS: main._omp_fn.0 recovered under the call at omp_region.c:14 with its loop 15-17")
    return 0


if __name__ == "__main__":
    sys.exit(main())
