#!/usr/bin/python3
"""check_caliper.py — the Hatchet/Thicket export (REPORT_DIR/caliper/scalana-<P>p.json,
viewer/vw_caliper.c, docs/hatchet.md) of one or more analysed studies.

For every --report DIR (a scalana-analyze output directory holding report.json):

  (a) always, without Hatchet: the files are exactly one per process count of
      report.json's runs[], each in Caliper's json-split form as Hatchet's
      reader needs it (data/columns/column_metadata/nodes, rows as long as the
      columns, non-value cells pointing at nodes of their column, every path
      node's parent an earlier path node, sibling labels unique), one node per
      vertex measured at that count and none other, under the same ancestors as
      in report.json, one row per node and world rank 0..P-1, inclusive >=
      exclusive and inclusive = exclusive + the children's inclusive per rank,
      exclusive per rank = per_process_seconds, and the mean / max over the
      processes = time_mean_seconds / time_max_seconds and inclusive mean =
      inclusive_mean_seconds; metadata mpi.world.size = jobsize = P, units;
  (b) when hatchet and thicket import (SCALANA_HATCHET_PYTHONPATH, colon-separated,
      is put in front of sys.path; or they are already on the path): each file
      through hatchet.GraphFrame.from_caliper (graph size, metric names, index,
      values per rank), the study's directory through thicket.Thicket.from_caliper
      (one profile per count, metadata, the union call tree, values per count;
      a vertex absent at a count has no value there), the planted #1 root cause's
      node (--planted): its largest time is on one of the processes the report
      names, and the docs/hatchet.md example run as written.

Prints which of (a) and (b) ran.  Exit 0 pass, 1 fail, 77 skip (no report:
the e2e test that writes it was skipped).
"""

import argparse
import importlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import contextlib

SKIP = 77
NAME = re.compile(r"^scalana-([1-9][0-9]*)p\.json$")
EXCL, INCL = "sum#time.duration", "inclusive#sum#time.duration"


class Failure(Exception):
    pass


def labels_name(label, name):
    """label is a node label of name (docs/viewer.md, extrap.jsonl's call paths, the one rule
    of both exports): the name with "->" as "-_", control characters as spaces, "" as "?";
    bare, or followed by @line (and #id), or by #id alone (a clash with another label)."""
    base = "".join(" " if ord(ch) < 0x20 or ord(ch) == 0x7f else ch for ch in (name or "?").replace("->", "-_"))
    return label == base or label.startswith(base + "@") or label.startswith(base + "#")

def log(msg=""):
    print(msg, flush=True)


# report.json holds 6 significant digits (the analyzer's JSON_REAL_PRECISION(6)), while
# scalana-analyze hands the viewer its full-precision numbers: values agree to ~5e-6
def close(a, b, rel=2e-4, abs_=2e-6):
    return abs(a - b) <= abs_ + rel * max(abs(a), abs(b))


def need(cond, what):
    if not cond:
        raise Failure(what)


# ---- (a) the format's rules, without Hatchet ------------------------------------

def report_tree(report):
    verts = report["vertices"]
    parent = {v["id"]: v.get("parent") for v in verts}
    return verts, parent


def metrics_at(v, p):
    for m in v.get("metrics", []):
        if m.get("processes") == p:
            return m
    return None


def check_file(path, report, run):
    """Checks one file against the rules; returns a summary dict for (b)."""
    p = run["processes"]
    with open(path) as f:
        try:
            d = json.load(f)
        except ValueError as e:
            raise Failure("%s is not JSON: %s" % (path, e))
    for key in ("data", "columns", "column_metadata", "nodes"):
        need(isinstance(d.get(key), list), "%s: %s missing or not a list" % (path, key))
    cols, meta, nodes, data = d["columns"], d["column_metadata"], d["nodes"], d["data"]
    need(len(cols) == len(meta), "%s: %d columns but %d column_metadata" % (path, len(cols), len(meta)))
    need(len(set(cols)) == len(cols), "%s: duplicate column names" % path)
    for c in ("path", EXCL, INCL, "scalana.vertex"):
        need(c in cols, "%s: no column %s" % (path, c))
    per_process = "mpi.rank" in cols
    need(d.get("scalana.per_process") is per_process,
         "%s: scalana.per_process=%r but mpi.rank column %s" % (path, d.get("scalana.per_process"),
                                                               "present" if per_process else "absent"))
    ci = {c: i for i, c in enumerate(cols)}
    for c, want in (("path", False), (EXCL, True), (INCL, True), ("mpi.rank", True), ("scalana.vertex", False)):
        if c in ci:
            need(meta[ci[c]].get("is_value") is want, "%s: column %s has is_value %r, Hatchet needs %r"
                 % (path, c, meta[ci[c]].get("is_value"), want))
    # nodes: path nodes form a tree in order (Hatchet builds it in one pass)
    path_nodes = {}
    for i, n in enumerate(nodes):
        need(isinstance(n.get("label"), str) and isinstance(n.get("column"), str),
             "%s: node %d has no label/column" % (path, i))
        if n["column"] != "path":
            continue
        par = n.get("parent")
        if par is not None:
            need(isinstance(par, int) and 0 <= par < i and nodes[par]["column"] == "path",
                 "%s: node %d (%s): parent %r is not an earlier path node" % (path, i, n["label"], par))
        path_nodes[i] = n
    labels = {}
    for i, n in path_nodes.items():
        key = (n.get("parent"), n["label"])
        need(key not in labels, "%s: siblings %d and %d both labelled %r (Hatchet would merge them)"
             % (path, labels.get(key, -1), i, n["label"]))
        labels[key] = i
    # rows
    rows = {}
    for r in data:
        need(isinstance(r, list) and len(r) == len(cols), "%s: a row of %s cells for %d columns"
             % (path, len(r) if isinstance(r, list) else "?", len(cols)))
        for c, i in ci.items():
            if meta[i].get("is_value") is False:
                need(isinstance(r[i], int) and 0 <= r[i] < len(nodes) and nodes[r[i]]["column"] == c,
                     "%s: cell %r of column %s is not a node of that column" % (path, r[i], c))
            else:
                need(isinstance(r[i], (int, float)) and math.isfinite(r[i]), "%s: %s cell %r is not a number"
                     % (path, c, r[i]))
        nid, rank = r[ci["path"]], (r[ci["mpi.rank"]] if per_process else 0)
        need((nid, rank) not in rows, "%s: two rows for node %d rank %d" % (path, nid, rank))
        rows[(nid, rank)] = r
    ranks = range(p) if per_process else range(1)
    vertex_of = {}
    for nid in path_nodes:
        for q in ranks:
            need((nid, q) in rows, "%s: node %d (%s) has no row for rank %d" % (path, nid, path_nodes[nid]["label"], q))
        vertex_of[nid] = int(nodes[rows[(nid, 0)][ci["scalana.vertex"]]]["label"])
    need(len(rows) == len(path_nodes) * len(ranks), "%s: %d rows for %d nodes x %d ranks"
         % (path, len(rows), len(path_nodes), len(ranks)))
    # the tree is report.json's at this count
    verts, parent = report_tree(report)
    present = {v["id"] for v in verts if metrics_at(v, p)}
    node_of = {v: n for n, v in vertex_of.items()}
    need(set(node_of) == present and len(node_of) == len(vertex_of),
         "%s: nodes are vertices %s, report.json has %s at %d processes"
         % (path, sorted(set(node_of) - present)[:5] or "", sorted(present - set(node_of))[:5] or "", p))
    for nid, v in vertex_of.items():
        a = parent[v]
        while a is not None and a not in present:
            a = parent[a]
        want = node_of[a] if a is not None else None
        need(path_nodes[nid].get("parent") == want, "%s: vertex %d's node hangs under %r, report.json says %r"
             % (path, v, path_nodes[nid].get("parent"), want))
        need(labels_name(path_nodes[nid]["label"], verts[v]["name"]),
             "%s: node label %r for vertex %r" % (path, path_nodes[nid]["label"], verts[v]["name"]))
    # values
    children = {}
    for nid, n in path_nodes.items():
        children.setdefault(n.get("parent"), []).append(nid)
    missing = run.get("missing_ranks", 0) or 0
    for nid, v in vertex_of.items():
        m = metrics_at(verts[v], p)
        ex = [rows[(nid, q)][ci[EXCL]] for q in ranks]
        inc = [rows[(nid, q)][ci[INCL]] for q in ranks]
        for q in ranks:
            need(inc[q] >= ex[q] - 1e-9, "%s: vertex %d rank %d: inclusive %g < exclusive %g" % (path, v, q, inc[q], ex[q]))
            below = sum(rows[(c, q)][ci[INCL]] for c in children.get(nid, []))
            if per_process or "inclusive_mean_seconds" not in m:
                need(close(inc[q], ex[q] + below, 1e-6, 1e-9), "%s: vertex %d rank %d: inclusive %g != exclusive %g"
                     " + children %g" % (path, v, q, inc[q], ex[q], below))
        if per_process:
            pp = m["per_process_seconds"]
            for q in ranks:
                need(close(ex[q], pp[q], 1e-5, 1e-9), "%s: vertex %d rank %d: %g s, report.json per_process_seconds %g"
                     % (path, v, q, ex[q], pp[q]))
            n = p - missing
            need(close(sum(ex) / n, m["time_mean_seconds"]), "%s: vertex %d: mean %g s, report.json time_mean_seconds %g"
                 % (path, v, sum(ex) / n, m["time_mean_seconds"]))
            need(close(max(ex), m["time_max_seconds"]), "%s: vertex %d: max %g s, report.json time_max_seconds %g"
                 % (path, v, max(ex), m["time_max_seconds"]))
            if "inclusive_mean_seconds" in m:
                need(close(sum(inc) / n, m["inclusive_mean_seconds"], 1e-3, 1e-5),
                     "%s: vertex %d: inclusive mean %g s, report.json inclusive_mean_seconds %g"
                     % (path, v, sum(inc) / n, m["inclusive_mean_seconds"]))
            if "inclusive_max_seconds" in m:
                need(close(max(inc), m["inclusive_max_seconds"], 1e-3, 1e-5),
                     "%s: vertex %d: inclusive max %g s, report.json inclusive_max_seconds %g"
                     % (path, v, max(inc), m["inclusive_max_seconds"]))
        else:
            need(close(ex[0], m["time_mean_seconds"], 1e-5, 1e-9), "%s: vertex %d: %g s, time_mean_seconds %g"
                 % (path, v, ex[0], m["time_mean_seconds"]))
            if "inclusive_mean_seconds" in m:
                need(close(inc[0], m["inclusive_mean_seconds"], 1e-5, 1e-9), "%s: vertex %d: inclusive %g s, %g"
                     % (path, v, inc[0], m["inclusive_mean_seconds"]))
    # metadata
    need(d.get("mpi.world.size") == p and d.get("jobsize") == p, "%s: mpi.world.size/jobsize %r/%r, want %d"
         % (path, d.get("mpi.world.size"), d.get("jobsize"), p))
    need(d.get("scalana.time_unit") == "seconds", "%s: scalana.time_unit %r" % (path, d.get("scalana.time_unit")))
    need(d.get("scalana.rank") == "world", "%s: scalana.rank %r" % (path, d.get("scalana.rank")))
    exe = report.get("program", {}).get("executable", "")
    need(d.get("executablepath") == exe and d.get("executable") == os.path.basename(exe),
         "%s: executable %r / %r, report.json %r" % (path, d.get("executable"), d.get("executablepath"), exe))
    need(close(d.get("scalana.wall_seconds", -1), run.get("wall_seconds", 0), 1e-5, 1e-9), "%s: wall %r" % (path, d.get("scalana.wall_seconds")))
    for k, v in d.items():
        if k not in ("data", "columns", "column_metadata", "nodes"):
            need(isinstance(v, (str, int, float, bool)), "%s: metadata %s is not a scalar (Thicket's table needs one)" % (path, k))
    return {"path": path, "processes": p, "nodes": len(path_nodes), "per_process": per_process,
            "vertex_of": vertex_of, "has_launchdate": "launchdate" in d}


def parse_expect(items):
    """--expect NAME=P,P,...: {NAME: {P, ...}}"""
    out = {}
    for it in items:
        name, _, counts = it.partition("=")
        need(name and counts, "--expect wants NAME=P,P,..., got %r" % it)
        out[name] = {int(c) for c in counts.split(",")}
    return out


def check_expect(cdir, summaries, expect):
    """Each function NAME of --expect is a node of exactly the files of its counts
    (the call paths of the run at that count)."""
    for name, want in expect.items():
        got = set()
        for s in summaries:
            with open(s["path"]) as f:
                d = json.load(f)
            if any(n["column"] == "path" and n["label"].split("@")[0] == name for n in d["nodes"]):
                got.add(s["processes"])
        need(got == want, "%s: function %s is in the files of %s processes, expected %s"
             % (cdir, name, sorted(got), sorted(want)))
    if expect:
        log("(a) %s: call paths per count as expected: %s" % (cdir, "; ".join(
            "%s at %s" % (n, ",".join(str(p) for p in sorted(c))) for n, c in sorted(expect.items()))))


def check_study(report_dir, expect=None):
    rpath = os.path.join(report_dir, "report.json")
    with open(rpath) as f:
        report = json.load(f)
    cdir = os.path.join(report_dir, "caliper")
    need(os.path.isdir(cdir), "%s: no caliper/ directory next to report.json" % report_dir)
    runs = {r["processes"]: r for r in report["runs"]}
    files = sorted(os.listdir(cdir))
    for fn in files:
        need(NAME.match(fn), "%s: %s is not one of ours (Thicket reads every file there)" % (cdir, fn))
    got = sorted(int(NAME.match(fn).group(1)) for fn in files)
    need(got == sorted(runs), "%s: files for %s processes, report.json has runs at %s" % (cdir, got, sorted(runs)))
    out = []
    for p in sorted(runs):
        out.append(check_file(os.path.join(cdir, "scalana-%dp.json" % p), report, runs[p]))
    check_expect(cdir, out, expect or {})
    log("(a) %s: %d files (%s processes), %s nodes, per-process rows: %s; rules hold"
        % (cdir, len(out), ",".join(str(s["processes"]) for s in out), "/".join(str(s["nodes"]) for s in out),
           "/".join("yes" if s["per_process"] else "no" for s in out)))
    return report, out


# ---- (b) the real Hatchet and Thicket ------------------------------------------

def import_tools():
    extra = os.environ.get("SCALANA_HATCHET_PYTHONPATH", "")
    for p in reversed([x for x in extra.split(":") if x]):
        sys.path.insert(0, p)
    mods = []
    for name in ("hatchet", "thicket"):
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                mods.append(importlib.import_module(name))
        except ImportError as e:
            log("(b) %s: not importable (%s); set SCALANA_HATCHET_PYTHONPATH" % (name, e))
            mods.append(None)
    return mods[0], mods[1]


def node_by_vertex(df, vertex):
    sub = df[df["scalana.vertex"] == str(vertex)]
    nodes = set(sub.index.get_level_values("node"))
    need(len(nodes) == 1, "vertex %d: %d Hatchet nodes" % (vertex, len(nodes)))
    return sub, nodes.pop()


def check_hatchet(ht, report, summaries, planted):
    verts = report["vertices"]
    for s in summaries:
        gf = ht.GraphFrame.from_caliper(s["path"])
        p = s["processes"]
        need(len(gf.graph) == s["nodes"], "%s: Hatchet's graph has %d nodes, the file %d" % (s["path"], len(gf.graph), s["nodes"]))
        need(gf.exc_metrics == ["time"] and gf.inc_metrics == ["time (inc)"],
             "%s: Hatchet's metrics %r / %r" % (s["path"], gf.exc_metrics, gf.inc_metrics))
        want_index = ["node", "rank"] if s["per_process"] else ["node"]
        need(list(gf.dataframe.index.names) == want_index, "%s: index %r" % (s["path"], gf.dataframe.index.names))
        need(len(gf.dataframe) == s["nodes"] * (p if s["per_process"] else 1), "%s: %d rows" % (s["path"], len(gf.dataframe)))
        need(gf.metadata.get("mpi.world.size") == p, "%s: metadata %r" % (s["path"], gf.metadata.get("mpi.world.size")))
        df = gf.dataframe
        for v in s["vertex_of"].values():
            sub, node = node_by_vertex(df, v)
            m = metrics_at(verts[v], p)
            need(labels_name(node.frame["name"], verts[v]["name"]), "%s: node %r for vertex %r" % (s["path"], node.frame["name"], verts[v]["name"]))
            if s["per_process"]:
                t = sub.reset_index().set_index("rank")["time"]
                for q, x in enumerate(m["per_process_seconds"]):
                    need(close(float(t[q]), x, 1e-5, 1e-9), "%s: Hatchet: vertex %d rank %d time %g, report %g" % (s["path"], v, q, t[q], x))
        # Hatchet's own tree walk: a root's inclusive time is the sum of its subtree's
        for root in (gf.graph.roots if s["per_process"] else []):
            tot = 0.0
            for n in root.traverse():
                tot += float(df.loc[n]["time"].sum())
            need(close(float(df.loc[root]["time (inc)"].sum()), tot, 1e-6, 1e-9),
                 "%s: Hatchet: root %s inclusive %g, subtree sum %g" % (s["path"], root.frame["name"], df.loc[root]["time (inc)"].sum(), tot))
    biggest = summaries[-1]
    log("(b) Hatchet %s: %d files loaded with GraphFrame.from_caliper; largest (%d processes): %d nodes, %d rows, "
        "metrics %s / %s" % (ht.__version__, len(summaries), biggest["processes"], biggest["nodes"],
                             biggest["nodes"] * (biggest["processes"] if biggest["per_process"] else 1), "time", "time (inc)"))
    if planted and report["root_causes"]:
        rc = report["root_causes"][0]
        v, procs = rc["vertex"], rc.get("processes") or []
        gf = ht.GraphFrame.from_caliper(biggest["path"])
        sub, node = node_by_vertex(gf.dataframe, v)
        if biggest["per_process"]:
            t = sub.reset_index().set_index("rank")["time"]
            top = int(t.idxmax())
            need(not procs or top in procs, "planted cause %s (vertex %d): Hatchet's largest time is on rank %d (%g s), "
                 "the report names processes %s" % (rc.get("location"), v, top, t[top], procs))
            others = [float(t[q]) for q in t.index if q not in procs]
        having = [x for x in summaries if v in x["vertex_of"].values()]
        if rc.get("category") in ("growing_communication", "non_scalable_computation") and len(having) > 1:
            # what grows: the mean (a collective) or the total over processes (the
            # computation) of the cause's time, from the smallest count to the largest
            small = ht.GraphFrame.from_caliper(having[0]["path"])
            a, _ = node_by_vertex(small.dataframe, v)
            grow = rc["category"] == "growing_communication"
            x0 = float(a["time"].mean() if grow else a["time"].sum())
            x1 = float(sub["time"].mean() if grow else sub["time"].sum())
            need(x1 > x0, "planted cause %s (vertex %d): Hatchet's %s time %g s at %d processes is not above %g s at %d"
                 % (rc.get("location"), v, "mean" if grow else "total", x1, biggest["processes"], x0, having[0]["processes"]))
            log("(b) planted #1 cause %s %r: Hatchet's %s time grows from %.4g s at %d processes to %.4g s at %d"
                % (rc["category"], rc.get("location"), "mean" if grow else "total", x0, having[0]["processes"], x1,
                   biggest["processes"]))
        if biggest["per_process"] and procs and len(procs) < biggest["processes"]:
            log("(b) planted #1 cause %s %r: Hatchet node %r, largest time %.4g s on rank %d, one of %s (others' max %s)"
                % (rc["category"], rc.get("location"), node.frame["name"], t[top], top, procs,
                   "%.4g s" % max(others) if others else "none"))


def check_thicket(th, report, report_dir, summaries, expect=None):
    cdir = os.path.join(report_dir, "caliper")
    with contextlib.redirect_stderr(io.StringIO()):
        tk = th.Thicket.from_caliper(cdir, disable_tqdm=True)
    counts = sorted(s["processes"] for s in summaries)
    need(len(tk.profile) == len(summaries), "Thicket: %d profiles for %d files" % (len(tk.profile), len(summaries)))
    need(sorted(tk.metadata["mpi.world.size"].tolist()) == counts, "Thicket: mpi.world.size %r" % tk.metadata["mpi.world.size"].tolist())
    verts = report["vertices"]
    union = set()
    for s in summaries:
        union |= set(s["vertex_of"].values())
    need(len(tk.graph) == len(union), "Thicket: union call tree has %d nodes, the files %d distinct vertices" % (len(tk.graph), len(union)))
    tk.metadata_column_to_perfdata("mpi.world.size")
    df = tk.dataframe.reset_index()
    absent = 0
    for v in union:
        nodes = set(df[df["scalana.vertex"] == str(v)]["node"])
        need(len(nodes) == 1, "Thicket: vertex %d is %d nodes of the union call tree" % (v, len(nodes)))
        at_node = df[df["node"] == nodes.pop()]
        for s in summaries:
            p = s["processes"]
            m = metrics_at(verts[v], p)
            rows = at_node[at_node["mpi.world.size"] == p]
            if m is None:
                # not measured at p: Thicket's union has no value for it there
                absent += 1
                need(rows["time"].isna().all() and rows["time (inc)"].isna().all(),
                     "Thicket: vertex %d has values at %d processes, report.json has no metrics there" % (v, p))
                continue
            # (the union fills a smaller run's profile up to the largest rank count with NaN)
            rows = rows.dropna(subset=["time"])
            want = p if s["per_process"] else 1
            need(len(rows) == want and (not s["per_process"] or sorted(rows["rank"]) == list(range(p))),
                 "Thicket: vertex %d at %d processes: %d rows with a value, want %d" % (v, p, len(rows), want))
            n = p - missing_ranks(report, p) if s["per_process"] else 1
            need(close(float(rows["time"].sum()), m["time_mean_seconds"] * n, 1e-3, 1e-5),
                 "Thicket: vertex %d at %d processes: time sum %g s, report.json mean %g s" % (v, p, rows["time"].sum(), m["time_mean_seconds"]))
            if s["per_process"] and "inclusive_max_seconds" in m:
                need(close(float(rows["time (inc)"].max()), m["inclusive_max_seconds"], 1e-3, 1e-5),
                     "Thicket: vertex %d at %d processes: max inclusive %g s, report.json %g s"
                     % (v, p, rows["time (inc)"].max(), m["inclusive_max_seconds"]))
    for name, want in (expect or {}).items():
        rows = df[df["name"].str.split("@").str[0] == name]
        valued = set(rows.dropna(subset=["time"])["mpi.world.size"])
        need(valued == want, "Thicket: function %s has values at %s processes, expected %s" % (name, sorted(valued), sorted(want)))
    if expect:
        log("(b) Thicket: each --expect function has values at its counts only (NaN in the union elsewhere)")
    log("(b) Thicket %s: Thicket.from_caliper(%s): %d profiles (mpi.world.size %s), union call tree %d nodes, %d "
        "(vertex, count) pairs absent and left out; values per count match report.json"
        % (th.__version__, cdir, len(tk.profile), counts, len(tk.graph), absent))
    return tk


def missing_ranks(report, p):
    return sum(r.get("missing_ranks", 0) or 0 for r in report["runs"] if r["processes"] == p)


def docs_example(docs):
    """The Thicket example of docs/hatchet.md: the python block after the marker line."""
    with open(docs) as f:
        text = f.read()
    m = re.search(r"<!-- thicket-example -->\s*```python\n(.*?)```", text, re.S)
    need(m, "%s: no thicket example (marker <!-- thicket-example --> and a python block)" % docs)
    code = m.group(1)
    need(len([l for l in code.splitlines() if l.strip()]) <= 3, "%s: the example is over three lines" % docs)
    return code


def run_docs_example(docs, report_dir, report):
    code = docs_example(docs)
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.abspath(report_dir), os.path.join(tmp, "scalana-report"))
        env = dict(os.environ, PYTHONPATH=":".join([p for p in sys.path if p]))
        r = subprocess.run([sys.executable, "-c", code], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    need(r.returncode == 0, "the docs example failed (exit %d):\n%s" % (r.returncode, r.stderr[-3000:]))
    counts = sorted(x["processes"] for x in report["runs"])
    header = [l for l in r.stdout.splitlines() if "mpi.world.size" in l]
    need(header and all(str(p) in header[0] for p in counts), "the docs example printed no column per process count:\n%s" % r.stdout)
    main = [l for l in r.stdout.splitlines() if l.split()[:1] == ["main"]]
    need(main, "the docs example printed no row for main:\n%s" % r.stdout)
    # its row for main: the largest inclusive time over the processes at each count
    mains = [v for v in report["vertices"] if v["name"] == "main"]
    if len(mains) == 1:
        got = [float(x) for x in main[0].split()[1:]]
        want = [metrics_at(mains[0], p)["inclusive_max_seconds"] for p in counts]
        need(len(got) == len(want) and all(close(a, b, 1e-3, 1e-5) for a, b in zip(got, want)),
             "the docs example's main row %s, report.json inclusive_max_seconds %s" % (got, want))
    log("(b) docs/hatchet.md example ran; it printed:")
    for l in r.stdout.splitlines():
        log("    " + l)


# ---- rendering fixtures and the checker's own check ------------------------------

def render(view, report_json, workdir):
    """scalana-view on a copy of report_json in workdir/<name>; checks --no-caliper and
    that files of counts not in the report are removed, others' files kept."""
    name = os.path.splitext(os.path.basename(report_json))[0]
    out = os.path.join(workdir, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    shutil.copy(report_json, os.path.join(out, "report.json"))
    # --force: a hand-made report.json is not recognised as one of ours (its
    # text is not the analyzer's), and the directory is this test's scratch
    r = subprocess.run([view, "-q", "--force", "--no-caliper", os.path.join(out, "report.json")], capture_output=True, text=True)
    need(r.returncode == 0, "scalana-view --no-caliper %s: exit %d: %s" % (report_json, r.returncode, r.stderr))
    need(not os.path.exists(os.path.join(out, "caliper")), "scalana-view --no-caliper wrote %s/caliper" % out)
    # caliper/ cannot be made (a file of that name): a one-line error naming it, exit 1
    open(os.path.join(out, "caliper"), "w").close()
    r = subprocess.run([view, "-q", "--force", os.path.join(out, "report.json")], capture_output=True, text=True)
    with open(report_json) as f:
        has_runs = bool(json.load(f)["runs"])
    if has_runs:
        need(r.returncode == 1 and os.path.join(out, "caliper") in r.stderr and len(r.stderr.strip().splitlines()) == 1,
             "scalana-view with a file named caliper: exit %d, stderr %r (want 1 and one line naming it)"
             % (r.returncode, r.stderr))
    os.unlink(os.path.join(out, "caliper"))
    os.makedirs(os.path.join(out, "caliper"))
    for fn in ("scalana-9999p.json", "mine.txt"):
        with open(os.path.join(out, "caliper", fn), "w") as f:
            f.write("{}")
    r = subprocess.run([view, "-q", "--force", os.path.join(out, "report.json")], capture_output=True, text=True)
    need(r.returncode == 0, "scalana-view %s: exit %d: %s" % (report_json, r.returncode, r.stderr))
    left = sorted(os.listdir(os.path.join(out, "caliper")))
    need("scalana-9999p.json" not in left, "scalana-view left a stale scalana-9999p.json in %s/caliper" % out)
    need("mine.txt" in left, "scalana-view removed a file not of its own (mine.txt) from %s/caliper" % out)
    os.unlink(os.path.join(out, "caliper", "mine.txt"))
    with open(report_json) as f:
        counts = sorted(x["processes"] for x in json.load(f)["runs"])
    log("render: scalana-view %s -> %s/caliper: %s; --no-caliper wrote nothing; stale count removed, "
        "other file kept; a file in caliper/'s place is an error naming it" % (os.path.basename(report_json), out, ", ".join(sorted(os.listdir(os.path.join(out, "caliper")))) or "(none)"))
    return out, counts


def self_test(study, workdir):
    """The rules of (a) must reject a broken file: each mutation of a good study's
    largest file has to fail check_study."""
    with open(os.path.join(study, "report.json")) as f:
        report = json.load(f)
    p = max(r["processes"] for r in report["runs"])
    src = os.path.join(study, "caliper", "scalana-%dp.json" % p)
    with open(src) as f:
        good = json.load(f)
    cols = good["columns"]
    ci = {c: i for i, c in enumerate(cols)}
    pp = "mpi.rank" in ci

    def drop_row(d):
        d["data"].pop(len(d["data"]) // 2)

    def bad_parent(d):
        d["nodes"][1]["parent"] = 10 ** 6

    def later_parent(d):
        d["nodes"][1]["parent"] = len([n for n in d["nodes"] if n["column"] == "path"]) - 1

    def excl_gt_incl(d):
        r = d["data"][-1]
        r[ci[EXCL]] = r[ci[INCL]] + 1.0

    def wrong_value(d):
        r = d["data"][len(d["data"]) // 2]
        r[ci[EXCL]] += 0.5
        r[ci[INCL]] += 0.5

    def wrong_count(d):
        d["mpi.world.size"] = p + 1

    def sibling_clash(d):
        kids = [i for i, n in enumerate(d["nodes"]) if n["column"] == "path" and n.get("parent") == 0]
        if len(kids) > 1:
            d["nodes"][kids[1]]["label"] = d["nodes"][kids[0]]["label"]

    def no_is_value(d):
        d["column_metadata"][ci[EXCL]]["is_value"] = False

    def drop_node(d):
        last = max(i for i, n in enumerate(d["nodes"]) if n["column"] == "path")
        d["data"] = [r for r in d["data"] if r[0] != last]
        d["nodes"][last]["column"] = "unused"

    def rank_out_of_range(d):
        d["data"][0][ci["mpi.rank"]] = p

    mutations = [drop_row, bad_parent, later_parent, excl_gt_incl, wrong_value, wrong_count, sibling_clash,
                 no_is_value, drop_node] + ([rank_out_of_range] if pp else [])
    rejected = []
    for mut in mutations:
        tmp = os.path.join(workdir, "selftest")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(study, tmp)
        d = json.loads(json.dumps(good))
        mut(d)
        with open(os.path.join(tmp, "caliper", "scalana-%dp.json" % p), "w") as f:
            json.dump(d, f)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                check_study(tmp)
        except Failure as e:
            rejected.append("%s (%s)" % (mut.__name__, str(e).split(": ", 1)[-1][:70]))
            continue
        raise Failure("self-test: the rules accept a file with mutation %s" % mut.__name__)
    shutil.rmtree(os.path.join(workdir, "selftest"), ignore_errors=True)
    log("self-test: %d broken copies of %s rejected: %s" % (len(rejected), src, "; ".join(rejected)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--report", action="append", default=[], help="a scalana-analyze output directory (repeatable)")
    ap.add_argument("--planted", action="append", default=[], help="of those, one whose #1 root cause is planted")
    ap.add_argument("--docs", help="docs/hatchet.md: run its Thicket example on the first --planted report")
    ap.add_argument("--require-tools", action="store_true", help="fail, not skip (b), when hatchet/thicket do not import")
    ap.add_argument("--render", action="append", default=[], help="a report.json to render with --scalana-view first")
    ap.add_argument("--scalana-view", help="the scalana-view binary (with --render)")
    ap.add_argument("--workdir", help="scratch directory (with --render)")
    ap.add_argument("--self-test", action="store_true", help="check that the rules reject broken copies")
    ap.add_argument("--expect", action="append", default=[],
                    help="NAME=P,P,...: function NAME is measured at exactly these counts (every study)")
    args = ap.parse_args()
    try:
        expect = parse_expect(args.expect)
        for rj in args.render:
            need(args.scalana_view and args.workdir, "--render needs --scalana-view and --workdir")
            out, counts = render(args.scalana_view, rj, args.workdir)
            with open(rj) as f:
                has_cause = bool(json.load(f).get("root_causes"))
            if counts:
                (args.planted if has_cause else args.report).append(out)
    except Failure as e:
        log("FAIL: %s" % e)
        return 1
    missing = [d for d in args.report + args.planted if not os.path.isfile(os.path.join(d, "report.json"))]
    if missing:
        log("SKIP: no report.json in %s (the e2e test that writes it did not run or was skipped)" % ", ".join(missing))
        return SKIP
    try:
        studies = [(d, d in args.planted) for d in args.planted] + [(d, False) for d in args.report if d not in args.planted]
        checked = []
        for d, planted in studies:
            report, summaries = check_study(d, expect)
            checked.append((d, planted, report, summaries))
        if args.self_test:
            per_rank = [d for d, _, _, summ in checked if summ and summ[-1]["per_process"]]
            self_test((per_rank or [checked[0][0]])[0], args.workdir or tempfile.mkdtemp())
        ht, th = import_tools()
        if ht is None or th is None:
            if args.require_tools:
                raise Failure("--require-tools: hatchet/thicket do not import")
        if ht is None:
            log("ran: (a) on %d studies; (b) not run" % len(checked))
            return 0
        for d, planted, report, summaries in checked:
            check_hatchet(ht, report, summaries, planted)
            if th is not None:
                check_thicket(th, report, d, summaries, expect)
        if th is not None and args.docs and args.planted:
            run_docs_example(args.docs, args.planted[0], checked[0][2])
        log("ran: (a) and (b) with Hatchet%s on %d studies" % (" and Thicket" if th is not None else " only", len(checked)))
        return 0
    except Failure as e:
        log("FAIL: %s" % e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
