#!/usr/bin/python3
"""run_work_cost.py — what the loop work counters cost: each program is built
twice with scalana-cc (-O2 -g), with the counters and with
SCALANA_WORK_COUNTERS=0, and both builds run under the runtime alternately,
REPEAT pairs in ABBA order (drift in the machine's load cancels); prints the
median ratio counters / no counters of the loop's wall and CPU time (target
<= 1.01 on overhead.c, a compute-and-communicate sweep) with the spread.
small_loops.c is the worst case (an inner loop of 3 iterations): its ratio is
printed, not held to the target.

An outside program (miniFE, ...) is measured the same way with --pair
ON_EXE OFF_EXE -- ARGS..., built by its own makefile twice; its times are the
runs' wall clocks.

usage: run_work_cost.py BUILD_DIR MPI [--np 2] [--repeat 5]
       run_work_cost.py BUILD_DIR MPI --pair ON OFF [--np N] -- ARGS..."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "overhead"))
from run_overhead import launcher, spread  # noqa: E402  (the same mpirun lines and ratio spread)


def run(a, exe, args, outdir, own_times):
    env = {"LD_PRELOAD": os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so"),
           "SCALANA_OUTPUT": outdir, "SCALANA_QUIET": "1"}
    full = dict(os.environ)
    full.update(env)
    t0 = time.monotonic()
    p = subprocess.run(launcher(a.mpi, a.np, env) + [exe] + args, env=full, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=900, cwd=outdir)
    t = time.monotonic() - t0
    if p.returncode:
        sys.exit(f"{exe} failed with status {p.returncode}")
    if not own_times:
        return t, t
    f = p.stdout.split()
    return float(f[f.index("wall") + 1]), float(f[f.index("cpu") + 1])


def measure(a, name, on, off, args, own_times, target):
    wr, cr = [], []
    with tempfile.TemporaryDirectory(prefix="scalana-workcost-") as tmp:
        for k in range(a.repeat):
            order = [(on, "on"), (off, "off")] if k % 2 == 0 else [(off, "off"), (on, "on")]
            res = {}
            for exe, tag in order:
                d = os.path.join(tmp, f"{tag}{k}")
                os.makedirs(d)
                res[tag] = run(a, exe, args, d, own_times)
            wr.append(res["on"][0] / res["off"][0])
            cr.append(res["on"][1] / res["off"][1])
    w, c = statistics.median(wr), statistics.median(cr)
    verdict = "" if target is None else ("  (target <= %.2f: %s)" % (target, "ok" if w <= target else "OVER"))
    print(f"{name:12s} wall ratio {w:.3f} [{spread(wr)}]  cpu ratio {c:.3f} [{spread(cr)}]{verdict}")
    return w


def build(a, src, out, counters):
    env = dict(os.environ, SCALANA_MPI=a.mpi, SCALANA_WORK_COUNTERS="1" if counters else "0")
    subprocess.run([os.path.join(a.build, "bin", "scalana-cc"), "-O2", "-g", src, "-o", out],
                   env=env, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("mpi")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pair", nargs=2, metavar=("ON", "OFF"))
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    print(f"loop work counters, {a.mpi}, {a.np} processes, {a.repeat} ABBA pairs, load "
          f"{open('/proc/loadavg').read().split()[0]}")
    if a.pair:
        measure(a, os.path.basename(a.pair[0]), os.path.abspath(a.pair[0]),
                os.path.abspath(a.pair[1]), a.args, False, 1.01)
        return
    with tempfile.TemporaryDirectory(prefix="scalana-workbuild-") as tmp:
        progs = [("overhead", os.path.join(HERE, "..", "overhead", "overhead.c"), ["1500"], 1.01),
                 ("small_loops", os.path.join(HERE, "small_loops.c"), ["1500"], None)]
        for name, src, args, target in progs:
            on, off = os.path.join(tmp, name + "-on"), os.path.join(tmp, name + "-off")
            build(a, src, on, True)
            build(a, src, off, False)
            measure(a, name, on, off, args, True, target)


if __name__ == "__main__":
    main()
