#!/usr/bin/python3
"""weak_regions.py — the scaling mode from the loops' iterations (docs/analyzer.md,
"Strong or weak scaling").  progs/weak_regions.c is weak scaling with LULESH's
costly regions on world rank 0 alone: built with scalana-cc and with Open
MPI's mpicc (gcc, no work counters, LD_PRELOAD), each run at 1 and 4
processes, analysed without --strong/--weak.

Asserted, in both builds:
  - scaling_mode: weak, detected, not uncertain, work_slope within 0.15 of 1
    (the balanced element loop decides: the regions' total grows 4 -> 7
    units, a slope of 0.40, which alone read as strong; in CPU seconds 0.66,
    uncertain); work_measure loop_iterations (scalana-cc) or cpu_seconds (gcc);
  - root cause #1: load_imbalance at the region loop in regions() on process [0];
  - no cause or candidate calls the element loop non-scalable (what strong
    scaling would have said of a loop whose work per process is constant).

usage: weak_regions.py --bindir DIR --workdir DIR [--mpirun mpirun.openmpi]
                       [--mpicc mpicc.openmpi]"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from e2e_check import Failure, check, log

HERE = os.path.dirname(os.path.abspath(__file__))


def study(a, build, cc, measure):
    """Builds progs/weak_regions.c with cc, runs it at 1 and 4 processes in
    workdir/build, analyses the runs and checks the report."""
    wd = os.path.join(a.workdir, build)
    os.makedirs(wd)
    exe = os.path.join(wd, "weak_regions")
    subprocess.run(cc + ["-O2", "-g", os.path.join(HERE, "progs", "weak_regions.c"), "-o", exe],
                   env=dict(os.environ, SCALANA_MPI="openmpi"), check=True)
    runs = []
    for p in (1, 4):
        d = os.path.join(wd, f"run-{p}p")
        subprocess.run([os.path.join(a.bindir, "scalana-run"), "-o", d, a.mpirun, "--allow-run-as-root",
                        "--oversubscribe", "-np", str(p), exe], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        runs.append(d)
    rep = os.path.join(wd, "report")
    subprocess.run([os.path.join(a.bindir, "scalana-analyze")] + runs + ["-o", rep, "--no-viewer"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(rep, "report.json")) as f:
        r = json.load(f)
    m = r["scaling_mode"]
    log(f"{build}: scaling_mode {m}")
    check(m["mode"] == "weak" and m["source"] == "detected" and not m["uncertain"],
          f"{build}: scaling mode {m['mode']} ({m['source']}, uncertain {m['uncertain']}), want weak, detected")
    check(m["work_measure"] == measure, f"{build}: work_measure {m['work_measure']}, want {measure}")
    check(abs(m["work_slope"] - 1) <= 0.15, f"{build}: work_slope {m['work_slope']:.2f}, want 1 +- 0.15")
    rc = r["root_causes"]
    check(rc, f"{build}: no root cause")
    c = rc[0]
    log(f"{build}: #1 {c['category']} at {c.get('location')} processes {c.get('processes')}")
    check(c["category"] == "load_imbalance" and c.get("function") == "regions" and c.get("processes") == [0],
          f"{build}: #1 is {c['category']} in {c.get('function')} on {c.get('processes')}, want "
          "load_imbalance in regions on [0]")
    for x in rc + r.get("candidates", []):
        check(not (x["category"] == "non_scalable_computation" and x.get("function") == "elements"),
              f"{build}: the element loop is called non-scalable: {x.get('location')}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    ap.add_argument("--mpicc", default="mpicc.openmpi")
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    study(a, "scalana", [os.path.join(a.bindir, "scalana-cc")], "loop_iterations")
    study(a, "gcc", [a.mpicc], "cpu_seconds")
    log("PASS")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        log(f"FAIL: {e}")
        sys.exit(1)
