#!/usr/bin/python3
"""run_ompt_cost.py — what measuring OpenMP through OMPT costs (runtime/rt_ompt.c):
ompt_region.c built once with scalana-cc -fopenmp (LLVM's libomp) runs at 1
process, 2 threads, in three ways, alternating (ABC, then CBA, ... REPEAT
rounds; drift in the machine's load cancels): without the runtime, under it
with SCALANA_OMPT=off (sampling, no tool) and under it with OMPT.  Units of
50 us: `regions` (fork, 50 us, a barrier, join) and `barriers` (50 us and a
barrier inside one region).  Prints the median added time per unit in
microseconds and as a fraction of 50 us, OMPT against the runtime without it
(the tool's own cost; target <= 1 %) and against no runtime.

usage: run_ompt_cost.py BUILD_DIR MPI [--repeat 7] [--units 20000]"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "overhead"))
from run_overhead import launcher  # noqa: E402  (the same mpirun lines)

STEP_S = 50e-6


def run(a, exe, mode, how, outdir):
    env = {"OMP_NUM_THREADS": "2"}
    if how != "plain":
        env.update({"LD_PRELOAD": os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so"),
                    "SCALANA_OUTPUT": outdir, "SCALANA_QUIET": "1"})
    if how == "rt":
        env["SCALANA_OMPT"] = "off"
    full = dict(os.environ)
    full.update(env)
    cmd = launcher(a.mpi, 1, env)
    if a.mpi == "openmpi":
        cmd[1:1] = ["--bind-to", "none"]
    p = subprocess.run(cmd + [exe, mode, str(a.units)], env=full, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, timeout=600, cwd=outdir)
    if p.returncode:
        sys.exit(f"{exe} {mode} failed with status {p.returncode}")
    f = p.stdout.split()
    return float(f[f.index("seconds") + 1]) / a.units


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
        worst = 0.0
        for mode in ("regions", "barriers"):
            t = {"plain": [], "rt": [], "ompt": []}
            for k in range(a.repeat):
                order = ["plain", "rt", "ompt"] if k % 2 == 0 else ["ompt", "rt", "plain"]
                for how in order:
                    d = os.path.join(tmp, f"{mode}-{how}-{k}")
                    os.makedirs(d)
                    t[how].append(run(a, exe, mode, how, d))
            # per round: the added time per unit, OMPT against the runtime without it and against none
            tool = statistics.median(o - r for o, r in zip(t["ompt"], t["rt"]))
            whole = statistics.median(o - p for o, p in zip(t["ompt"], t["plain"]))
            base = statistics.median(t["plain"])
            unit = mode[:-1]
            print(f"{mode:8s} {base * 1e6:7.2f} us per {unit} without the runtime; OMPT adds "
                  f"{tool * 1e6:+.3f} us per {unit} = {100 * tool / STEP_S:+.2f} % of 50 us "
                  f"(runtime with OMPT against none: {whole * 1e6:+.3f} us = {100 * whole / STEP_S:+.2f} %)")
            worst = max(worst, tool / STEP_S)
        print(f"target <= 1 % of 50 us per region and per barrier: {'ok' if worst <= 0.01 else 'OVER'} "
              f"({100 * worst:.2f} %)")


if __name__ == "__main__":
    main()
