#!/usr/bin/python3
"""check_rooms.py — the analyzer's rooms (its sub-folders: models, core, read,
binstruct, ppg, metrics, detect, report, par; main.c alone on top) depend on
each other without a circle.  A room depends on another when one of its files
includes a header of the other (#include "ppg/ppg.h", or a header found
beside the including file), and, given NM and the analyzer's objects, when
one of its objects uses a symbol another room's object defines
(tests/common/check_no_cycles.py's nm graph).  Prints the room graph, each
circle found and the files behind each of its edges; exits 1 on a circle.
Usage: check_rooms.py ANALYZER_DIR [NM OBJECT.o|LIBRARY.a...]"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import check_no_cycles  # noqa: E402  (the nm graph and Tarjan's circles)

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(rel):
    """The room of a path relative to the analyzer: its first folder; a file
    at the top (main.c) is the room "main"."""
    return rel.split("/", 1)[0] if "/" in rel else "main"


def files_of(root):
    """Path relative to root of every .c and .h of the analyzer."""
    out = []
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            if f.endswith((".c", ".h", ".def")):
                out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def include_edges(root, files):
    """(room, room) -> set of "file -> header" from the includes."""
    edges = {}
    known = set(files)
    for rel in files:
        with open(os.path.join(root, rel), errors="replace") as fp:
            text = fp.read()
        for m in INCLUDE.finditer(text):
            name = m.group(1)
            beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
            target = beside if beside in known else name if name in known else None
            if target is None:
                continue  # a header of another part (scalana/, common/, viewer/)
            a, b = room_of(rel), room_of(target)
            if a != b:
                edges.setdefault((a, b), set()).add("%s -> %s" % (rel, target))
    return edges


def symbol_edges(nm, objects, files):
    """(room, room) -> set of "file -> file" from the objects' symbols."""
    by_name = {os.path.basename(f): f for f in files if f.endswith(".c")}
    edges = {}
    for a, bs in check_no_cycles.graph(nm, objects).items():
        for b in bs:
            fa, fb = by_name.get(a), by_name.get(b)
            if fa is None or fb is None:
                continue
            ra, rb = room_of(fa), room_of(fb)
            if ra != rb:
                edges.setdefault((ra, rb), set()).add("%s calls %s" % (fa, fb))
    return edges


def main():
    if len(sys.argv) < 2 or len(sys.argv) == 3:
        print(__doc__.rsplit("Usage: ", 1)[1].strip(), file=sys.stderr)
        sys.exit(2)
    root = sys.argv[1]
    files = files_of(root)
    edges = include_edges(root, files)
    if len(sys.argv) > 3:
        for k, v in symbol_edges(sys.argv[2], sys.argv[3:], files).items():
            edges.setdefault(k, set()).update(v)
    graph = {room_of(f): set() for f in files}
    for a, b in edges:
        graph[a].add(b)
    for a in sorted(graph):
        print("%-10s -> %s" % (a, ", ".join(sorted(graph[a])) or "(nothing)"))
    found = check_no_cycles.cycles(graph)
    for c in found:
        print("room circle between: " + ", ".join(c))
        for a in c:
            for b in sorted(graph[a]):
                if b in c:
                    for why in sorted(edges[(a, b)])[:5]:
                        print("  %s -> %s: %s" % (a, b, why))
    print("%d rooms, %d dependencies between them, %s" % (
        len(graph), sum(len(e) for e in graph.values()), "no circle" if not found else "%d circle(s)" % len(found)))
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
