#!/usr/bin/python3
"""test_writing.py — the run directory and how a run ends, with a real mpirun
(progs/lifecycle.c):

  outdir  SCALANA_OUTPUT / the default name: a directory of the user's and a
          regular file are never touched (one "writer disabled" line naming
          the path, same output and exit code as without the runtime); an
          empty directory is used as is; an earlier run is kept (the next run
          writes <dir>.2); an
          unusable path prints exactly one line for the run
  abort   rank 1 calls MPI_Abort: its own profile (ABORTED), run.json from
          start-up, the analyzer analyses the run (rank 0 reported missing)
  crash   rank 1 segfaults: run.json from start-up (written_by "running")
  exit    rank 0 exit(4), the others exit(0), no MPI_Finalize: run.json, the
          ranks' own profiles (AT_EXIT; a rank the launcher stopped before it
          wrote has none), the analyzer accepts the run and reports those
          missing

usage: test_writing.py --build BUILD --mpi openmpi|mpich --np N --prog BINARY --case NAME"""
import argparse
import filecmp
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

FAIL = []


def check(cond, msg):
    if not cond:
        FAIL.append(msg)
    return cond


def mpirun(a, cwd, mode, env, runtime=True):
    full = dict(os.environ)
    full.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    env = dict(env)
    if runtime:
        env["LD_PRELOAD"] = os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so")
    full.update(env)
    if a.mpi == "openmpi":
        cmd = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", str(a.np)]
        for k in env:
            cmd += ["-x", k]
    else:
        cmd = ["mpirun.mpich", "-n", str(a.np)]
        for k, v in env.items():
            cmd += ["-genv", k, v]
    cmd += [a.prog, mode]

    def no_core():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return subprocess.run(cmd, cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=150, preexec_fn=no_core)


def scalana_lines(p):
    return [l for l in p.stderr.splitlines() if l.startswith("scalana:")]


def dump(a, rundir):
    p = subprocess.run([os.path.join(a.build, "bin", "scalana-dump"), "--json", rundir], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if not check(p.returncode == 0, f"scalana-dump {rundir}: {p.returncode} {p.stderr.strip()}"):
        return None
    return json.loads(p.stdout)


def runinfo(rundir):
    path = os.path.join(rundir, "run.json")
    if not check(os.path.isfile(path), f"{rundir}: no run.json ({sorted(os.listdir(rundir)) if os.path.isdir(rundir) else 'no directory'})"):
        return None
    with open(path) as f:
        return json.load(f)


def analyze(a, rundir, out):
    p = subprocess.run([os.path.join(a.build, "bin", "scalana-analyze"), "--no-viewer", "-o", out, rundir],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    check(p.returncode == 0, f"scalana-analyze refused the run ({p.returncode}): {p.stdout}{p.stderr}")
    return p.stdout + p.stderr


def case_outdir(a, tmp):
    plain = mpirun(a, tmp, "ok", {}, runtime=False)
    check(plain.returncode == 0, f"plain run exited {plain.returncode}: {plain.stderr}")
    # A directory of the user's: not moved, not written into.
    user = os.path.join(tmp, "userdata")
    os.mkdir(user)
    with open(os.path.join(user, "important.txt"), "w") as f:
        f.write("keep\n")
    p = mpirun(a, tmp, "ok", {"SCALANA_OUTPUT": "userdata"})
    check(p.returncode == plain.returncode and p.stdout == plain.stdout,
          f"userdata: output/exit code changed: {p.returncode} {p.stdout!r} (plain {plain.stdout!r})")
    check(os.path.isdir(user) and sorted(os.listdir(user)) == ["important.txt"],
          f"userdata now holds {sorted(os.listdir(user)) if os.path.isdir(user) else 'nothing (moved)'}")
    check(sorted(x for x in os.listdir(tmp) if x.startswith("userdata")) == ["userdata"],
          f"userdata moved aside: {sorted(os.listdir(tmp))}")
    ln = scalana_lines(p)
    check(len(ln) == 1 and "userdata" in ln[0] and "not a ScalAna run directory" in ln[0],
          f"userdata: want one line naming the path and why, got {ln}")
    # A regular file where the default run directory would go.
    default = os.path.join(tmp, f"scalana-{os.path.basename(a.prog)}-{a.np}p")
    with open(default, "w") as f:
        f.write("mine\n")
    p = mpirun(a, tmp, "ok", {})
    check(p.returncode == 0 and p.stdout == plain.stdout, f"regular file: output/exit code changed: {p.returncode}")
    if check(os.path.isfile(default), "the regular file was moved or replaced"):
        with open(default) as f:
            check(f.read() == "mine\n", "the regular file was changed")
    ln = scalana_lines(p)
    check(len(ln) == 1 and default in ln[0] and "not a directory" in ln[0], f"regular file: lines {ln}")
    # An empty directory is used as is.
    shutil.rmtree(default) if os.path.isdir(default) else os.unlink(default)
    os.mkdir(default)
    p = mpirun(a, tmp, "ok", {})
    check(p.returncode == 0, f"empty directory: exit {p.returncode}: {p.stderr}")
    check(not scalana_lines(p), f"empty directory: lines {scalana_lines(p)}")
    ri = runinfo(default)
    check(ri is not None and ri["written_by"] == "finalize", f"empty directory: run.json {ri}")
    check(sorted(os.listdir(default)) == [".scalana-owner", "exe", "profile-000000-%06d.sclp" % (a.np - 1), "run.json"],
          f"empty directory: holds {sorted(os.listdir(default))}")
    # the run's own executable (SCALANA_KEEP_EXE, docs/runtime.md): the program itself
    kept = os.path.join(default, "exe", os.path.basename(a.prog))
    check(ri is not None and ri.get("executable_copy") == "exe/" + os.path.basename(a.prog)
          and os.path.isfile(kept) and filecmp.cmp(kept, a.prog, shallow=False),
          f"exe/: run.json executable_copy {ri and ri.get('executable_copy')}, {kept} not the program")
    # An earlier run under the default name is never touched: the next run
    # writes <dir>.2 and says where (one line).
    before = sorted(os.listdir(default))
    with open(os.path.join(default, "run.json")) as f:
        first_json = f.read()
    p = mpirun(a, tmp, "ok", {})
    others = [x for x in os.listdir(tmp) if x.startswith(os.path.basename(default) + ".")]
    check(others == [os.path.basename(default) + ".2"], f"second run: directories {sorted(os.listdir(tmp))}")
    ln = scalana_lines(p)
    check(len(ln) == 1 and "holds an earlier run: writing to " + default + ".2" in ln[0], f"second run: lines {ln}")
    with open(os.path.join(default, "run.json")) as f:
        check(f.read() == first_json and sorted(os.listdir(default)) == before, "the earlier run was changed")
    check(runinfo(default + ".2") is not None, f"no run.json in {default}.2")
    # An unusable path: exactly one line for the run, the application unharmed.
    p = mpirun(a, tmp, "ok", {"SCALANA_OUTPUT": "/proc/nope"})
    check(p.returncode == 0 and p.stdout == plain.stdout, f"/proc/nope: output/exit code changed: {p.returncode}")
    ln = scalana_lines(p)
    check(len(ln) == 1 and "/proc/nope" in ln[0], f"/proc/nope: want exactly one line, got {ln}")


def case_abort(a, tmp):
    rundir = os.path.join(tmp, "run")
    p = mpirun(a, tmp, "abort1", {"SCALANA_OUTPUT": rundir})
    check(p.returncode != 0, "MPI_Abort: mpirun exited 0")
    ri = runinfo(rundir)
    if ri:
        check(ri["processes"] == a.np and ri["written_by"] in ("running", "abort"), f"run.json {ri}")
    data = dump(a, rundir)
    if data:
        ranks = {x["info"]["world_rank"]: x["info"]["flags"] for x in data["ranks"]}
        check(1 in ranks and ranks[1] & 4, f"rank 1's own profile missing or not ABORTED: {ranks}")
    out = analyze(a, rundir, os.path.join(tmp, "report"))
    check("missing" in out, f"analyzer does not report the missing rank(s): {out}")


def case_crash(a, tmp):
    rundir = os.path.join(tmp, "run")
    p = mpirun(a, tmp, "crash1", {"SCALANA_OUTPUT": rundir})
    check(p.returncode != 0, "segfault: mpirun exited 0")
    ri = runinfo(rundir)
    if ri:
        check(ri["processes"] == a.np and ri["written_by"] == "running" and ri["executable"] == a.prog,
              f"run.json {ri}")


def case_exit(a, tmp):
    rundir = os.path.join(tmp, "run")
    mpirun(a, tmp, "exit0", {"SCALANA_OUTPUT": rundir})
    ri = runinfo(rundir)
    if ri:
        check(ri["processes"] == a.np and ri["written_by"] in ("running", "exit"), f"run.json {ri}")
    files = sorted(f for f in os.listdir(rundir) if f.endswith(".sclp")) if os.path.isdir(rundir) else []
    # The launcher kills the others once the first rank is gone (hydra with
    # SIGKILL), and no rank waits for another (the exit status and output
    # stay the program's): a rank stopped before it wrote has no file.  The
    # rank that left first always has its own; every file present is a
    # rank's own, complete (AT_EXIT), and the analyzer reports the others.
    names = {f"profile-{r:06d}-{r:06d}.sclp" for r in range(a.np)}
    check(files and set(files) <= names, f"profile files {files}: want ranks' own files, at least one")
    # a rank killed while writing leaves at most a hidden temporary
    debris = [f for f in os.listdir(rundir) if ".tmp" in f and not f.startswith(".")] if os.path.isdir(rundir) else []
    check(not debris, f"visible temporaries left behind: {debris}")
    data = dump(a, rundir) if files else None
    if data:
        for x in data["ranks"]:
            check(x["info"]["flags"] & 2, f"rank {x['info']['world_rank']}: flags {x['info']['flags']} lack AT_EXIT")
    if files:
        out = analyze(a, rundir, os.path.join(tmp, "report"))
        if len(files) < a.np:
            check("missing" in out, f"analyzer does not report the missing rank(s): {out}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--case", required=True, choices=["outdir", "abort", "crash", "exit"])
    a = ap.parse_args()
    a.build, a.prog = os.path.abspath(a.build), os.path.abspath(a.prog)
    tmp = tempfile.mkdtemp(prefix="scalana-writing-")
    {"outdir": case_outdir, "abort": case_abort, "crash": case_crash, "exit": case_exit}[a.case](a, tmp)
    if FAIL:
        print(f"{len(FAIL)} failure(s) [{a.mpi} np={a.np} {a.case}] (kept: {tmp})")
        for f in FAIL:
            print(" -", f)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"ok [{a.mpi} np={a.np} {a.case}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
