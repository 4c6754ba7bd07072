#!/usr/bin/python3
"""check_extrap.py — extrap.jsonl (viewer/vw_extrap.c) is what Extra-P loads and models.

For each --export DIR (a report directory: report.json and the extrap.jsonl the
analyzer wrote next to it) or --jsonl FILE (the file alone):

(a) always, the rules of docs/viewer.md ("extrap.jsonl"), without Extra-P:
    - every line one JSON object: params {"p": integer >= 1} and nothing else,
      callpath (a string), metric (a string), value (a finite number >= 0);
    - a complete cube: every call path has every metric of METRICS at every
      process count of the file, once (Extra-P refuses a (call path, metric)
      with fewer measurements than coordinates, and merges repeated lines);
    - call paths: no empty level, no control character, each one's parent (the
      path up to its last "->") is a call path written before it;
    with report.json, also:
    - the counts are those of runs[] and of the vertices' metrics[]; one call
      path per vertex, in pre-order, its last level the vertex's name (with
      "->" as "-_");
    - the values are report.json's where the vertex was measured (time_mean =
      inclusive_mean_seconds, time_max = inclusive_max_seconds, exclusive_* =
      time_mean/max_seconds, time = time_mean), exactly the number report.json
      has as written (its 6 significant digits; no float noise beyond them),
      0 for its own figures where it was not; containers consistent with their children: time_mean = own +
      the children's time_mean (1 % + 1 us; only when each count has one run,
      repetitions are medians), time_max >= each child's time_max and >=
      time_mean, bytes and mpi_calls = own + the children's, exactly;
      a container whose children took time has time_mean > 0;
(b) when Extra-P is importable (SCALANA_EXTRAP_PYTHONPATH, or already on the
    path): its JSON Lines reader loads the file without an error or warning,
    with as many call paths, metrics and coordinates as the file, a call-tree
    node per call path; its default modeler gives every (call path, metric) a
    model whose function is finite at every count; and each --grows PATH (a
    call path, or its last level) and each growing_communication root cause of
    report.json has a model of `time` that is larger at the largest count than
    at the smallest (at least GROWTH_FACTOR times for --grows).

--expect-fail TEXT (repeatable): the file is meant to be broken; pass only if
(a) finds a violation containing each TEXT (and, with --expect-extrap-refuses
and Extra-P, its reader refuses the file).  The output says which of (a) and
(b) ran.

Exit status: 0 pass, 1 fail.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

METRICS = ("time", "time_mean", "time_max", "exclusive_time_mean", "exclusive_time_max",
           "bytes", "mpi_calls")
REL_TOL = 0.01       # container = own + children, relative (rounding of report.json, 6 digits)
ABS_TOL = 1e-6       # ... and absolute, seconds
GROWTH_FACTOR = 2.0  # a --grows path: model(largest count) >= 2 x model(smallest count)
REPORT_REL = 1e-5    # bytes, calls: report.json rounds them to 6 digits, the export sums them exactly
REPORT_DIGITS = 6    # significant digits of report.json's reals (and of the export's seconds)


class Violations(list):
    def add(self, where, msg):
        self.append("%s: %s" % (where, msg))


def log(msg=""):
    print(msg, flush=True)


def render_exports(view, reports, scratch):
    """Renders each report.json with scalana-view (no SVG, no HTML) into a directory
    of its own under scratch, beside a copy of the report; returns the directories,
    or None after logging the failure of one rendering (also used by check_labels.py)."""
    dirs = []
    for i, rp in enumerate(reports):
        out = os.path.join(scratch, "r%d" % i)
        os.makedirs(out)
        cmd = [view, "-q", "--no-svg", "--no-html", "-o", out, rp]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            log("FAIL: %s exited %d: %s" % (" ".join(cmd), p.returncode, p.stdout.strip()))
            return None
        shutil.copy(rp, os.path.join(out, "report.json"))
        dirs.append(out)
    return dirs


def read_jsonl(path, bad):
    """{(callpath, metric, p): value}, call paths in order of first appearance, counts."""
    cube, order, seen, counts = {}, [], set(), set()
    with open(path, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            where = "%s:%d" % (os.path.basename(path), ln)
            if not line.strip():
                bad.add(where, "empty line")
                continue
            try:
                o = json.loads(line)
            except ValueError as e:
                bad.add(where, "not JSON: %s" % e)
                continue
            if not isinstance(o, dict) or set(o) != {"params", "callpath", "metric", "value"}:
                bad.add(where, "keys %s, expected params, callpath, metric, value" % sorted(o) if isinstance(o, dict) else "not an object")
                continue
            params, cp, metric, value = o["params"], o["callpath"], o["metric"], o["value"]
            if not isinstance(params, dict) or set(params) != {"p"} or not isinstance(params["p"], int) \
                    or isinstance(params["p"], bool) or params["p"] < 1:
                bad.add(where, "params %r: expected {\"p\": integer >= 1}" % (params,))
                continue
            p = params["p"]
            if not isinstance(cp, str) or not isinstance(metric, str):
                bad.add(where, "callpath and metric must be strings")
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                bad.add(where, "value %r of %s/%s at p=%d: not a finite number >= 0" % (value, cp, metric, p))
                continue
            key = (cp, metric, p)
            if key in cube:
                bad.add(where, "duplicate line for %s, %s, p=%d (Extra-P would take it as a repetition)" % key)
            cube[key] = float(value)
            counts.add(p)
            if cp not in seen:
                seen.add(cp)
                order.append(cp)
    return cube, order, sorted(counts)


def check_file(cube, order, counts, bad):
    """The file's own rules: complete cube, call-path syntax and order."""
    metrics = sorted({m for _, m, _ in cube})
    if set(metrics) != set(METRICS):
        bad.add("metrics", "%s, expected %s" % (metrics, list(METRICS)))
    written = set()
    for cp in order:
        levels = cp.split("->")
        if any(not lv for lv in levels):
            bad.add(cp, "an empty call-path level")
        if any(ord(ch) < 0x20 or ord(ch) == 0x7f for ch in cp):
            bad.add(cp, "a control character")
        if len(levels) > 1 and "->".join(levels[:-1]) not in written:
            bad.add(cp, "its parent %s is not written before it" % "->".join(levels[:-1]))
        written.add(cp)
        for m in METRICS:
            missing = [p for p in counts if (cp, m, p) not in cube]
            if missing:
                bad.add(cp, "%s: missing measurement at p=%s (counts of the file: %s)" % (m, missing, counts))


def preorder(vertices):
    """report.json's vertex indices in preorder, the children of each and the
    parent of each non-root (check_labels.py walks the same tree)."""
    kids = {i: [] for i in range(len(vertices))}
    roots, parent = [], {}
    for i, v in enumerate(vertices):
        p = v.get("parent")
        if isinstance(p, int) and 0 <= p < len(vertices) and p != i:
            kids[p].append(i)
            parent[i] = p
        else:
            roots.append(i)
    out, stack = [], list(reversed(roots))
    while stack:
        v = stack.pop()
        out.append(v)
        stack.extend(reversed(kids[v]))
    return out, kids, parent


def check_report(report, cube, order, counts, bad):
    """Against report.json: counts, one call path per vertex, values, containers."""
    vertices = report.get("vertices") or []
    want = sorted({r["processes"] for r in report.get("runs") or [] if r.get("processes", 0) > 0} |
                  {m["processes"] for v in vertices for m in v.get("metrics") or [] if m.get("processes", 0) > 0})
    if counts != want and (cube or want):
        bad.add("counts", "%s in the file, report.json has %s" % (counts, want))
    pre, kids, _ = preorder(vertices)
    if len(order) != len(pre):
        bad.add("call paths", "%d in the file, report.json has %d vertices" % (len(order), len(pre)))
        return
    path = dict(zip(pre, order))
    single = all(len(r.get("directories") or [None]) <= 1 for r in report.get("runs") or [])
    for v in pre:
        cp, vx = path[v], vertices[v]
        name = (vx.get("name") or "?").replace("->", "-_")
        name = "".join(" " if ord(ch) < 0x20 or ord(ch) == 0x7f else ch for ch in name)
        if not cp.split("->")[-1].startswith(name):
            bad.add(cp, "last level does not start with the vertex's name %r" % name)
        p_of = vx.get("parent")
        if isinstance(p_of, int) and p_of in path and cp.rsplit("->", 1)[0] != path[p_of]:
            bad.add(cp, "not below its parent's call path %s" % path[p_of])
        by_p = {}
        for m in vx.get("metrics") or []:
            by_p.setdefault(m.get("processes"), m)
        for p in counts:
            val = {m: cube.get((cp, m, p)) for m in METRICS}
            if None in val.values():
                continue   # reported by check_file
            own = by_p.get(p)
            where = "%s p=%d" % (cp, p)
            if abs(val["time"] - val["time_mean"]) > 1e-12:
                bad.add(where, "time %g != time_mean %g" % (val["time"], val["time_mean"]))
            pairs = (("time_mean", "inclusive_mean_seconds"), ("time_max", "inclusive_max_seconds"),
                     ("exclusive_time_mean", "time_mean_seconds"), ("exclusive_time_max", "time_max_seconds"))
            for metric, key in pairs:
                x = own.get(key) if own else None
                # the same number as report.json's, not its float noise: equal to
                # it as written (at its 6 digits; a hand-made report may have more)
                if isinstance(x, (int, float)) and x >= 0 and val[metric] != float("%.*g" % (REPORT_DIGITS, x)):
                    bad.add(where, "%s %.17g, report.json %s %r (the value as written, at %d digits)"
                            % (metric, val[metric], key, x, REPORT_DIGITS))
            if own is None and (val["exclusive_time_mean"] or val["exclusive_time_max"]):
                bad.add(where, "not measured there, but its own time is not 0")
            ch = [path[c] for c in kids[v]]
            cm = [cube.get((c, "time_mean", p), 0.0) for c in ch]
            cx = [cube.get((c, "time_max", p), 0.0) for c in ch]
            if single and not close(val["time_mean"], val["exclusive_time_mean"] + sum(cm), REL_TOL, ABS_TOL):
                bad.add(where, "time_mean %g != own %g + children %g" % (val["time_mean"], val["exclusive_time_mean"], sum(cm)))
            if cx and val["time_max"] < max(cx) - ABS_TOL:
                bad.add(where, "time_max %g below a child's %g" % (val["time_max"], max(cx)))
            if val["time_max"] < val["time_mean"] - ABS_TOL:
                bad.add(where, "time_max %g below time_mean %g" % (val["time_max"], val["time_mean"]))
            if sum(cm) > ABS_TOL and val["time_mean"] <= 0:
                bad.add(where, "a container with time_mean 0 while its children took %g s" % sum(cm))
            for metric, key in (("bytes", "bytes"), ("mpi_calls", "mpi_calls")):
                mine = (own or {}).get(key)
                mine = mine if isinstance(mine, (int, float)) and mine > 0 else 0.0
                total = mine + sum(cube.get((c, metric, p), 0.0) for c in ch)
                if not close(val[metric], total, REPORT_REL, 1e-9):
                    bad.add(where, "%s %g != own %g + children's" % (metric, val[metric], mine))
    return path


def close(a, b, rel, ab):
    return abs(a - b) <= ab + rel * max(abs(a), abs(b))


def import_extrap():
    """(module, where) or (None, why); a set SCALANA_EXTRAP_PYTHONPATH that does not
    give Extra-P is an error (the test was asked to run it)."""
    extra = os.environ.get("SCALANA_EXTRAP_PYTHONPATH")
    if extra:
        for d in reversed(extra.split(os.pathsep)):
            if d and d not in sys.path:
                sys.path.insert(0, d)
    try:
        import extrap
        from extrap.fileio.file_reader.json_file_reader import JsonFileReader  # noqa: F401
        from extrap.modelers.model_generator import ModelGenerator  # noqa: F401
    except ImportError as e:
        if extra:
            log("FAIL: SCALANA_EXTRAP_PYTHONPATH=%s but Extra-P does not import: %s" % (extra, e))
            sys.exit(1)
        return None, "extrap is not importable (%s); set SCALANA_EXTRAP_PYTHONPATH to run it" % e
    return extrap, "Extra-P %s from %s" % (extrap.__version__, os.path.dirname(os.path.dirname(extrap.__file__)))


def extrap_model(path, order, counts, report, vpath, grows, bad):
    """Loads the file with Extra-P's reader and models every (call path, metric)."""
    from extrap.fileio.file_reader.json_file_reader import JsonFileReader
    from extrap.modelers.model_generator import ModelGenerator
    where = os.path.join(os.path.basename(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exp = JsonFileReader().read_experiment(path)
        except Exception as e:   # Extra-P's own message is the point
            bad.add(where, "Extra-P refused it: %s: %s" % (type(e).__name__, e))
            return None
    for w in caught:
        if "extrap" in (w.filename or ""):
            bad.add(where, "Extra-P warned: %s" % w.message)
    names = [c.name for c in exp.callpaths]
    if len(names) != len(order) or set(names) != set(order):
        bad.add(where, "Extra-P has %d call paths, the file %d" % (len(names), len(order)))
    if sorted(m.name for m in exp.metrics) != sorted(METRICS):
        bad.add(where, "Extra-P's metrics %s" % sorted(m.name for m in exp.metrics))
    coords = sorted(c[0] for c in exp.coordinates)
    if coords != [float(p) for p in counts]:
        bad.add(where, "Extra-P's coordinates %s, the file's counts %s" % (coords, counts))
    nodes, stack = [], list(exp.call_tree.childs)
    while stack:   # every node of the tree, each holding a call path of the file
        n = stack.pop()
        nodes.append(n)
        stack.extend(n.childs)
    if len(nodes) != len(order) or any(not n.path.name for n in nodes):
        bad.add(where, "Extra-P's call tree has %d nodes (%d without a call path) for %d call paths"
                % (len(nodes), sum(1 for n in nodes if not n.path.name), len(order)))
    mg = ModelGenerator(exp)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mg.model_all()
    for text in sorted({str(w.message) for w in caught}):   # e.g. fewer than 5 counts
        log("    Extra-P's modeler said: %s" % text)
    models = {(cp.name, m.name): model for (cp, m), model in mg.models.items()}
    missing = [k for k in exp.measurements if (k[0].name, k[1].name) not in models]
    if missing or len(models) != len(order) * len(METRICS):
        bad.add(where, "%d models for %d call paths x %d metrics" % (len(models), len(order), len(METRICS)))

    def f(cp, p):
        return models[(cp, "time")].hypothesis.function.evaluate(float(p))

    for (cp, metric), model in models.items():
        for p in counts:
            y = model.hypothesis.function.evaluate(float(p))
            if not math.isfinite(float(y)):
                bad.add(where, "model of %s/%s is %r at p=%d" % (cp, metric, y, p))
                break
    lo, hi = counts[0], counts[-1]
    targets = []
    for g in grows:
        hits = [cp for cp in order if cp == g or cp.split("->")[-1] == g]
        if not hits:
            bad.add(where, "no call path %r (--grows)" % g)
        targets += [(cp, GROWTH_FACTOR, "--grows") for cp in hits]
    for rc in (report or {}).get("root_causes") or []:
        if rc.get("category") == "growing_communication" and rc.get("vertex") in (vpath or {}):
            targets.append((vpath[rc["vertex"]], 1.0, "root cause #%s, growing_communication" % rc.get("rank")))
    for cp, factor, why in targets:
        if (cp, "time") not in models:
            continue
        a, b = f(cp, lo), f(cp, hi)
        func = models[(cp, "time")].hypothesis.function.to_string(*exp.parameters)
        ok = b > a * factor and b > 0
        log("    %s model of time (%s) %s: %s; %.4g s at p=%d, %.4g s at p=%d" % (
            "ok:" if ok else "FAIL:", why, cp, func, a, lo, b, hi))
        if not ok:
            bad.add(where, "%s: Extra-P's model of time does not grow %gx from p=%d to p=%d: %s"
                    % (cp, factor, lo, hi, func))
    return len(models)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--export", action="append", default=[], metavar="DIR",
                    help="report directory with report.json and extrap.jsonl")
    ap.add_argument("--jsonl", action="append", default=[], metavar="FILE", help="an extrap.jsonl alone")
    ap.add_argument("--render", action="append", default=[], metavar="REPORT_JSON",
                    help="write this report's extrap.jsonl with --view into a scratch directory and check it")
    ap.add_argument("--view", help="scalana-view, for --render")
    ap.add_argument("--grows", action="append", default=[], metavar="CALLPATH",
                    help="Extra-P's model of this call path's time must grow with p")
    ap.add_argument("--expect-callpath", action="append", default=[], metavar="CALLPATH",
                    help="this exact call path must be in the file")
    ap.add_argument("--expect-fail", action="append", default=[], metavar="TEXT",
                    help="the file is broken: (a) must report a violation containing TEXT")
    ap.add_argument("--expect-extrap-refuses", action="store_true",
                    help="with --expect-fail: Extra-P's reader must refuse the file too (when it runs)")
    args = ap.parse_args()
    if not args.export and not args.jsonl and not args.render:
        ap.error("give --export DIR, --jsonl FILE or --render REPORT_JSON")
    if args.render and not args.view:
        ap.error("--render needs --view")
    scratch = tempfile.mkdtemp(prefix="check_extrap.")
    rendered = render_exports(args.view, args.render, scratch)
    if rendered is None:
        return 1
    args.export.extend(rendered)
    extrap, extrap_note = import_extrap()
    log("(a) completeness rules: run on every file")
    log("(b) Extra-P: %s" % (("run: " + extrap_note) if extrap else ("NOT run: " + extrap_note)))
    items = [(os.path.join(d, "extrap.jsonl"), os.path.join(d, "report.json")) for d in args.export]
    items += [(f, None) for f in args.jsonl]
    failed = 0
    for path, report_path in items:
        bad = Violations()
        log("== %s" % path)
        if not os.path.isfile(path) or (report_path and not os.path.isfile(report_path)):
            log("FAIL: %s or its report.json is missing (the fixture that writes it did not run?)" % path)
            failed += 1
            continue
        cube, order, counts = read_jsonl(path, bad)
        check_file(cube, order, counts, bad)
        report = vpath = None
        if report_path:
            with open(report_path, encoding="utf-8") as f:
                report = json.load(f)
            vpath = check_report(report, cube, order, counts, bad)
        for cp in args.expect_callpath:
            if cp not in order:
                bad.add(cp, "expected call path not in the file")
        log("  (a) %d call paths x %d metrics x %d counts %s: %d lines, %d violations"
            % (len(order), len(METRICS), len(counts), counts, len(cube), len(bad)))
        if extrap:
            before = len(bad)
            n = extrap_model(path, order, counts, report, vpath, args.grows, bad)
            log("  (b) Extra-P: %s" % ("loaded, %d models" % n if n is not None else "refused the file")
                + ("" if len(bad) == before else ", %d violations" % (len(bad) - before)))
        if args.expect_fail:
            missing = [t for t in args.expect_fail if not any(t in b for b in bad)]
            refused = not extrap or not args.expect_extrap_refuses or any("Extra-P refused" in b for b in bad)
            for b in bad[:20]:
                log("    found (expected): " + b)
            if missing or not refused:
                log("FAIL: the broken file passed: no violation with %s%s" % (
                    missing, "" if refused else "; Extra-P loaded it"))
                failed += 1
            else:
                log("  ok: the broken file is refused as expected by (a)%s" % (
                    " and by Extra-P" if extrap and args.expect_extrap_refuses else ""))
            continue
        for b in bad[:50]:
            log("  FAIL: " + b)
        if len(bad) > 50:
            log("  ... and %d more" % (len(bad) - 50))
        failed += bool(bad)
    shutil.rmtree(scratch, ignore_errors=True)
    log("%s: %d of %d files%s" % ("FAIL" if failed else "PASS", len(items) - failed, len(items),
                                  "; Extra-P ran" if extrap else "; Extra-P did not run (rules only)"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
