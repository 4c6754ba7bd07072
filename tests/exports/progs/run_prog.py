#!/usr/bin/python3
"""run_prog.py — the runs of one user program for the export tests (tests/exports).

Compiles SOURCE with scalana-cc (-O2 -g), runs it once per process count under
scalana-run (Open MPI's mpirun, --oversubscribe), analyses the runs together with
scalana-analyze and checks the program's premise: each --expect FUNCTION=COUNTS
names the process counts at which report.json has that function's vertex, exactly
(the call paths differ between counts).  The export tests read the result:

  WORKDIR/run-<p>p/     one run directory per count
  WORKDIR/report/       report.json, extrap.jsonl and the other viewer files

Exit status: 0 done, 1 failure, 77 skip (a ScalAna tool or mpirun is missing).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

SKIP = 77


def log(msg):
    print(msg, flush=True)


def tool(bindir, name):
    path = os.path.abspath(os.path.join(bindir, name))
    if not os.path.isfile(path) or not os.access(path, os.X_OK) or os.path.getsize(path) == 0:
        log("SKIP: %s not built yet (looked for %s)" % (name, path))
        sys.exit(SKIP)
    return path


def run(cmd, cwd, env=None, timeout=300):
    """Runs cmd (echoed); a non-zero exit or a timeout ends the script with exit 1."""
    log("$ " + " ".join(cmd))
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        log("FAIL: %s timed out after %d s" % (cmd[0], timeout))
        sys.exit(1)
    log("  (%.1f s, exit %d) %s" % (time.monotonic() - t0, p.returncode, p.stdout.strip()[-300:]))
    if p.returncode != 0:
        log("FAIL: %s exited %d:\n%s\n%s" % (os.path.basename(cmd[0]), p.returncode, p.stdout[-4000:],
                                            p.stderr[-4000:]))
        sys.exit(1)
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True, help="the program's C source")
    ap.add_argument("--bindir", required=True, help="directory of scalana-cc, scalana-run, scalana-analyze")
    ap.add_argument("--workdir", required=True, help="output directory (emptied first)")
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    ap.add_argument("--procs", default="1,2,4,8", help="process counts, comma-separated")
    ap.add_argument("--expect", action="append", default=[], metavar="FUNCTION=COUNTS",
                    help="report.json has FUNCTION's vertex at exactly these counts")
    args = ap.parse_args()

    cc, srun, analyze = (tool(args.bindir, t) for t in ("scalana-cc", "scalana-run", "scalana-analyze"))
    mpirun = shutil.which(args.mpirun)
    if not mpirun:
        log("SKIP: %s not found (install openmpi-bin)" % args.mpirun)
        return SKIP
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    name = os.path.splitext(os.path.basename(args.source))[0]
    exe = os.path.join(work, name)
    run([cc, "-O2", "-g", os.path.abspath(args.source), "-o", exe], work)
    procs = [int(p) for p in args.procs.split(",")]
    dirs = []
    for p in procs:
        d = os.path.join(work, "run-%dp" % p)
        run([srun, mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(p), exe], work,
            env=dict(os.environ, SCALANA_OUTPUT=d))
        if not os.path.isdir(d):
            log("FAIL: scalana-run wrote no run directory %s" % d)
            return 1
        dirs.append(d)
    report_dir = os.path.join(work, "report")
    run([analyze] + dirs + ["-o", report_dir], work,
        env=dict(os.environ, SCALANA_PSG_CACHE=os.path.join(work, "psg-cache")), timeout=600)
    with open(os.path.join(report_dir, "report.json")) as f:
        report = json.load(f)

    failures = 0
    for e in args.expect:
        func, _, counts = e.partition("=")
        want = sorted(int(c) for c in counts.split(","))
        got = sorted({m["processes"] for v in report["vertices"]
                      if v.get("kind") == "FUNCTION" and v.get("name") == func for m in v.get("metrics", [])})
        ok = got == want
        failures += not ok
        log("%s: %s at %s processes (expected %s)" % ("ok" if ok else "FAIL", func, got, want))
    if failures:
        log("FAIL: the call paths of %s do not differ between counts as its premise says" % name)
        return 1
    log("runs of %s at %s processes and their report in %s" % (name, procs, work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
