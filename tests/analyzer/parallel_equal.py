#!/usr/bin/python3
"""parallel_equal.py — the parallel analyzer gives the serial analyzer's root causes.

For every series of runs that the end-to-end tests left (BUILD/tests/e2e/<test>/
defect-<mode>/run-<p>p, analysed by the serial scalana-analyze into report/), or
for the run directories given with --runs, it analyses the same runs again under
`mpirun -n N scalana-analyze` for each N of --counts and checks that the root
causes are the same: for each rank of the list, the category, the location (file,
line, last line, function), the culprit processes and the waiting processes
exactly, and the cost within rounding (1e-6 s, or 1e-4 of the cost: report.json
keeps six digits and sums over ranks are added in another order; the
candidates likewise), that the vertex tables hold the same vertices (kind, name,
function, file, lines, column, flags), that every vertex's metrics, outliers and
per-process values agree, and that the communication edges, the rank x rank
matrices and the unmatched message count are the same, and so are each run's
threads per process and per core and its OpenMP regions (runs[]).  It also checks report.json's tool object: analyzer_processes
equals N, and analyzer_peak_rss_bytes has N positive values.  The e2e runs are not
rerun: the test reuses them (ctest e2e_parallel_equal_<example> requires the fixture
e2e_<example>).

  parallel_equal.py --analyze BIN --mpirun MPIRUN [--counts 2,4] --work DIR [--reanalyze]
                    (--series DIR... | --e2e-dir BUILD/tests/e2e [--modes on] | --runs DIR... [--reference REPORT])

Exit status: 0 equal, 1 a difference (each one printed), 77 nothing to compare
(no e2e series found: ctest reports a skip)."""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

SKIP = 77


def cause_key(c):
    return {
        "category": c.get("category"),
        "location": (c.get("file"), c.get("line"), c.get("last_line"), c.get("function")),
        "processes": c.get("processes"),
        "waiting_processes": c.get("waiting_processes"),
        "cost_seconds": c.get("cost_seconds", 0.0),
    }


def close(x, y):
    return abs(x - y) <= max(1e-6, 1e-4 * max(abs(x), abs(y)))


def vertex_set(report):
    """The report's vertices as a sorted list of what identifies and places them
    (ids may differ: the merged table is built in another order)."""
    return sorted((v.get("kind"), v.get("name"), v.get("function"), v.get("file"), v.get("line"),
                   v.get("last_line"), v.get("column"), tuple(sorted(v.get("flags", []) or [])))
                  for v in report.get("vertices", []))


METRIC_FIELDS = ("time_mean_seconds", "time_max_seconds", "time_min_seconds", "inclusive_mean_seconds",
                 "inclusive_max_seconds", "cpu_mean_seconds", "mpi_mean_seconds", "samples", "mpi_calls", "bytes",
                 "imbalance", "interval_before_mean_seconds", "interval_before_max_seconds",
                 "interval_before_cpu_mean_seconds")


def vertex_ident(v):
    return (v.get("kind"), v.get("name"), v.get("function"), v.get("file"), v.get("line"), v.get("last_line"),
            v.get("column"))


def compare_metrics(ref, got, what):
    """Per vertex and process count: the metrics a parallel analysis computes from
    the processes' statistics (means, maxima, minima), the outliers from its
    distributed selection (medians, MAD: exact, so the same ranks) and the
    per-process values it fetches, against the serial report's."""
    out = []
    bya = {}
    for v in ref.get("vertices", []):
        bya.setdefault(vertex_ident(v), []).append(v)
    for v in got.get("vertices", []):
        cand = bya.get(vertex_ident(v)) or []
        if len(cand) != 1:
            continue  # a vertex identity shared by several vertices: matched by the vertex-table check
        ma = {m["processes"]: m for m in cand[0].get("metrics", [])}
        for mb in v.get("metrics", []):
            m0 = ma.get(mb["processes"])
            label = "%s: vertex %s %s:%s at %s processes" % (what, v.get("name"), v.get("file"), v.get("line"),
                                                              mb["processes"])
            if m0 is None:
                out.append("%s: no metrics serially" % label)
                continue
            for f in METRIC_FIELDS:
                if (f in m0) != (f in mb) or (f in m0 and not close(m0[f], mb[f])):
                    out.append("%s: %s serial %r, parallel %r" % (label, f, m0.get(f), mb.get(f)))
            if m0.get("outliers") != mb.get("outliers"):
                out.append("%s: outliers serial %r, parallel %r" % (label, m0.get("outliers"), mb.get("outliers")))
            pa, pb = m0.get("per_process_seconds"), mb.get("per_process_seconds")
            if (pa is None) != (pb is None) or (pa and (len(pa) != len(pb) or
                                                      not all(close(x, y) for x, y in zip(pa, pb)))):
                out.append("%s: per_process_seconds differ" % label)
            if len(out) > 20:
                return out
    return out


def communication(report):
    """The communication edges (by the identity of their vertices, in order), the
    rank x rank matrices and the unmatched message count of a report."""
    verts = report.get("vertices", [])
    ident = lambda i: vertex_ident(verts[i]) if isinstance(i, int) and 0 <= i < len(verts) else None
    c = report.get("communication") or {}
    edges = [(ident(e.get("send_vertex")), ident(e.get("recv_vertex")), e.get("messages"), e.get("bytes"),
              e.get("rank_pairs")) for e in c.get("edges", [])]
    return edges, c.get("bytes"), c.get("messages"), (report.get("data_quality") or {}).get("unmatched_messages")


def compare_communication(ref, got, what):
    """Edges matched where their senders were read, and the matrix from the
    partner records asked of the processes, against the serial report's."""
    a, b = communication(ref), communication(got)
    out = []
    for name, x, y in zip(("edges", "bytes matrix", "messages matrix", "unmatched messages"), a, b):
        if x != y:
            out.append("%s: communication %s differ (serial %s, parallel %s)" % (
                what, name, repr(x)[:200], repr(y)[:200]))
    return out


RUN_THREAD_FIELDS = ("threads_per_process", "threads_per_core", "openmp_measure", "openmp_regions")


def same_value(x, y):
    """Equal, numbers within rounding, lists and objects element by element."""
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        return close(float(x), float(y))
    if isinstance(x, list) and isinstance(y, list):
        return len(x) == len(y) and all(same_value(a, b) for a, b in zip(x, y))
    if isinstance(x, dict) and isinstance(y, dict):
        return x.keys() == y.keys() and all(same_value(x[k], y[k]) for k in x)
    return x == y


def compare_threads(ref, got, what):
    """Each run's threads and OpenMP regions (runs[]: threads per process and
    per core, the OpenMP measure, the OMPT regions with their threads' waits)."""
    out = []
    for ra, rb in zip(ref.get("runs", []), got.get("runs", [])):
        for k in RUN_THREAD_FIELDS:
            if not same_value(ra.get(k), rb.get(k)):
                out.append("%s: run at %s processes: %s serial %s, parallel %s" % (
                    what, ra.get("processes"), k, repr(ra.get(k))[:120], repr(rb.get(k))[:120]))
    return out


def compare(ref, got, what):
    """The differences between two reports' root causes (and candidates) and
    vertex tables, as lines."""
    out = []
    va, vb = vertex_set(ref), vertex_set(got)
    if va != vb:
        extra = [x for x in vb if x not in va][:3]
        out.append("%s: vertex tables differ (%d serially, %d in parallel; e.g. %r)" % (what, len(va), len(vb), extra))
    out += compare_metrics(ref, got, what)
    out += compare_communication(ref, got, what)
    out += compare_threads(ref, got, what)
    for field in ("root_causes", "candidates"):
        a, b = ref.get(field, []), got.get(field, [])
        if len(a) != len(b):
            out.append("%s: %d %s serially, %d in parallel" % (what, len(a), field, len(b)))
            continue
        for i, (x, y) in enumerate(zip(a, b), 1):
            kx, ky = cause_key(x), cause_key(y)
            for k in kx:
                same = close(kx[k], ky[k]) if k == "cost_seconds" else kx[k] == ky[k]
                if not same:
                    out.append("%s: %s #%d %s: serial %r, parallel %r" % (what, field, i, k, kx[k], ky[k]))
    return out


def series_at(series):
    """[(name, [run dirs by process count], serial report path, environment)] of the
    e2e series in directory series (<test>/defect-<mode>), or [] when it has none."""
    test = os.path.dirname(series)
    report = os.path.join(series, "report", "report.json")
    runs = glob.glob(os.path.join(series, "run-*p"))
    if not os.path.isfile(report) or not runs:
        return []
    runs.sort(key=lambda d: int(re.search(r"run-(\d+)p$", d).group(1)))
    env = {"SCALANA_PSG_CACHE": os.path.join(test, "psg-cache")}
    return [("%s/%s" % (os.path.basename(test), os.path.basename(series)), runs, report, env)]


def series_of(e2e_dir, modes):
    """The e2e series of every test under e2e_dir, for the modes given."""
    found = []
    for test in sorted(glob.glob(os.path.join(e2e_dir, "*"))):
        for mode in modes:
            found += series_at(os.path.join(test, "defect-" + mode))
    return found


def analyze(a, n, runs, out, env):
    full = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", **env)
    cmd = [a.analyze] + runs + ["-o", out, "--no-viewer", "-q"]
    if n > 1 and "mpich" in os.path.basename(a.mpirun):  # Hydra passes the environment on
        cmd = [a.mpirun, "-n", str(n)] + cmd
    elif n > 1:
        cmd = [a.mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(n)] + [
            x for k in env for x in ("-x", k)] + cmd
    p = subprocess.run(cmd, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=a.timeout)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[-800:])
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--analyze", required=True)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--counts", default="2,4")
    ap.add_argument("--work", required=True)
    ap.add_argument("--e2e-dir")
    ap.add_argument("--modes", default="on")
    ap.add_argument("--series", action="append", default=[],
                    help="one e2e series directory (defect-<mode>/ with run-<p>p/ and report/), repeatable")
    ap.add_argument("--runs", nargs="*")
    ap.add_argument("--reference", help="serial report.json of --runs (else analysed here)")
    ap.add_argument("--reanalyze", action="store_true", help="make the serial reference here too")
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    counts = [int(x) for x in a.counts.split(",")]
    if a.runs:
        series = [("runs", a.runs, a.reference, {})]
    elif a.series:
        series = [x for d in a.series for x in series_at(os.path.abspath(d))]
    else:
        series = series_of(a.e2e_dir, a.modes.split(","))
    if not series:
        print("parallel_equal: no series to compare (run the e2e tests first)")
        return SKIP
    os.makedirs(a.work, exist_ok=True)
    failures = []
    for name, runs, ref_path, env in series:
        tag = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        if ref_path and not a.reanalyze:
            with open(ref_path) as f:
                ref = json.load(f)
        else:
            ref, err = analyze(a, 1, runs, os.path.join(a.work, tag + "-n1"), env)
            if ref is None:
                failures.append("%s: serial analysis failed: %s" % (name, err))
                continue
        for n in counts:
            got, err = analyze(a, n, runs, os.path.join(a.work, "%s-n%d" % (tag, n)), env)
            if got is None:
                failures.append("%s: %d analyzer processes: %s" % (name, n, err))
                continue
            diff = compare(ref, got, "%s (N=%d)" % (name, n))
            tool = got.get("tool", {})
            rss = tool.get("analyzer_peak_rss_bytes", [])
            if tool.get("analyzer_processes") != n:
                diff.append("%s (N=%d): tool.analyzer_processes %r" % (name, n, tool.get("analyzer_processes")))
            if len(rss) != n or not all(isinstance(x, int) and x > 0 for x in rss):
                diff.append("%s (N=%d): tool.analyzer_peak_rss_bytes %r" % (name, n, rss))
            failures += diff
            top = got.get("root_causes", [])[:1]
            print("%-44s N=%d: %d root causes%s %s" % (
                name, n, len(got.get("root_causes", [])),
                (" (#1 %s %s:%s, %.3g s)" % (top[0]["category"], os.path.basename(top[0].get("file", "")),
                                              top[0].get("line"), top[0].get("cost_seconds", 0))) if top else "",
                "same" if not diff else "DIFFERENT"), flush=True)
    for f in failures:
        print("FAIL: " + f)
    print("parallel_equal: %d series, %s" % (len(series), "PASS" if not failures else "FAIL"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
