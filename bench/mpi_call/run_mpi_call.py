#!/usr/bin/python3
"""run_mpi_call.py — added cost per MPI call with full calling context:
runs mpi_call alternately without and with the runtime (sampler off, so that
only the wrappers are measured), REPEAT times, and prints the median added
microseconds per call (target <= 0.3 us).

usage: run_mpi_call.py BUILD_DIR MPI PROGRAM [--np 2] [--iters 200000] [--repeat 5]"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

KEYS = ["self_send", "self_allreduce", "pingpong", "allreduce"]


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


def run(a, with_rt, out):
    env = {}
    if with_rt:
        env = {"LD_PRELOAD": os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so"),
               "SCALANA_OUTPUT": out, "SCALANA_SAMPLER": "none", "SCALANA_QUIET": "1"}
    full = dict(os.environ)
    full.update(env)
    p = subprocess.run(launcher(a.mpi, a.np, env) + [a.prog, str(a.iters)], env=full, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600)
    f = p.stdout.split()
    return {k: float(f[f.index(k) + 1]) for k in KEYS}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("mpi")
    ap.add_argument("prog")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--iters", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    out = tempfile.mkdtemp(prefix="scalana-mpicall-")
    added = {k: [] for k in KEYS}
    base = {k: [] for k in KEYS}
    for i in range(a.repeat):
        r0 = run(a, False, None)
        r1 = run(a, True, os.path.join(out, f"r{i}"))
        for k in KEYS:
            added[k].append(r1[k] - r0[k])
            base[k].append(r0[k])
    for k in KEYS:
        print(f"mpi_call [{a.mpi} np={a.np}] {k:15s}: base {statistics.median(base[k]):8.3f} us, "
              f"added {statistics.median(added[k]):+7.3f} us per call (median of {a.repeat}); target <= 0.3")
    subprocess.run(["rm", "-rf", out])
    return 0


if __name__ == "__main__":
    sys.exit(main())
