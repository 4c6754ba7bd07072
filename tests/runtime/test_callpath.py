#!/usr/bin/python3
"""test_callpath.py — MPI call paths taken by frame pointers and the
libunwind cache (SCALANA_CALLPATH=auto) are exactly those unw_backtrace
gives (SCALANA_CALLPATH=libunwind), for a program built with scalana-cc
(frame pointers, marker note) and for one built without frame pointers and
preloaded; and the contexts are the ones the program makes (progs/callpath.c:
a() and b() share call site, depth and frame sizes; recursion depths 1-3).

usage: test_callpath.py BUILD_DIR MPI PLAIN_BINARY [--threads]"""
import json
import os
import re
import subprocess
import sys
import tempfile

ROUNDS = 300


def dump_paths(build, run):
    d = json.loads(subprocess.check_output([os.path.join(build, "bin", "scalana-dump"), "--json", run]))
    out = []
    for r in d["ranks"]:
        for m in r["mpi"]:
            out.append((r["info"]["world_rank"], m["op"], tuple(m["path"]), m["calls"]))
    return sorted(out)


def run(build, mpi, prog, mode, out, preload, args):
    env = {"SCALANA_OUTPUT": out, "SCALANA_SAMPLER": "none", "SCALANA_QUIET": "1",
           "SCALANA_CALLPATH": mode, "SCALANA_DEBUG": "1"}
    if preload:
        env["LD_PRELOAD"] = os.path.join(build, "lib", f"libscalana-{mpi}.so")
    if mpi == "openmpi":
        cmd = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", "2"]
        for k in env:
            cmd += ["-x", k]
    else:
        cmd = ["mpirun.mpich", "-n", "2"]
        for k, v in env.items():
            cmd += ["-genv", k, v]
    full = dict(os.environ)
    full.update(env)
    p = subprocess.run(cmd + [prog] + args, env=full, check=True, timeout=120, text=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    m = re.search(r"rank 0 call paths on this thread: (\d+) by frame pointers \((\d+) of them with "
                  r"cached libunwind frames, (\d+) cache fills\), (\d+) by unw_backtrace", p.stderr)
    if not m:
        sys.exit(f"FAIL: no call-path debug line from rank 0:\n{p.stderr}")
    return dump_paths(build, out), tuple(int(x) for x in m.groups())


def check(build, mpi, prog, preload, args, tmp, label):
    nthreads = 2 if args else 1
    got, how = {}, {}
    for mode in ("auto", "libunwind", "nocache"):
        got[mode], how[mode] = run(build, mpi, prog, mode, os.path.join(tmp, f"{label}-{mode}"), preload, args)
    fp, cached, fills, unwound = how["auto"]
    total = fp + unwound
    # the main thread's ~1200 paths: all but a few (first sight of each
    # shape) without unw_backtrace; a binary we did not build through the cache
    if unwound > 0.05 * total or fills > 20:
        sys.exit(f"FAIL {label}: auto took {unwound} of {total} paths with unw_backtrace, {fills} fills")
    if preload and cached < 0.9 * total:
        sys.exit(f"FAIL {label}: only {cached} of {total} paths from the libunwind cache")
    if how["libunwind"][0] != 0:
        sys.exit(f"FAIL {label}: SCALANA_CALLPATH=libunwind still walked frame pointers")
    for mode in ("auto", "nocache"):
        if got[mode] != got["libunwind"]:
            for x, y in zip(got[mode], got["libunwind"]):
                if x != y:
                    print(f"{label} {mode}: {x}\n{label} libunwind: {y}")
            sys.exit(f"FAIL {label}: SCALANA_CALLPATH={mode} paths differ from unw_backtrace's")
    sends = [c for c in got["auto"] if c[0] == 0 and c[1] == "MPI_Send"]
    # a(), b(), recursion depth 1, 2, 3: five distinct paths per thread
    # (the threads' paths differ below the thread function; each thread has
    # its own contexts anyway)
    if len(sends) != 5 * nthreads:
        sys.exit(f"FAIL {label}: {len(sends)} MPI_Send contexts on rank 0, want {5 * nthreads}: {sends}")
    calls = sorted(c[3] for c in sends)
    want = sorted([ROUNDS, ROUNDS, ROUNDS // 3, ROUNDS // 3, ROUNDS // 3] * nthreads)
    if calls != want:
        sys.exit(f"FAIL {label}: MPI_Send calls per context {calls}, want {want}")
    depth = {len(c[2]) for c in sends}
    if len(depth) < 3:
        sys.exit(f"FAIL {label}: recursion depths not told apart: path lengths {sorted(depth)}")
    print(f"ok {label}: {len(got['auto'])} contexts, equal for auto/nocache/libunwind; auto: "
          f"{fp} of {total} paths by frame pointers ({cached} with cached libunwind frames, {fills} fills)")


def main():
    build, mpi, plain = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    args = ["t"] if "--threads" in sys.argv else []
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs", "callpath.c")
    with tempfile.TemporaryDirectory(prefix="scalana-callpath-") as tmp:
        ours = os.path.join(tmp, "callpath_ours")
        env = dict(os.environ, SCALANA_MPI=mpi)
        subprocess.run([os.path.join(build, "bin", "scalana-cc"), "-O2", "-g", src, "-o", ours],
                       check=True, env=env)
        notes = subprocess.run(["readelf", "-n", ours], capture_output=True, text=True).stdout
        if "Scalana" not in notes or "0x00005046" not in notes:
            sys.exit("FAIL: scalana-cc did not link the frame-pointer marker note")
        notes = subprocess.run(["readelf", "-n", plain], capture_output=True, text=True).stdout
        if "Scalana" in notes:
            sys.exit("FAIL: the plain build carries the marker note")
        check(build, mpi, ours, False, args, tmp, "scalana-cc")
        check(build, mpi, plain, True, args, tmp, "preloaded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
