#!/usr/bin/python3
"""test_omp_context.py — MPI calls from an OpenMP team's threads keep the
fork's calling context (runtime/threads/rt_omp_path.c): progs/omp_mpi.c,
built with the MPI library's mpicc -fopenmp (gcc, libgomp: the runtime's
GOMP_parallel wrapper) and, where built, with scalana-cc -fopenmp (libomp:
OMPT), runs at 2 processes with 2 threads under MPI_THREAD_MULTIPLE.  Per
rank: thread 1 (the worker) has MPI_Sendrecv contexts with 5 and 3 calls
whose call paths are exactly thread 0's for the same calls (the two call
sites of exchange() in main), with no frame of the runtime (nor, in the gcc
build, of libgomp, whose fork call the wrapper stands for); with SCALANA_GOMP=off the gcc build's worker has one context of 8
calls under its thread start (the check can fail).  The program's output is
its own.

usage: test_omp_context.py BUILD_DIR MPI"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from mpitest import launcher

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "progs", "omp_mpi.c")


def fail(msg):
    sys.exit("FAIL: " + msg)


def contexts(dump, rank):
    """{thread: {path tuple: calls}} of rank's MPI_Sendrecv contexts."""
    r = dump["ranks"][rank]
    cct = r["cct"]
    out = {}
    for m in r["mpi"]:
        if m["op"] != "MPI_Sendrecv":
            continue
        n = m["node"]
        while cct[n]["parent"] != -1 and cct[n]["kind"] != "root":
            n = cct[n]["parent"]
        th = cct[n]["address"]
        out.setdefault(th, {})[tuple(m["path"])] = m["calls"]
    return out


def run(build, mpi, exe, tmp, tag, extra=None):
    rd = os.path.join(tmp, "run-" + tag)
    env = {"SCALANA_OUTPUT": rd, "SCALANA_QUIET": "1", "OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive",
           "LD_PRELOAD": os.path.join(build, "lib", "libscalana-%s.so" % mpi)}
    env.update(extra or {})
    cmd = launcher(mpi, 2, env)
    if mpi == "openmpi":
        cmd[1:1] = ["--bind-to", "none"]
    p = subprocess.run(cmd + [exe], env=dict(os.environ, **env), text=True, capture_output=True, timeout=180)
    if p.returncode != 0 or "omp_mpi done" not in p.stdout:
        if "no-multiple" in p.stdout:
            print("SKIP: %s has no MPI_THREAD_MULTIPLE" % mpi)
            sys.exit(77)
        fail("%s: exit %d, output %r\n%s" % (tag, p.returncode, p.stdout, p.stderr[-2000:]))
    d = subprocess.run([os.path.join(build, "bin", "scalana-dump"), "--json", rd], text=True, capture_output=True)
    if d.returncode != 0:
        fail("%s: scalana-dump exited %d: %s" % (tag, d.returncode, d.stderr))
    return json.loads(d.stdout)


def check(dump, tag):
    for rank in range(2):
        ctx = contexts(dump, rank)
        master, worker = ctx.get(0, {}), ctx.get(1, {})
        if sorted(master.values()) != [3, 5]:
            fail("%s rank %d: the master's Sendrecv contexts have %s calls, want 3 and 5 (two call sites)"
                 % (tag, rank, sorted(master.values())))
        if worker != master:
            fail("%s rank %d: the worker's Sendrecv contexts differ from the master's:\n  worker %s\n  master %s"
                 % (tag, rank, worker, master))
        # libomp's frame that invokes the body stays, as on the master's path;
        # the runtime's own frames (the libgomp wrapper's) never
        for path in worker:
            if any("libscalana" in f or (tag == "gcc" and "libgomp" in f) for f in path):
                fail("%s rank %d: a worker path holds the runtime's or libgomp's frames: %s" % (tag, rank, path))
    print("%s: both ranks' worker contexts are the master's (%s calls)" % (tag, sorted(master.values())))


def main():
    build, mpi = os.path.abspath(sys.argv[1]), sys.argv[2]
    mpicc = shutil.which("mpicc." + mpi)
    if not mpicc:
        print("SKIP: mpicc.%s not found" % mpi)
        return 77
    with tempfile.TemporaryDirectory(prefix="scalana-ompctx-") as tmp:
        builds = [("gcc", mpicc, {})]
        scc = os.path.join(build, "bin", "scalana-cc")
        if os.path.exists(scc):
            builds.append(("scalana-cc", scc, {"SCALANA_MPI": mpi}))
        for tag, cc, cenv in builds:
            exe = os.path.join(tmp, "omp_mpi-" + tag)
            c = subprocess.run([cc, "-O2", "-g", "-fopenmp", SRC, "-o", exe], env=dict(os.environ, **cenv),
                               text=True, capture_output=True)
            if c.returncode != 0:
                if tag == "scalana-cc" and "libomp" in c.stderr:
                    print("scalana-cc: %s" % c.stderr.strip().splitlines()[-1])
                    continue
                fail("%s build exited %d: %s" % (tag, c.returncode, c.stderr))
            check(run(build, mpi, exe, tmp, tag), tag)
        # the gcc build with the wrapper off: the worker's calls lose their fork
        off = contexts(run(build, mpi, os.path.join(tmp, "omp_mpi-gcc"), tmp, "gcc-off", {"SCALANA_GOMP": "off"}), 0)
        if off.get(1) == off.get(0):
            fail("with SCALANA_GOMP=off the worker's contexts are still the master's: the check cannot fail")
        print("gcc with SCALANA_GOMP=off: the worker has %s" % sorted(off.get(1, {}).values()))
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
