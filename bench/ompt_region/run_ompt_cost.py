#!/usr/bin/python3
"""run_ompt_cost.py — what measuring OpenMP through OMPT costs (runtime/threads/rt_ompt.c):
ompt_region.c built once with scalana-cc -fopenmp (LLVM's libomp) runs at 1
process, 2 threads, in three ways, alternating (ABC, then CBA, ... REPEAT
rounds; drift in the machine's load cancels): without the runtime, under it
with SCALANA_OMPT=off (sampling, no tool) and under it with OMPT.  Units of
50 us of CPU per thread (loop steps calibrated once, then the same in every
run): `regions` (fork, work, a barrier, join) and `barriers` (work and a
barrier inside one region), and `single` (regions of a team of 1: the
master's callbacks alone, no thread waiting on another).  Idle threads sleep (OMP_WAIT_POLICY=passive),
so the process's CPU time is the work, the OpenMP runtime's and the tool's
own, whatever else runs on the machine.  Prints the median added CPU time
per unit (and the wall time, which a loaded machine makes noisy) in
microseconds and as a fraction of 50 us, OMPT against the runtime without it
(the tool's own cost; target <= 1 %) and against no runtime, and the same
from each configuration's best round (least disturbed by other jobs).  Last,
the direct figure: with SCALANA_DEBUG the callbacks time themselves (two TSC
reads each, included), and their time per unit is printed, which other jobs
on the machine hardly disturb.

Then the libgomp leg: the same program built with the MPI's own mpicc
-fopenmp (gcc, libgomp, no OMPT), `regions` and `single` under the runtime
with SCALANA_GOMP=off (fork calls passed through) and with its GOMP_parallel
wrapper (runtime/threads/rt_gomp.c: the master's path at each fork, the
body run through a wrapper on every thread), alternating; the wrapper's
added CPU time per region against 50 us (target <= 1 %).

usage: run_ompt_cost.py BUILD_DIR MPI [--repeat 7] [--units 20000]"""
import argparse
import os
import re
import statistics
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "overhead"))
from run_overhead import launcher  # noqa: E402  (the same mpirun lines)

STEP_S = 50e-6


def run(a, exe, mode, how, outdir, steps=None, debug=False):
    env = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"}
    if how != "plain":
        env.update({"LD_PRELOAD": os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so"),
                    "SCALANA_OUTPUT": outdir, "SCALANA_QUIET": "1"})
    if how == "rt":
        env["SCALANA_OMPT"] = "off"
    if how == "gompoff":
        env["SCALANA_GOMP"] = "off"
    if debug:
        env["SCALANA_DEBUG"] = "1"
    full = dict(os.environ)
    full.update(env)
    cmd = launcher(a.mpi, 1, env)
    if a.mpi == "openmpi":
        cmd[1:1] = ["--bind-to", "none"]
    args = [mode] if steps is None else [mode, str(a.units), str(steps)]
    p = subprocess.run(cmd + [exe] + args, env=full, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE if debug else subprocess.DEVNULL, timeout=600, cwd=outdir)
    if p.returncode:
        sys.exit(f"{exe} {mode} failed with status {p.returncode}")
    if debug:
        m = re.search(r"OMPT: (\d+) callbacks timed, \d+ ns each on average \(([0-9.]+) s in all\); "
                      r"(\d+) forks, (\d+) ns each, (\d+) of them seen before", p.stderr)
        if not m:
            sys.exit(f"no OMPT debug line from {exe} {mode}:\n{p.stderr}")
        return (int(m.group(1)) / a.units, float(m.group(2)) / a.units, int(m.group(3)) / a.units,
                int(m.group(4)), int(m.group(5)) / max(1, int(m.group(3))))
    f = p.stdout.split()
    if steps is None:
        return int(f[f.index("steps") + 1])
    return float(f[f.index("wall") + 1]) / a.units, float(f[f.index("cpu") + 1]) / a.units


def alternating(a, exe, mode, hows, tmp, steps, tag):
    """a.repeat rounds of mode in each way of hows, the order reversed every
    other round (drift in the machine's load cancels): {how: [(wall, cpu) per unit]}."""
    t = {how: [] for how in hows}
    for k in range(a.repeat):
        for how in (hows if k % 2 == 0 else hows[::-1]):
            d = os.path.join(tmp, f"{tag}{mode}-{how}-{k}")
            os.makedirs(d)
            t[how].append(run(a, exe, mode, how, d, steps))
    return t


def added(t, on, off, i):
    """Median per-round and best-round difference of clock i, way on against way off."""
    return (statistics.median(x[i] - y[i] for x, y in zip(t[on], t[off])),
            min(x[i] for x in t[on]) - min(y[i] for y in t[off]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("mpi")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--units", type=int, default=20000)
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    print(f"OMPT cost, {a.mpi}, 1 process x 2 threads, {a.units} units of 50 us, {a.repeat} rounds, load "
          f"{open('/proc/loadavg').read().split()[0]}")
    with tempfile.TemporaryDirectory(prefix="scalana-omptcost-") as tmp:
        exe = os.path.join(tmp, "ompt_region")
        subprocess.run([os.path.join(a.build, "bin", "scalana-cc"), "-O2", "-g", "-fopenmp",
                        os.path.join(HERE, "ompt_region.c"), "-o", exe],
                       env=dict(os.environ, SCALANA_MPI=a.mpi), check=True)
        steps = run(a, exe, "calibrate", "plain", tmp)
        print(f"{steps} loop steps = 50 us of CPU")
        worst = 0.0
        for mode in ("regions", "barriers", "single"):
            t = alternating(a, exe, mode, ["plain", "rt", "ompt"], tmp, steps, "")
            unit = "barrier" if mode == "barriers" else "region"
            # per round: the added time per unit, OMPT against the runtime without it and against none
            for i, clock in ((1, "CPU"), (0, "wall")):
                tool, best = added(t, "ompt", "rt", i)
                whole = added(t, "ompt", "plain", i)[0]
                base = statistics.median(p[i] for p in t["plain"])
                print(f"{mode:8s} {clock:4s} {base * 1e6:7.2f} us per {unit} without the runtime; OMPT adds "
                      f"{tool * 1e6:+.3f} us = {100 * tool / STEP_S:+.2f} % of 50 us (best rounds: "
                      f"{best * 1e6:+.3f} us = {100 * best / STEP_S:+.2f} %; runtime with OMPT against none: "
                      f"{whole * 1e6:+.3f} us = {100 * whole / STEP_S:+.2f} %)")
                if clock == "CPU":
                    worst = max(worst, tool / STEP_S)
        print(f"target <= 1 % of 50 us per region and per barrier (CPU medians): "
              f"{'ok' if worst <= 0.01 else 'OVER'} ({100 * worst:.2f} %)")
        direct = 0.0
        for mode in ("regions", "barriers", "single"):
            d = os.path.join(tmp, f"{mode}-debug")
            os.makedirs(d)
            calls, secs, forks, fork_ns, seen = run(a, exe, mode, "ompt", d, steps, debug=True)
            unit = "barrier" if mode == "barriers" else "region"
            fork = (f" (the fork {fork_ns} ns of it, {100 * seen:.1f} % of forks seen before)"
                    if forks >= 0.5 else "")
            print(f"{mode:8s} direct: {calls:.1f} callbacks per {unit}, {secs * 1e6:.3f} us in them = "
                  f"{100 * secs / STEP_S:.2f} % of 50 us{fork}")
            direct = max(direct, secs / STEP_S)
        print(f"target <= 1 % of 50 us (direct): {'ok' if direct <= 0.01 else 'OVER'} ({100 * direct:.2f} %)")
        gomp_leg(a, tmp)


def gomp_leg(a, tmp):
    """libgomp: the runtime's fork wrapper against the runtime without it."""
    mpicc = shutil.which("mpicc." + a.mpi)
    if not mpicc:
        print(f"libgomp leg: mpicc.{a.mpi} not found, not run")
        return
    exe = os.path.join(tmp, "gomp_region")
    subprocess.run([mpicc, "-O2", "-g", "-fopenmp", os.path.join(HERE, "ompt_region.c"), "-o", exe], check=True)
    steps = run(a, exe, "calibrate", "plain", tmp)
    worst = 0.0
    for mode in ("regions", "single"):
        t = alternating(a, exe, mode, ["gompoff", "gomp"], tmp, steps, "gomp-")
        for i, clock in ((1, "CPU"), (0, "wall")):
            add, best = added(t, "gomp", "gompoff", i)
            base = statistics.median(o[i] for o in t["gompoff"])
            print(f"libgomp {mode:8s} {clock:4s} {base * 1e6:7.2f} us per region with SCALANA_GOMP=off; the fork "
                  f"wrapper adds {add * 1e6:+.3f} us = {100 * add / STEP_S:+.2f} % of 50 us (best rounds: "
                  f"{best * 1e6:+.3f} us = {100 * best / STEP_S:+.2f} %)")
            if clock == "CPU":
                worst = max(worst, add / STEP_S)
    print(f"libgomp target <= 1 % of 50 us per region (CPU medians): {'ok' if worst <= 0.01 else 'OVER'} "
          f"({100 * worst:.2f} %)")


if __name__ == "__main__":
    main()
