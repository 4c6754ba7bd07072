#!/usr/bin/python3
"""run_mpi_call.py — added cost per MPI call with full calling context, in one
alternating run of these configurations (sampler off, so that only the
wrappers are measured; calls made 14 frames below main):

  none        the program built without us (mpicc -O2 -g), no tool
  fp-none     the same built by scalana-cc --scalana-no-runtime (frame pointers), no tool
  ours-cc     built by scalana-cc: the runtime linked, frame-pointer call paths
  ours-pre    the plain build with the runtime preloaded (a binary we did not build)
  ours-unw    the plain build preloaded, SCALANA_CALLPATH=libunwind (unw_backtrace per call)
  bare-clock  the plain build with a bare PMPI wrapper that reads the clock (bare_wrap.c)
  bare-unw    the same taking unw_backtrace and a hash lookup per call: the libunwind floor

Each repetition runs every configuration once, in rotating order; the
figures are medians over the repetitions of each configuration's per-call
time (each itself the median over batches), and the added cost is the median
of the per-repetition differences against the baseline of the same
repetition (ours-cc against fp-none, the others against none).  The machine
is shared: medians, not means.  Targets: ours-cc <= 0.15 us added per call;
ours-pre <= bare-unw.

Other tools installed outside the repository (mpiP, Caliper) join the series
with --tool NAME=LIBRARY[,VAR=VALUE...]: the library preloaded on the plain
build with those variables set (e.g. --tool mpip=/opt/mpiP/lib/libmpiP.so or
--tool caliper=/opt/caliper/lib64/libcaliper.so,CALI_CONFIG=mpi-report);
never required.

usage: run_mpi_call.py BUILD_DIR MPI BENCH_DIR [--np 2] [--iters 100000] [--repeat 7] [--tool ...]"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

KEYS = ["self_send", "self_allreduce", "pingpong", "allreduce", "halo"]
SHOWN = ["pingpong", "allreduce", "halo", "self_send"]


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


def configs(a, out):
    rt = os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so")
    plain = os.path.join(a.bench, f"bench_mpi_call_{a.mpi}")
    quiet = {"SCALANA_SAMPLER": "none", "SCALANA_QUIET": "1"}
    return {
        "none": (plain, {}),
        "fp-none": (os.path.join(a.bench, f"bench_mpi_call_fp_{a.mpi}"), {}),
        "ours-cc": (os.path.join(a.bench, f"bench_mpi_call_ours_{a.mpi}"),
                    dict(quiet, SCALANA_OUTPUT=os.path.join(out, "cc"))),
        "ours-pre": (plain, dict(quiet, LD_PRELOAD=rt, SCALANA_OUTPUT=os.path.join(out, "pre"))),
        "ours-unw": (plain, dict(quiet, LD_PRELOAD=rt, SCALANA_CALLPATH="libunwind",
                                 SCALANA_OUTPUT=os.path.join(out, "unw"))),
        "bare-clock": (plain, {"LD_PRELOAD": os.path.join(a.bench, f"libbench_bare_clock_{a.mpi}.so")}),
        "bare-unw": (plain, {"LD_PRELOAD": os.path.join(a.bench, f"libbench_bare_unwind_{a.mpi}.so")}),
    }


def run(a, prog, env):
    full = dict(os.environ)
    full.update(env)
    p = subprocess.run(launcher(a.mpi, a.np, env) + [prog, str(a.iters), "14"], env=full, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=600)
    f = p.stdout.split()
    return {k: float(f[f.index(k) + 1]) for k in KEYS}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("mpi")
    ap.add_argument("bench")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--iters", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--tool", action="append", default=[], help="NAME=LIBRARY[,VAR=VALUE...]")
    a = ap.parse_args()
    a.build, a.bench = os.path.abspath(a.build), os.path.abspath(a.bench)
    out = tempfile.mkdtemp(prefix="scalana-mpicall-")
    cfg = configs(a, out)
    for t in a.tool:
        name, spec = t.split("=", 1)
        parts = spec.split(",")
        if not os.path.exists(parts[0]):
            sys.exit(f"run_mpi_call.py: --tool {name}: {parts[0]} not found")
        env = {"LD_PRELOAD": parts[0]}
        env.update(dict(p.split("=", 1) for p in parts[1:]))
        cfg[name] = (os.path.join(a.bench, f"bench_mpi_call_{a.mpi}"), env)
    names = list(cfg)
    res = {n: [] for n in names}
    for i in range(a.repeat):
        order = names[i % len(names):] + names[:i % len(names)]
        for n in order:
            prog, env = cfg[n]
            res[n].append(run(a, prog, env))
    base_of = {n: ("fp-none" if n == "ours-cc" else "none") for n in names}
    print(f"mpi_call [{a.mpi} np={a.np}, calls 14 frames deep, {a.repeat} alternating repetitions, "
          f"medians; shared machine]")
    print(f"  {'config':11s} " + " ".join(f"{k:>22s}" for k in SHOWN))
    for n in names:
        cells = []
        for k in SHOWN:
            t = statistics.median(r[k] for r in res[n])
            if n in ("none",):
                cells.append(f"{t:8.3f} us           ")
            else:
                d = statistics.median(r[k] - b[k] for r, b in zip(res[n], res[base_of[n]]))
                cells.append(f"{t:8.3f} us ({d:+6.3f})")
        print(f"  {n:11s} " + " ".join(f"{c:>22s}" for c in cells))
    print("  (added cost in parentheses: against fp-none for ours-cc, against none otherwise)")
    verdict = []
    for k in SHOWN[:3]:
        d_cc = statistics.median(r[k] - b[k] for r, b in zip(res["ours-cc"], res["fp-none"]))
        d_pre = statistics.median(r[k] - b[k] for r, b in zip(res["ours-pre"], res["none"]))
        d_unw = statistics.median(r[k] - b[k] for r, b in zip(res["bare-unw"], res["none"]))
        verdict.append(f"{k}: ours-cc {d_cc:+.3f} us (target <= 0.15), ours-pre {d_pre:+.3f} us "
                       f"vs bare-unw floor {d_unw:+.3f} us")
    for v in verdict:
        print("  " + v)
    subprocess.run(["rm", "-rf", out])
    return 0


if __name__ == "__main__":
    sys.exit(main())
