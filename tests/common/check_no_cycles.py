#!/usr/bin/python3
"""check_no_cycles.py — no circle between the files of a part: from the symbols
each object defines and uses (nm), the graph "file A calls into file B" must
have no cycle (a file may call itself).  Prints each circle found.
Usage: check_no_cycles.py NM LIBRARY.a | OBJECT.o...
(the viewer's static library; the runtime's object library)"""
import subprocess
import sys


def graph(nm, files):
    defs, uses = {}, {}
    archive = len(files) == 1 and files[0].endswith(".a")
    out = subprocess.run([nm, "-o"] + files, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        # lib.a:file.o:ADDR T sym, or file.o:ADDR T sym for objects (U: used)
        parts = line.split(":", 2 if archive else 1)
        if len(parts) < (3 if archive else 2):
            continue
        obj, rest = (parts[1], parts[2].split()) if archive else (parts[0].rsplit("/", 1)[-1], parts[1].split())
        if len(rest) < 2:
            continue
        kind, sym = rest[-2], rest[-1]
        if kind == "U":
            uses.setdefault(obj, set()).add(sym)
        elif kind in "TDRB":   # functions and data with external linkage
            defs[sym] = obj
    edges = {o: set() for o in set(defs.values()) | set(uses)}
    for obj, syms in uses.items():
        for s in syms:
            if s in defs and defs[s] != obj:
                edges[obj].add(defs[s])
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    edges = graph(sys.argv[1], sys.argv[2:])
    found = cycles(edges)
    for c in found:
        print("circle between: " + ", ".join(c))
        for a in c:
            print("  %s -> %s" % (a, ", ".join(sorted(b for b in edges[a] if b in c))))
    print("%d files, %d calls between files, %s" % (len(edges), sum(len(e) for e in edges.values()),
                                                    "no circle" if not found else "%d circle(s)" % len(found)))
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
