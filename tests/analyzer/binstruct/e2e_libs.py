#!/usr/bin/python3
"""e2e_libs.py — --recover-libs: the structure of the application's own shared
library, recovered from its machine code, holds the root cause.

libmain (system mpicc -O2 -g) calls lib_relax() of libwork.so (-fPIC
-shared); the last rank works three times as long, the others wait in
MPI_Allreduce.  Runs 2 processes under scalana-run (LD_PRELOAD only), then:
  without --recover-libs: #1 is in libmain.c (the library is one vertex);
  with it: #1 is the loop of libwork.c (lines 17-18) in lib_relax, load
  imbalance on rank 1, and report.json program.psg_libraries is 1.
Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "e2e"))
import run_example as rx  # noqa: E402

LOOP = (17, 18)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--program", required=True, help="libmain, linked against libwork.so")
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    args = ap.parse_args()
    mpirun = shutil.which(args.mpirun)
    if not mpirun or not os.path.isfile(args.program):
        rx.skip("%s or %s missing" % (args.mpirun, args.program))
    run_tool, analyze = rx.tool(args.bindir, "scalana-run"), rx.tool(args.bindir, "scalana-analyze")
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    run_dir = os.path.join(work, "run-2p")
    rc, out, err = rx.run([run_tool, mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "2", args.program],
                          work, dict(os.environ, SCALANA_OUTPUT=run_dir), timeout=300, what="the 2p run")
    if rc != 0:
        rx.log("FAIL: the run exited %d\n%s" % (rc, rx.tail(err)))
        return 1
    failures = []
    for libs in (False, True):
        rep = os.path.join(work, "report-libs" if libs else "report")
        rc, term, err = rx.run([analyze, run_dir, "-o", rep, "--psg-cache", "off", "--no-viewer"]
                               + (["--recover-libs"] if libs else []), work, timeout=300, what="scalana-analyze")
        if rc != 0:
            failures.append("scalana-analyze exited %d\n%s" % (rc, rx.tail(err)))
            continue
        with open(os.path.join(rep, "report.json")) as f:
            report = json.load(f)
        causes = report["root_causes"]
        if not causes:
            failures.append("%s: no root cause" % ("--recover-libs" if libs else "plain"))
            continue
        c = causes[0]
        got = "%s %s:%d-%d in %s on %s" % (c["category"], os.path.basename(c["file"]), c["line"], c["last_line"],
                                          c["function"], c["processes"])
        if not libs:
            if os.path.basename(c["file"]) != "libmain.c" or report["program"].get("psg_libraries"):
                failures.append("without --recover-libs #1 is %s, expected a place in libmain.c" % got)
            continue
        ok = (c["category"] == "load_imbalance" and os.path.basename(c["file"]) == "libwork.c"
              and LOOP[0] <= c["line"] <= c["last_line"] <= LOOP[1] and c["function"] == "lib_relax"
              and c["processes"] == [1])
        if not ok:
            failures.append("with --recover-libs #1 is %s, expected load_imbalance libwork.c:%d-%d in lib_relax on "
                            "[1]" % (got, *LOOP))
        if report["program"].get("psg_libraries") != 1:
            failures.append("program.psg_libraries is %s, expected 1" % report["program"].get("psg_libraries"))
        if "libwork.so (recovered from machine code" not in err + term:
            failures.append("no warning names the recovered library")
    for f in failures:
        rx.log("FAIL: " + f)
    if failures:
        return 1
    rx.log("PASS: the library's loop is root cause #1 with --recover-libs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
