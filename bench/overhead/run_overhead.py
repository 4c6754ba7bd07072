#!/usr/bin/python3
"""run_overhead.py — overhead of the runtime on a compute-and-communicate
program: runs it alternately without and with the runtime (default sampler
and rate), REPEAT pairs, the order inside a pair alternating (ABBA: drift in
the machine's load cancels), and prints the median ratios of wall and CPU
time (target <= 1.02) with their spread and the load average before and
after, then the profile size of a run twice as long (target: the same within
5 %: nothing grows with run time).

usage: run_overhead.py BUILD_DIR MPI PROGRAM [--np 2] [--iters 2000] [--repeat 5]"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def launcher(mpi, np, env):
    if mpi == "openmpi":
        cmd = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", str(np)]
        for k in env:
            cmd += ["-x", k]
        return cmd
    cmd = ["mpirun.mpich", "-n", str(np)]
    for k, v in env.items():
        cmd += ["-genv", k, v]
    return cmd


def run(a, iters, with_rt, outdir):
    env = {}
    if with_rt:
        env = {"LD_PRELOAD": os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so"),
               "SCALANA_OUTPUT": outdir, "SCALANA_QUIET": "1"}
    full = dict(os.environ)
    full.update(env)
    p = subprocess.run(launcher(a.mpi, a.np, env) + [a.prog, str(iters)], env=full, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600)
    f = p.stdout.split()
    return float(f[f.index("wall") + 1]), float(f[f.index("cpu") + 1])


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def spread(v):
    """min, quartiles and max of the ratios, as text."""
    q = statistics.quantiles(v, n=4) if len(v) >= 2 else [v[0]] * 3
    return f"min {min(v):.3f} q1 {q[0]:.3f} q3 {q[2]:.3f} max {max(v):.3f}"


def profile_bytes(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".sclp"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("mpi")
    ap.add_argument("prog")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    tmp = tempfile.mkdtemp(prefix="scalana-overhead-")
    wr, cr = [], []
    load0 = loadavg()
    for i in range(a.repeat):
        d = os.path.join(tmp, f"r{i}")
        if i % 2 == 0:
            w0, c0 = run(a, a.iters, False, None)
            w1, c1 = run(a, a.iters, True, d)
        else:
            w1, c1 = run(a, a.iters, True, d)
            w0, c0 = run(a, a.iters, False, None)
        wr.append(w1 / w0)
        cr.append(c1 / c0)
        shutil.rmtree(d, ignore_errors=True)
    print(f"overhead [{a.mpi} np={a.np} iters={a.iters}]: wall ratio median {statistics.median(wr):.4f} "
          f"(all {' '.join(f'{x:.3f}' for x in wr)}), cpu ratio median {statistics.median(cr):.4f} "
          f"(all {' '.join(f'{x:.3f}' for x in cr)}); target <= 1.02")
    print(f"spread: wall {spread(wr)}; cpu {spread(cr)}; load average {load0} before, {loadavg()} after")
    d1, d2 = os.path.join(tmp, "short"), os.path.join(tmp, "long")
    run(a, a.iters, True, d1)
    run(a, 2 * a.iters, True, d2)
    b1, b2 = profile_bytes(d1), profile_bytes(d2)
    print(f"profile size: {b1} B for {a.iters} iterations, {b2} B for {2 * a.iters} "
          f"({100.0 * (b2 - b1) / b1:+.1f} %); target within 5 %")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
