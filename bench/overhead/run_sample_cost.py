#!/usr/bin/python3
"""run_sample_cost.py — what one sample costs here and the rate each sampler
obtains: one rank does fixed work 14 frames below main, in one alternating
series of

  none            no tool, no timer
  floor-<kind>    the sampler's timer with a handler that only counts (sample_cost.c)
  ours-<kind>     the runtime preloaded, SCALANA_SAMPLER=<kind>

for kind cputime (POSIX CPU-time timer per thread) and taskclock (perf_event
task clock) at each rate asked.  Cost per sample = (CPU time - CPU time of
none) / signals, the median over repetitions; the floor's is the timer and
signal delivery alone, ours minus the floor is the runtime's handler
(unwinding the interrupted path, charging the calling-context tree).  The
rate obtained = signals / CPU second.  The machine is shared: medians.

usage: run_sample_cost.py BUILD_DIR MPI PROGRAM [--hz 200,1000,5000] [--repeat 5] [--work 2000]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(a, env, outdir=None):
    cmd = (["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "1"] +
           sum((["-x", k] for k in env), []) if a.mpi == "openmpi" else
           ["mpirun.mpich", "-n", "1"] + sum((["-genv", k, v] for k, v in env.items()), []))
    full = dict(os.environ)
    full.update(env)
    p = subprocess.run(cmd + [a.prog, str(a.work)], env=full, text=True, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, timeout=600)
    f = p.stdout.split()
    cpu, sig = float(f[f.index("cpu") + 1]), int(f[f.index("signals") + 1])
    if outdir:
        d = json.loads(subprocess.check_output([os.path.join(a.build, "bin", "scalana-dump"), "--json", outdir]))
        sig = d["ranks"][0]["info"]["samples_taken"]
    return cpu, sig


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("mpi")
    ap.add_argument("prog")
    ap.add_argument("--hz", default="200,1000,5000")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--work", type=int, default=2000)
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    rt = os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so")
    tmp = tempfile.mkdtemp(prefix="scalana-samplecost-")
    cfg = {"none": {}}
    for hz in a.hz.split(","):
        for kind in ("cputime", "taskclock"):
            cfg[f"floor-{kind}@{hz}"] = {"BENCH_FLOOR": kind, "BENCH_FLOOR_HZ": hz}
            cfg[f"ours-{kind}@{hz}"] = {"LD_PRELOAD": rt, "SCALANA_SAMPLER": kind, "SCALANA_FREQ": hz,
                                        "SCALANA_QUIET": "1"}
    names = list(cfg)
    res = {n: [] for n in names}
    for i in range(a.repeat):
        for n in names[i % len(names):] + names[:i % len(names)]:
            env = dict(cfg[n])
            out = None
            if "LD_PRELOAD" in env:
                out = os.path.join(tmp, f"{n}-{i}")
                env["SCALANA_OUTPUT"] = out
            res[n].append(run(a, env, out))
    base = statistics.median(c for c, _ in res["none"])
    print(f"sample_cost [{a.mpi}, 1 rank, work 14 frames deep, {a.repeat} alternating repetitions, "
          f"medians; shared machine]: none {base:.3f} s CPU")
    print(f"  {'config':22s} {'CPU s':>8s} {'signals':>8s} {'rate Hz':>8s} {'us/sample':>10s}")
    for n in names[1:]:
        cpu = statistics.median(c for c, _ in res[n])
        sig = statistics.median(s for _, s in res[n])
        per = statistics.median((c - b) / s * 1e6 for (c, s), (b, _) in zip(res[n], res["none"]) if s > 0) \
            if sig > 0 else float("nan")
        print(f"  {n:22s} {cpu:8.3f} {sig:8.0f} {sig / cpu if cpu > 0 else 0:8.0f} {per:10.2f}")
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
