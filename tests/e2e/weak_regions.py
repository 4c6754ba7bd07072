#!/usr/bin/python3
"""weak_regions.py — the scaling mode from the loops' iterations (docs/analyzer.md,
"Strong or weak scaling").  progs/weak_regions.c is weak scaling with LULESH's
costly regions on world rank 0 alone: built with scalana-cc, run at 1 and 4
processes, analysed without --strong/--weak.

Asserted:
  - scaling_mode: weak, detected, not uncertain, work_measure loop_iterations,
    work_slope within 0.15 of 1 (the balanced element loop decides: the regions'
    total grows 4 -> 7 units, a slope of 0.40, which alone read as strong);
  - root cause #1: load_imbalance at the region loop in regions() on process [0];
  - no cause or candidate calls the element loop non-scalable (what strong
    scaling would have said of a loop whose work per process is constant).

usage: weak_regions.py --bindir DIR --workdir DIR [--mpirun mpirun.openmpi]"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from e2e_check import Failure, check, log

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    exe = os.path.join(a.workdir, "weak_regions")
    subprocess.run([os.path.join(a.bindir, "scalana-cc"), "-O2", "-g",
                    os.path.join(HERE, "progs", "weak_regions.c"), "-o", exe],
                   env=dict(os.environ, SCALANA_MPI="openmpi"), check=True)
    runs = []
    for p in (1, 4):
        d = os.path.join(a.workdir, f"run-{p}p")
        subprocess.run([os.path.join(a.bindir, "scalana-run"), "-o", d, a.mpirun, "--allow-run-as-root",
                        "--oversubscribe", "-np", str(p), exe], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        runs.append(d)
    rep = os.path.join(a.workdir, "report")
    subprocess.run([os.path.join(a.bindir, "scalana-analyze")] + runs + ["-o", rep, "--no-viewer"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(rep, "report.json")) as f:
        r = json.load(f)
    m = r["scaling_mode"]
    log(f"scaling_mode {m}")
    check(m["mode"] == "weak" and m["source"] == "detected" and not m["uncertain"],
          f"scaling mode {m['mode']} ({m['source']}, uncertain {m['uncertain']}), want weak, detected")
    check(m["work_measure"] == "loop_iterations", f"work_measure {m['work_measure']}")
    check(abs(m["work_slope"] - 1) <= 0.15, f"work_slope {m['work_slope']:.2f}, want 1 +- 0.15")
    rc = r["root_causes"]
    check(rc, "no root cause")
    c = rc[0]
    log(f"#1 {c['category']} at {c.get('location')} processes {c.get('processes')}")
    check(c["category"] == "load_imbalance" and c.get("function") == "regions" and c.get("processes") == [0],
          f"#1 is {c['category']} in {c.get('function')} on {c.get('processes')}, want load_imbalance "
          "in regions on [0]")
    for x in rc + r.get("candidates", []):
        check(not (x["category"] == "non_scalable_computation" and x.get("function") == "elements"),
              f"the element loop is called non-scalable: {x.get('location')}")
    log("PASS")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        log(f"FAIL: {e}")
        sys.exit(1)
