#!/usr/bin/python3
"""check_seam.py — the analyzer core reads a run's per-rank data through one
seam (analyzer/ppg/run_source.h) and knows nothing of the parallel analyzer, a
source of its own under analyzer/par/.  Fails when a core file (every room of
analyzer/ but par/, and not main.c, the program that starts the parallel
analyzer) includes a header of par/ or names, outside comments and strings, a
symbol of it (an_par_*, par_*) or a run's former `remote` flag; and when the
includes of the analyzer's files (every room, par/ and binstruct/ included)
make a circle (tests/common/check_no_cycles.py's graph: a header is its .c
file's).
Usage: check_seam.py ANALYZER_DIR"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import check_no_cycles  # noqa: E402  (the include graph and its circles)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYMBOL = re.compile(r"\b(an_par_\w+|par_\w+)|->\s*remote\b")
COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def source_dirs(root):
    """The analyzer's folders: its top and every room below it, sorted."""
    return [d for d, _, _ in sorted(os.walk(root))]


def core_files(root):
    par = os.path.join(root, "par")
    for d in source_dirs(root):
        if d == par or d.startswith(par + os.sep):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h", ".def")) and not (d == root and f == "main.c"):
                yield os.path.join(d, f)


def main():
    if len(sys.argv) != 2:
        print(__doc__.rsplit("Usage: ", 1)[1].strip(), file=sys.stderr)
        sys.exit(2)
    root = sys.argv[1]
    par = set(f for f in os.listdir(os.path.join(root, "par")) if f.endswith((".c", ".h")))
    bad = 0
    for path in core_files(root):
        with open(path, errors="replace") as fp:
            text = fp.read()
        rel = os.path.relpath(path, root)
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            if name.startswith("par/") or os.path.basename(name) in par:
                print("%s includes %s of the parallel analyzer (par/)" % (rel, name))
                bad = 1
        code = COMMENT_OR_STRING.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        for n, line in enumerate(code.split("\n"), 1):
            for m in SYMBOL.finditer(line):
                print("%s:%d names %s: ask the run's source (run_source.h)" % (rel, n, m.group(0)))
                bad = 1
    dirs = source_dirs(root)
    edges = check_no_cycles.include_edges(dirs)
    for a, bs in list(edges.items()):
        for b in bs:
            edges.setdefault(b, set())
    found = check_no_cycles.cycles(edges)
    for c in found:
        print("include circle between: " + ", ".join(c))
        bad = 1
    print("%d analyzer files, %d includes between them, %s" % (
        len(edges), sum(len(e) for e in edges.values()), "seam kept" if not bad else "seam broken"))
    sys.exit(bad)


if __name__ == "__main__":
    main()
