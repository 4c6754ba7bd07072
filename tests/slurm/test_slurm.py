#!/usr/bin/python3
"""test_slurm.py — ScalAna under Slurm's srun, on a real single-node cluster
this test starts and stops (slurm_cluster.py: munged, slurmctld, slurmd).

  - a planted example (examples/load_imbalance.c, built with MPICH's mpicc)
    profiled at 1, 2 and 4 processes through `scalana-run srun --mpi=pmi2 -n N
    ./app`, and once more at 2 through `srun --export=ALL,LD_PRELOAD=... ./app`:
    every run has every rank's profile (scalana-dump);
  - the 1, 2, 4 series analysed serially names the planted loop as #1 (the
    ground truth the example prints);
  - the parallel analyzer `srun -n 2 scalana-analyze` on the same series gives
    the serial report (tests/analyzer/parallel_equal.py's comparison): under
    --mpi=pmix with the Open MPI module, and under --mpi=pmi2 with the MPICH one.

Which MPI works with which srun plugin here (Debian 12, slurm-wlm 22.05): MPICH
4.0 with --mpi=pmi2 (its PMI client), Open MPI 4.1 with --mpi=pmix (not pmi2).

usage: test_slurm.py --build BUILD --source-dir SRC --work DIR
Exit status: 0 pass, 1 fail, 77 skip (Slurm cannot start here: not root, not
installed, a daemon fails; the reason is printed)."""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "analyzer"))
import slurm_cluster  # noqa: E402
import parallel_equal  # noqa: E402

SKIP = 77
FAIL = []
TRUTH = "SCALANA_GROUND_TRUTH "


def check(cond, msg):
    if not cond:
        FAIL.append(msg)
    return cond


def ranks_in(a, rundir, n):
    p = subprocess.run([os.path.join(a.build, "bin", "scalana-dump"), "--json", rundir],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not check(p.returncode == 0, f"scalana-dump {rundir}: {p.stderr.strip()}"):
        return
    d = json.loads(p.stdout)
    got = sorted(x["info"]["world_rank"] for x in d["ranks"])
    check(got == list(range(n)), f"{rundir}: ranks {got}, expected 0..{n - 1}")
    for x in d["ranks"]:
        ops = {c["op"] for c in x["mpi"]}
        check("MPI_Allreduce" in ops, f"{rundir}: rank {x['info']['world_rank']} recorded no MPI_Allreduce")


def truth_of(stdout):
    for line in stdout.splitlines():
        if line.startswith(TRUTH):
            return json.loads(line[len(TRUTH):])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    app = os.path.join(a.build, "examples", "gcc-mpich", "load_imbalance")
    if not os.path.exists(app):
        print(f"SKIP: {app} not built")
        return SKIP
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    bindir = os.path.join(a.build, "bin")
    run_tool = os.path.join(bindir, "scalana-run")
    analyze = os.path.join(bindir, "scalana-analyze")
    preload = os.path.join(a.build, "lib", "libscalana-mpich.so")
    try:
        cluster = slurm_cluster.Cluster(os.path.join(a.work, "slurm"))
        cluster.start()
    except slurm_cluster.Unavailable as e:
        print(f"SKIP: Slurm cannot start here: {e}")
        return SKIP
    try:
        runs, truth = [], None
        for n in (1, 2, 4):
            rd = os.path.join(a.work, f"run-{n}p")
            p = cluster.run([run_tool, "srun", "--mpi=pmi2", "-n", str(n), app, "--scale=0.5"],
                            env={"SCALANA_OUTPUT": rd}, cwd=a.work)
            if not check(p.returncode == 0, f"scalana-run srun -n {n}: exit {p.returncode}: {p.stderr[-800:]}"):
                continue
            truth = truth_of(p.stdout) or truth
            ranks_in(a, rd, n)
            runs.append(rd)
        rd = os.path.join(a.work, "run-export-2p")
        p = cluster.run(["srun", "--mpi=pmi2", f"--export=ALL,LD_PRELOAD={preload},SCALANA_OUTPUT={rd}",
                         "-n", "2", app, "--scale=0.5"], cwd=a.work)
        if check(p.returncode == 0, f"srun --export=ALL,LD_PRELOAD=...: exit {p.returncode}: {p.stderr[-800:]}"):
            ranks_in(a, rd, 2)
        if len(runs) != 3 or not check(truth is not None, "the example printed no ground truth"):
            return report()
        serial = os.path.join(a.work, "report-serial")
        p = subprocess.run([analyze, "-q", "--no-viewer", "-o", serial] + runs, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300)
        if not check(p.returncode == 0, f"serial scalana-analyze: {p.stderr[-800:]}"):
            return report()
        with open(os.path.join(serial, "report.json")) as f:
            ref = json.load(f)
        rc = (ref.get("root_causes") or [{}])[0]
        check(rc.get("category") == truth["category"] and rc.get("function") == truth["function"] and
              truth["loop"][0] <= (rc.get("line") or 0) <= truth["loop"][1],
              f"root cause #1 {rc.get('category')} {rc.get('function')}:{rc.get('line')}, planted "
              f"{truth['category']} {truth['function']}:{truth['loop'][0]}-{truth['loop'][1]}")
        for plugin, module in (("pmix", "openmpi"), ("pmi2", "mpich")):
            out = os.path.join(a.work, f"report-srun-{plugin}")
            env = {"SCALANA_ANALYZE_MPI_MODULE": os.path.join(a.build, "lib", f"libscalana-analyze-mpi-{module}.so")}
            p = cluster.run(["srun", f"--mpi={plugin}", "-n", "2", analyze, "-q", "--no-viewer", "-o", out] + runs,
                            env=env, timeout=300)
            if not check(p.returncode == 0, f"srun --mpi={plugin} -n 2 scalana-analyze: exit {p.returncode}: "
                                           f"{p.stderr[-800:]}"):
                continue
            with open(os.path.join(out, "report.json")) as f:
                got = json.load(f)
            FAIL.extend(parallel_equal.compare(ref, got, f"srun --mpi={plugin} -n 2"))
            procs = got.get("tool", {}).get("analyzer_processes")
            check(procs == 2, f"srun --mpi={plugin}: analyzer_processes {procs}")
        return report()
    finally:
        cluster.stop()


def report():
    if FAIL:
        print(f"{len(FAIL)} failure(s):")
        for f in FAIL:
            print(" -", f)
        return 1
    print("ok: profiled under srun at 1, 2, 4 processes; serial and srun -n 2 analyses agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
