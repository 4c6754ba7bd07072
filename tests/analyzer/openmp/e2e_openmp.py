#!/usr/bin/python3
"""e2e_openmp.py — time in an OpenMP region is the region's loop, in both builds.

omp_tri.c (a triangular loop in `#pragma omp parallel for` at line 15, its
loops at 16-18 in main) built with the system mpicc -fopenmp (gcc, libgomp,
profiled through LD_PRELOAD, structure recovered from machine code) and
with scalana-cc -fopenmp (clang, libomp, the pass's PSG); each run at 1 and 2
processes with OMP_NUM_THREADS=2 and analysed.  Asserts for each build:
the first computation vertex of time_summary.top_vertices (top_vertices[0]
unless an MPI wait from sharing 2 cores among 4 threads comes first) is a
loop of main within lines 16-18 (not GOMP_parallel, __kmpc_fork_call or the
outlined body's name), the summary's text names neither, and no root
cause or candidate names an OpenMP runtime function.  The second region
(tail_sweep's, lines 33-35, worker threads included) hangs below the calls
at lines 22 and 23, never below main's first region (lines 14-19), where the
runtime created its worker threads.  The two calls fork the same work, and
each gets its own: the loop's time below one is within a factor 1.6 of the
other's at each count (a worker's own stack does not say which call forked
the body it runs; the runtime continues the fork's path on every thread of
the team, and without that the workers' half went whole to one call).  The
scalana-cc build (LLVM's libomp spins at barriers for 200 ms) shows thread
0's wait at the region's barrier as OpenMP runtime time
(runs[].omp_runtime_cpu_percent at least 5 at 1 process, where the 2
threads have a core each: --bind-to none), not as computation.
Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import json
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "e2e"))
import run_example as rx  # noqa: E402

RUNTIME = re.compile(r"\b(GOMP_\w+|gomp_\w+|__kmpc_\w+|__kmp_\w+)")


def check(report, build):
    fails = []
    ts = report["time_summary"]
    tops = ts.get("top_vertices") or []
    if not tops:
        return ["%s: time_summary has no top vertex" % build]
    verts = {v["id"]: v for v in report["vertices"]}
    # the first place computation goes; MPI_Allreduce may come first: at 2
    # processes the 4 threads share 2 cores, and a process that got less of
    # them keeps the other waiting (the waits are MPI's, never the runtime's)
    if verts.get(tops[0]["vertex"], {}).get("kind") not in ("LOOP", "MPI"):
        fails.append("%s: top_vertices[0] is %s, want the loop (or the MPI wait)" % (build, tops[0]))
    comp = [t for t in tops if verts.get(t["vertex"], {}).get("kind") != "MPI"]
    top = comp[0] if comp else tops[0]
    v = verts.get(top["vertex"], {})
    if v.get("kind") != "LOOP" or top.get("function") != "main" or not (16 <= top.get("line", 0) <= 18) \
            or not (v.get("last_line", 0) <= 18):
        fails.append("%s: the first computation in top_vertices is %s (vertex %s), want a loop of main within omp_tri.c:16-18"
                     % (build, top, v))
    if RUNTIME.search(ts.get("text", "")) or "_omp_fn" in ts.get("text", "") or "omp_outlined" in ts.get("text", ""):
        fails.append("%s: the time summary names the OpenMP runtime or an outlined body: %s" % (build, ts["text"]))
    # the second region (workers included) hangs below tail_sweep's call at line 22,
    # never below main's first region (lines 14-19), where the workers were created
    for v in report["vertices"]:
        if "tail_sweep" not in (v.get("function") or "") + (v.get("name") or ""):
            continue
        x, chain = verts.get(v.get("parent")), []
        while x is not None:
            chain.append((x.get("kind"), x.get("name"), x.get("line")))
            x = verts.get(x.get("parent"))
        if any(14 <= (ln or 0) <= 19 for k, n, ln in chain):
            fails.append("%s: %s %s at line %s sits under main's first region: %s"
                         % (build, v.get("kind"), v.get("name"), v.get("line"), chain))
    # each call of tail_sweep keeps its own share of the region (workers too)
    share = {}
    for v in report["vertices"]:
        if v.get("kind") != "LOOP" or "tail_sweep" not in (v.get("function") or ""):
            continue
        x = verts.get(v.get("parent"))
        # the call's vertex, or (the scalana-cc build folds a call into its
        # statement) the loop at line 22 or 23 that holds it
        while x is not None and x.get("line") not in (22, 23):
            x = verts.get(x.get("parent"))
        if x is None:
            continue
        for m in v["metrics"]:
            key = (x["line"], m["processes"])
            share[key] = max(share.get(key, 0.0), m["inclusive_mean_seconds"])
    for p in sorted({k[1] for k in share}):
        a, b = share.get((22, p), 0.0), share.get((23, p), 0.0)
        if not (a > 0 and b > 0 and 1 / 1.6 <= a / b <= 1.6):
            fails.append("%s: at %d processes tail_sweep's loop takes %.3f s below the call at line 22 and "
                         "%.3f s below the one at line 23, which fork the same work" % (build, p, a, b))
    if not share:
        fails.append("%s: no loop of tail_sweep below its calls at lines 22 and 23" % build)
    one = [r for r in report["runs"] if r["processes"] == 1]
    if build == "scalana-cc" and not (one and one[0].get("omp_runtime_cpu_percent", 0) >= 5):
        fails.append("%s: at 1 process omp_runtime_cpu_percent %s: thread 0's wait at the static triangle's "
                     "barrier is not seen as OpenMP runtime time"
                     % (build, one[0].get("omp_runtime_cpu_percent") if one else None))
    for kind in ("root_causes", "candidates"):
        for c in report.get(kind) or []:
            s = json.dumps(c)
            if RUNTIME.search(s):
                fails.append("%s: a %s entry names an OpenMP runtime function: %s" % (build, kind, s[:400]))
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpicc", default="mpicc.openmpi")
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    args = ap.parse_args()
    mpicc, mpirun = shutil.which(args.mpicc), shutil.which(args.mpirun)
    if not mpicc or not mpirun:
        rx.skip("%s or %s not found" % (args.mpicc, args.mpirun))
    run_tool, analyze = rx.tool(args.bindir, "scalana-run"), rx.tool(args.bindir, "scalana-analyze")
    scc = rx.tool(args.bindir, "scalana-cc")
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    src = os.path.join(HERE, "omp_tri.c")
    fails = []
    for build, cc in (("gcc", mpicc), ("scalana-cc", scc)):
        exe = os.path.join(work, "tri-" + build)
        rc, out, err = rx.run([cc, "-O2", "-g", "-fopenmp", src, "-o", exe, "-lm"], work, timeout=300, what=build)
        if rc != 0:
            fails.append("%s: the build exited %d\n%s" % (build, rc, rx.tail(err)))
            continue
        runs = []
        for p in (1, 2):
            rd = os.path.join(work, "run-%s-%dp" % (build, p))
            # KMP_USE_YIELD=0: libomp's waiting thread otherwise calls sched_yield
            # between spins, and beside other load it gives its core away and burns
            # almost no CPU (0.9 % of the samples instead of 21-26 % beside two CPU
            # hogs): the samples that show the wait as runtime time would be gone,
            # though none of them is taken for computation
            env = dict(os.environ, SCALANA_OUTPUT=rd, OMP_NUM_THREADS="2", KMP_USE_YIELD="0")
            rc, out, err = rx.run([run_tool, mpirun, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-x",
                                   "OMP_NUM_THREADS", "-x", "KMP_USE_YIELD", "-n", str(p), exe], work, env, timeout=300,
                                  what="%s at %d processes" % (build, p))
            if rc != 0:
                fails.append("%s: the %dp run exited %d\n%s" % (build, p, rc, rx.tail(err)))
            runs.append(rd)
        rep = os.path.join(work, "report-" + build)
        rc, term, err = rx.run([analyze] + runs + ["-o", rep, "--psg-cache", "off"], work, timeout=300,
                               what="scalana-analyze")
        if rc != 0:
            fails.append("%s: scalana-analyze exited %d\n%s" % (build, rc, rx.tail(err)))
            continue
        with open(os.path.join(rep, "report.json")) as f:
            report = json.load(f)
        fails += check(report, build)
        rx.log("%s: %s" % (build, report["time_summary"].get("text", "")))
    for f in fails:
        rx.log("FAIL: " + f)
    if fails:
        return 1
    rx.log("PASS: the time of the OpenMP region is its loop in main, gcc and scalana-cc builds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
