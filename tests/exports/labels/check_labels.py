#!/usr/bin/python3
"""check_labels.py — extrap.jsonl and caliper/scalana-<P>p.json name every vertex alike.

One report directory (--export DIR, as the analyzer wrote it, or --render
REPORT_JSON --view SCALANA_VIEW: both exports written by scalana-view into a
scratch directory) holds report.json, extrap.jsonl and caliper/.  Checks, for
every vertex of report.json (docs/viewer.md, "extrap.jsonl", call paths):

- extrap.jsonl has one call path per vertex, in pre-order of the vertex tree;
- in every caliper file, the node of the vertex (column scalana.vertex) has the
  label path (its labels from its root) that is the vertex's extrap call path
  with the levels of the ancestors not measured at that count left out (the
  caliper file hangs such a vertex under its nearest measured ancestor), so the
  same vertex has the same label in both exports and at every count;
- each vertex has one label across all caliper files (stable across counts);
- labels are unique among siblings in each export;
- every --expect-path PATH (a call path, "->"-joined labels) is in extrap.jsonl
  and, where its vertex is measured at a count with a caliper file, in one;
- with --repeated, some siblings share a name in report.json (so the test covers
  the name@line rule), and those siblings' labels are distinct in both exports;
- when hatchet imports (SCALANA_HATCHET_PYTHONPATH, colon-separated, or the
  path): GraphFrame.from_caliper reads each caliper file into the same name
  path per vertex.

Exit status: 0 pass, 1 fail.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "extrap"))
from check_extrap import preorder, render_exports  # noqa: E402  (one rendering and tree walk for both checkers)


def log(msg):
    print(msg, flush=True)


def extrap_paths(path):
    order, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            cp = json.loads(line)["callpath"]
            if cp not in seen:
                seen.add(cp)
                order.append(cp)
    return order


def caliper_paths(path):
    """{vertex index: [labels from the root]} of one caliper file, and the sibling clashes."""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    nodes, cols = d["nodes"], d["columns"]
    ci = {c: k for k, c in enumerate(cols)}
    out, clashes, seen = {}, [], {}
    for k, n in enumerate(nodes):
        if n["column"] != "path":
            continue
        key = (n.get("parent"), n["label"])
        if key in seen:
            clashes.append("nodes %d and %d both %r under node %r" % (seen[key], k, n["label"], n.get("parent")))
        seen[key] = k
    for row in d["data"]:
        nid = row[ci["path"]]
        v = int(nodes[row[ci["scalana.vertex"]]]["label"])
        labels, k = [], nid
        while k is not None:
            labels.append(nodes[k]["label"])
            k = nodes[k].get("parent")
        out[v] = labels[::-1]
    return out, clashes


def measured_at(vertex):
    return {m.get("processes") for m in vertex.get("metrics") or []}


def import_hatchet():
    """hatchet from SCALANA_HATCHET_PYTHONPATH (colon-separated) or the path, or None."""
    for p in reversed([x for x in os.environ.get("SCALANA_HATCHET_PYTHONPATH", "").split(":") if x]):
        sys.path.insert(0, p)
    try:
        import hatchet
        return hatchet
    except ImportError as e:
        log("(b) Hatchet: not importable (%s); set SCALANA_HATCHET_PYTHONPATH to run it" % e)
        return None


def hatchet_paths(ht, path):
    """{vertex index: [frame names from the root]} as Hatchet reads the file."""
    gf = ht.GraphFrame.from_caliper(path)
    df = gf.dataframe.reset_index()
    up = {}   # Hatchet's reader links children only: parents from the graph's walk
    for node in gf.graph.traverse():
        for c in node.children:
            up[c] = node
    out = {}
    for node, vx in zip(df["node"], df["scalana.vertex"]):
        names, n = [], node
        while n is not None:
            names.append(n.frame["name"])
            n = up.get(n)
        out[int(vx)] = names[::-1]
    return out


def check(d, expect_paths, repeated, ht=None):
    bad = []
    with open(os.path.join(d, "report.json"), encoding="utf-8") as f:
        report = json.load(f)
    vertices = report.get("vertices") or []
    pre, _, parent = preorder(vertices)
    order = extrap_paths(os.path.join(d, "extrap.jsonl"))
    if len(order) != len(pre):
        return ["extrap.jsonl has %d call paths, report.json %d vertices" % (len(order), len(pre))]
    xpath = {v: cp.split("->") for v, cp in zip(pre, order)}
    files = sorted(glob.glob(os.path.join(d, "caliper", "scalana-*p.json")))
    if not files:
        bad.append("no caliper/scalana-<P>p.json in %s" % d)
    label_of, cali_all, compared, hatchet_files = {}, set(), 0, [0]
    for path in files:
        p = int(os.path.basename(path)[len("scalana-"):-len("p.json")])
        cpaths, clashes = caliper_paths(path)
        bad += ["%s: %s" % (os.path.basename(path), c) for c in clashes]
        if ht:   # what Hatchet makes of the file: the same name paths
            hpaths = hatchet_paths(ht, path)
            if hpaths != cpaths:
                diff = sorted(v for v in set(hpaths) | set(cpaths) if hpaths.get(v) != cpaths.get(v))
                bad.append("%s: Hatchet's name paths differ from the file's for vertices %s (e.g. %s vs %s)"
                           % (os.path.basename(path), diff[:5], hpaths.get(diff[0]), cpaths.get(diff[0])))
            hatchet_files[0] += 1
        for v, labels in cpaths.items():
            chain, a = [], v
            while a is not None:
                chain.append(a)
                a = parent.get(a)
            chain.reverse()
            want = [xpath[v][k] for k, a in enumerate(chain) if p in measured_at(vertices[a])]
            compared += 1
            if labels != want:
                bad.append("%s: vertex %d %r: label path %s, extrap.jsonl's call path %s (measured levels %s)"
                           % (os.path.basename(path), v, vertices[v].get("name"), "->".join(labels),
                              "->".join(xpath[v]), "->".join(want)))
            if label_of.setdefault(v, labels[-1]) != labels[-1]:
                bad.append("vertex %d labelled %r in one caliper file and %r in %s"
                           % (v, label_of[v], labels[-1], os.path.basename(path)))
            cali_all.add("->".join(labels))
    sib = {}
    for v in pre:
        key = (parent.get(v), xpath[v][-1])
        if key in sib:
            bad.append("extrap.jsonl: vertices %d and %d both %r under vertex %r" % (sib[key], v, key[1], key[0]))
        sib[key] = v
    counts = {int(os.path.basename(f)[len("scalana-"):-len("p.json")]) for f in files}
    vertex_of = {cp: v for v, cp in zip(pre, order)}
    for cp in expect_paths:
        if cp not in order:
            bad.append("expected call path %r not in extrap.jsonl" % cp)
        elif measured_at(vertices[vertex_of[cp]]) & counts and cp not in cali_all:
            bad.append("expected label path %r in no caliper file" % cp)
    groups = {}
    for v in pre:
        groups.setdefault((parent.get(v), vertices[v].get("name")), []).append(v)
    rep = [g for g in groups.values() if len(g) > 1]
    if repeated and not rep:
        bad.append("--repeated: no siblings share a name in report.json")
    for g in rep:
        names = [xpath[v][-1] for v in g]
        log("  repeated %r under vertex %r: extrap %s, caliper %s" % (
            vertices[g[0]].get("name"), parent.get(g[0]), names, [label_of.get(v, "-") for v in g]))
    log("  %d vertices, %d caliper files, %d (vertex, file) label paths compared, %d repeated sibling names%s"
        % (len(pre), len(files), compared, len(rep),
           "; Hatchet read %d files with the same name paths" % hatchet_files[0] if ht else ""))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--export", action="append", default=[], metavar="DIR")
    ap.add_argument("--render", action="append", default=[], metavar="REPORT_JSON")
    ap.add_argument("--view", help="scalana-view, for --render")
    ap.add_argument("--expect-path", action="append", default=[], metavar="CALLPATH")
    ap.add_argument("--repeated", action="store_true", help="report.json must repeat a name among siblings")
    args = ap.parse_args()
    if not args.export and not args.render:
        ap.error("give --export DIR or --render REPORT_JSON")
    if args.render and not args.view:
        ap.error("--render needs --view")
    scratch = tempfile.mkdtemp(prefix="check_labels.")
    rendered = render_exports(args.view, args.render, scratch)
    if rendered is None:
        return 1
    dirs = list(args.export) + rendered
    ht = import_hatchet()
    failed = 0
    for d in dirs:
        log("== %s" % d)
        for name in ("report.json", "extrap.jsonl"):
            if not os.path.isfile(os.path.join(d, name)):
                log("FAIL: %s/%s is missing (the fixture that writes it did not run?)" % (d, name))
                return 1
        bad = check(d, args.expect_path, args.repeated, ht)
        for b in bad[:50]:
            log("  FAIL: " + b)
        failed += bool(bad)
    shutil.rmtree(scratch, ignore_errors=True)
    log("%s: %d of %d report directories" % ("FAIL" if failed else "PASS", len(dirs) - failed, len(dirs)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
