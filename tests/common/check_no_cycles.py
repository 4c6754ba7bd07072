#!/usr/bin/python3
"""check_no_cycles.py — no circle between the files of a part: from the symbols
each object defines and uses (nm), the graph "file A calls into file B" must
have no cycle (a file may call itself).  With --sources DIR the graph also has
the includes of the part's own files: "A includes B.h" is an edge A -> B.c
when DIR has B.c (a header is its .c file's), else A -> B.h, a header of
shared declarations with edges of its own includes; so is a header given with
--public NAME, the part's interface to the others (viewer.h).  DIR is read
with its sub-folders (the runtime's rooms, runtime/core/ ...): files are
named by their base names, which are unique in a part, and an include names
its file by base name whatever folder it spells ("core/rt_core.h").
With --rooms DIR the graph is one of rooms instead: each sub-folder of DIR is
a room, "a file of room A includes a file of room B" an edge A -> B, and no
circle is allowed between rooms (the runtime's rooms, docs/architecture.md).
Prints each circle found.
Usage: check_no_cycles.py NM [--sources DIR]... [--public NAME.h]... LIBRARY.a | OBJECT.o...
       check_no_cycles.py NM --rooms DIR
(the viewer's and the formats library's static libraries, the runtime's
object library and library; the common part's library)"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


PUBLIC = set()


def node(name, files):
    """The node of file name: a header with a .c of its name is that .c."""
    if name.endswith(".h") and name[:-2] + ".c" in files and name not in PUBLIC:
        return name[:-2] + ".c"
    return name


def source_files(dirs):
    """Base name -> path of the .c and .h files in dirs and their sub-folders."""
    files = {}
    for d in dirs:
        for root, subdirs, names in os.walk(d):
            subdirs.sort()
            for f in sorted(names):
                if f.endswith((".c", ".h")):
                    files.setdefault(f, os.path.join(root, f))
    return files


def includes(path):
    """Base names of the files path includes with #include "..."."""
    with open(path, errors="replace") as fp:
        return [os.path.basename(m.group(1)) for m in map(INCLUDE.match, fp) if m]


def include_edges(dirs):
    """Edges from the #include "..." lines of the .c and .h files in dirs."""
    files = source_files(dirs)
    edges = {}
    for f, path in files.items():
        src = node(f, files)
        for target in includes(path):
            if target in files and node(target, files) != src:
                edges.setdefault(src, set()).add(node(target, files))
    return edges


def room_edges(top):
    """Room -> rooms it includes from: each sub-folder of top is a room."""
    files = source_files([top])
    room = {f: os.path.relpath(p, top).split(os.sep)[0] for f, p in files.items()}
    edges = {r: set() for r in room.values()}
    for f, path in files.items():
        if os.path.dirname(path) == top:
            continue                    # a file beside the rooms belongs to none
        for target in includes(path):
            if target in files and room[target] != room[f] and os.path.dirname(files[target]) != top:
                edges[room[f]].add(room[target])
    return {r: e for r, e in edges.items() if os.path.isdir(os.path.join(top, r))}


def graph(nm, files):
    defs, uses = {}, {}
    out = subprocess.run([nm, "-o"] + files, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        # lib.a:file.o:ADDR T sym for an archive's members, file.o:ADDR T sym for
        # objects (U: used); several archives may be given
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[0].endswith(".a"):
            obj, rest = parts[1], parts[2].split()
        else:
            parts = line.split(":", 1)
            if len(parts) < 2:
                continue
            obj, rest = parts[0].rsplit("/", 1)[-1], parts[1].split()
        obj = obj[:-2] if obj.endswith((".c.o", ".cpp.o")) else obj
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
    args, dirs, rooms = sys.argv[2:], [], None
    while len(args) >= 2 and args[0] in ("--sources", "--public", "--rooms"):
        if args[0] == "--rooms":
            rooms = args[1]
        else:
            (dirs.append if args[0] == "--sources" else PUBLIC.add)(args[1])
        args = args[2:]
    if rooms:
        edges = room_edges(rooms)
        found = cycles(edges)
        for c in found:
            print("circle between rooms: " + ", ".join(c))
            for a in c:
                print("  %s -> %s" % (a, ", ".join(sorted(b for b in edges[a] if b in c))))
        for a in sorted(edges):
            print("%s uses %s" % (a, ", ".join(sorted(edges[a])) or "no other room"))
        print("%d rooms, %s" % (len(edges), "no circle" if not found else "%d circle(s)" % len(found)))
        sys.exit(1 if found else 0)
    edges = graph(sys.argv[1], args) if args else {}
    for a, bs in include_edges(dirs).items():
        edges.setdefault(a, set()).update(bs)
        for b in bs:
            edges.setdefault(b, set())
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
