#!/usr/bin/python3
"""e2e_preload.py — a planted example built with the system mpicc (gcc -O2 -g),
profiled through LD_PRELOAD alone (scalana-run), analysed with the structure
recovered from its machine code (docs/binstruct.md).

Asserts: report.json says psg_source machine_code (tool.structure_recovery
names the rules), validates against docs/report.schema.json, and the terminal summary
says "structure recovered from machine code"; root cause #1 is the planted one
(run_example.check_planted: category, the planted loop's own lines, its
function, the planted ranks, the cost within 25 % of the example's saving);
a second analysis reads the PSG from the cache and gives the same #1; a
cache that cannot be written (SCALANA_PSG_CACHE=/proc/...) gives one warning.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--example", default="load_imbalance")
    ap.add_argument("--mpicc", default="mpicc.openmpi")
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--scale", type=float, default=0.5)
    args = ap.parse_args()
    mpicc, mpirun = shutil.which(args.mpicc), shutil.which(args.mpirun)
    if not mpicc or not mpirun:
        rx.skip("%s or %s not found" % (args.mpicc, args.mpirun))
    run_tool, analyze = rx.tool(args.bindir, "scalana-run"), rx.tool(args.bindir, "scalana-analyze")
    examples = os.path.join(os.path.abspath(args.source_dir), "examples")
    ex = rx.read_manifest(os.path.join(examples, "examples.list"), args.example)
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    exe = os.path.join(work, ex["name"])
    rc, out, err = rx.run([mpicc, ex["opt"], "-g", "-I" + examples, os.path.join(examples, ex["source"]),
                           "-o", exe, "-lm"], work, timeout=300, what="mpicc")
    if rc != 0:
        rx.log("FAIL: mpicc exited %d\n%s" % (rc, rx.tail(err)))
        return 1
    cores = len(os.sched_getaffinity(0))
    run_dir = os.path.join(work, "run-%dp" % args.procs)
    env = dict(os.environ, SCALANA_OUTPUT=run_dir, SCALANA_EXAMPLE_CORES=str(cores))
    rc, out, err = rx.run([run_tool, mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(args.procs),
                           exe, "--defect=on", "--scale=%g" % args.scale], work, env, timeout=300,
                          what="the %dp run" % args.procs)
    if rc != 0:
        rx.log("FAIL: the run exited %d\n%s\n%s" % (rc, rx.tail(out), rx.tail(err)))
        return 1
    truth = rx.parse_truth(out)
    cache = os.path.join(work, "psg-cache")
    failures = []
    firsts = []
    for attempt in ("recovered", "cached"):
        rep = os.path.join(work, "report-" + attempt)
        rc, term, err = rx.run([analyze, run_dir, "-o", rep, "--psg-cache", cache], work, timeout=300,
                               what="scalana-analyze")
        if rc != 0:
            failures.append("%s: scalana-analyze exited %d\n%s" % (attempt, rc, rx.tail(err)))
            continue
        with open(os.path.join(rep, "report.json")) as f:
            report = json.load(f)
        prog = report["program"]
        if prog.get("psg_source") != "machine_code" or not prog.get("psg_loops"):
            failures.append("%s: program is %s, not a PSG recovered from machine code" % (attempt, prog))
        if not report["tool"].get("structure_recovery", "").startswith("scalana-binstruct "):
            failures.append("%s: tool.structure_recovery is %r" % (attempt, report["tool"].get("structure_recovery")))
        if prog.get("psg_from_cache") != (attempt == "cached"):
            failures.append("%s: psg_from_cache is %s" % (attempt, prog.get("psg_from_cache")))
        if "structure recovered from machine code" not in term:
            failures.append("%s: the terminal summary does not say where the structure came from" % attempt)
        try:
            rx.validate_schema(report, os.path.join(os.path.abspath(args.source_dir), "docs", "report.schema.json"))
        except rx.Failure as e:
            failures.append("%s: %s" % (attempt, e))
        try:
            rx.check_planted(report, truth, args.procs, cores)
        except rx.Failure as e:
            failures.append("%s: %s" % (attempt, e))
        if report["root_causes"]:
            c = report["root_causes"][0]
            firsts.append((c["category"], c["file"], c["line"], c["last_line"], c["function"]))
    # A cache that cannot be written (SCALANA_PSG_CACHE under /proc): the
    # analysis goes on, recovering again, with ONE warning naming the variable,
    # the directory and why, in the report's warnings too.
    rep = os.path.join(work, "report-nocache")
    bad = "/proc/scalana-no-such-cache"
    rc, term, err = rx.run([analyze, run_dir, "-o", rep], work, dict(os.environ, SCALANA_PSG_CACHE=bad),
                           timeout=300, what="scalana-analyze (unusable cache)")
    lines = [l for l in err.splitlines() if "not cached" in l]
    if rc != 0:
        failures.append("unusable cache: scalana-analyze exited %d\n%s" % (rc, rx.tail(err)))
    elif len(lines) != 1 or "SCALANA_PSG_CACHE=" + bad not in lines[0] or "cannot create the directory" not in lines[0]:
        failures.append("unusable cache: want one warning naming SCALANA_PSG_CACHE=%s, got %s" % (bad, lines or err))
    else:
        with open(os.path.join(rep, "report.json")) as f:
            report = json.load(f)
        if report["program"].get("psg_from_cache") or not any("not cached" in w for w in report["data_quality"]["warnings"]):
            failures.append("unusable cache: report program %s, warnings %s" % (report["program"], report["data_quality"]["warnings"]))
    if len(firsts) == 2 and firsts[0] != firsts[1]:
        failures.append("the cached PSG gave another #1: %s, recovered %s" % (firsts[1], firsts[0]))
    for f in failures:
        rx.log("FAIL: " + f)
    if failures:
        return 1
    rx.log("PASS: %s built with mpicc, LD_PRELOAD only: #1 is the planted %s at %s:%d-%d"
           % (ex["name"], truth["category"], os.path.basename(truth["file"]), *truth["loop"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
