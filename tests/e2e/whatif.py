#!/usr/bin/env python3
"""whatif.py — report.json "what_if" on real runs of a program with two culprits
of different size (tests/e2e/two_culprits.c: the last rank's smooth_rows, 0.6 s,
rank 0's sweep_columns, 0.3 s, before one MPI_Allreduce per iteration).

  1. build it with scalana-cc as it is (both defects on) and with
     -DEX_DEFECT_DEFAULT=0 (both off); run each once at 2 processes (a core
     each on 2 cores), on and off back to back;
  2. analyse the defect-on run: its root causes #1 and #2 are the two loops
     (smooth_rows first), and the what-if with both fixed predicts a saving
     clearly below their costs' sum (the iteration waits for the slower of the
     two: planted 0.6 s against 0.9 s);
  3. the predicted run time of the loop with #1 and #2 fixed (the defect-on
     program's loop time with a core per process, as it measures it from its
     processes' CPU clocks, less the replayed saving) is within 25 % of the
     defect-off program's, and closer to it than the costs' sum predicts; the
     terminal shows the "fixing #1 and #2" line.

Exit 77 (skipped) while a tool is missing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_check import Failure, check, log  # noqa: E402

TOLERANCE = 0.25


def run(cmd, cwd, env=None, timeout=300):
    log("$ " + " ".join(cmd))
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    log("  exit %d" % p.returncode)
    return p


def critical(stdout):
    """The loop's run time with a core per process that the program measured:
    the sum over iterations of the slowest process's CPU seconds."""
    m = re.search(r"critical CPU ([0-9.]+) s", stdout)
    if not m:
        raise Failure("the program printed no critical CPU time:\n" + stdout)
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    args = ap.parse_args()
    tools = {t: os.path.join(os.path.abspath(args.bindir), t) for t in ("scalana-cc", "scalana-run", "scalana-analyze")}
    for t, p in tools.items():
        if not os.access(p, os.X_OK):
            print("SKIP: %s not built" % p)
            return 77
    if not shutil.which(args.mpirun):
        print("SKIP: %s not found" % args.mpirun)
        return 77
    w = os.path.abspath(args.workdir)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    src = os.path.join(args.source_dir, "tests", "e2e", "two_culprits.c")
    exes = {}
    for mode, flags in (("on", []), ("off", ["-DEX_DEFECT_DEFAULT=0"])):
        exes[mode] = os.path.join(w, "two_culprits-" + mode)
        p = run([tools["scalana-cc"], "-O2", "-g", "-I" + os.path.join(args.source_dir, "examples"), *flags, src,
                 "-o", exes[mode]], w)
        check(p.returncode == 0, "scalana-cc failed:\n" + p.stdout + p.stderr)
    crit = {}
    for mode in ("on", "off"):
        env = dict(os.environ, SCALANA_OUTPUT=os.path.join(w, mode, "run-2p"))
        p = run([tools["scalana-run"], args.mpirun, "--allow-run-as-root", "-n", "2", exes[mode]], w, env)
        check(p.returncode == 0, "the %s run failed:\n%s\n%s" % (mode, p.stdout, p.stderr[-2000:]))
        log("  " + p.stdout.strip())
        crit[mode] = critical(p.stdout)
    reports = {}
    for mode in ("on", "off"):
        p = run([tools["scalana-analyze"], "--no-progress", "--color=never", "--no-viewer",
                 os.path.join(w, mode, "run-2p"), "-o", os.path.join(w, "report-" + mode)], w)
        check(p.returncode == 0, "scalana-analyze exited %d:\n%s" % (p.returncode, p.stderr[-2000:]))
        reports[mode] = (json.load(open(os.path.join(w, "report-" + mode, "report.json"))), p.stdout)
    rep, terminal = reports["on"]
    causes = rep["root_causes"]
    # The two planted causes: smooth_rows #1, sweep_columns after it.  The waits
    # detector may also name rank 0's wait at the MPI_Allreduce as a
    # wait_at_collective that no computation explains (0.30-0.31 s, on either side
    # of sweep_columns' 0.29-0.33 s, with the work counters on or off: the wait is
    # smooth_rows' and is not linked to it, a known limit in docs/analyzer.md); the
    # step that fixes causes 1..k with both planted ones in it is the prediction.
    planted = {c["function"]: c["rank"] for c in causes if c["category"] == "load_imbalance"}
    check(causes and (causes[0]["category"], causes[0]["function"]) == ("load_imbalance", "smooth_rows")
          and "sweep_columns" in planted,
          "root causes are %s, planted smooth_rows (#1) and sweep_columns"
          % [(c["category"], c["function"]) for c in causes])
    k = max(planted["smooth_rows"], planted["sweep_columns"])
    extra = [(c["category"], c["function"]) for c in causes[:k] if c["function"] not in planted]
    check(all(cat == "wait_at_collective" for cat, _ in extra),
          "between the planted causes: %s" % extra)
    wi = rep.get("what_if")
    check(wi and len(wi["steps"]) >= k, "no what_if with %d steps: %r" % (k, wi))
    both = wi["steps"][k - 1]
    check(both["causes"] == list(range(1, k + 1)), "step %d fixes %s" % (k, both["causes"]))
    # The loop's time with a core per process, as the program measured it with both
    # defects on, less the replayed saving, is the prediction for the program with
    # both off; the costs' sum would predict less.  (Wall times of a shared 2-core
    # machine do not measure a core per process: the loop of the fixed program once
    # took 7.1 s of wall time against 6.6 s with the defects, at a load of 5.)
    predicted = crit["on"] - both["saving_seconds"]
    by_sum = crit["on"] - both["sum_of_costs_seconds"]
    log("costs %.3f + %.3f = %.3f s; replayed saving of both %.3f s (alone: %s); with both fixed predicted "
        "%.3f s (the costs' sum: %.3f s), measured with both off %.3f s (with a core per process; with both on "
        "%.3f s); report: %.3f -> %.3f s"
        % (causes[0]["cost_seconds"], causes[planted["sweep_columns"] - 1]["cost_seconds"],
           both["sum_of_costs_seconds"], both["saving_seconds"],
           [round(a["replayed_saving_seconds"], 3) for a in wi["alone"][:2]], predicted, by_sum, crit["off"],
           crit["on"], wi["base_seconds"], both["predicted_seconds"]))
    check(both["sum_of_costs_seconds"] >= 1.25 * both["saving_seconds"],
          "the costs' sum %.3f s does not overstate the replayed saving %.3f s"
          % (both["sum_of_costs_seconds"], both["saving_seconds"]))
    check(abs(predicted - crit["off"]) <= TOLERANCE * crit["off"],
          "predicted %.3f s with #1 and #2 fixed, measured %.3f s with both defects off: more than %d %% off"
          % (predicted, crit["off"], TOLERANCE * 100))
    check(abs(predicted - crit["off"]) < abs(by_sum - crit["off"]),
          "the replay (%.3f s) is no closer to the measured %.3f s than the costs' sum (%.3f s)"
          % (predicted, crit["off"], by_sum))
    # report.json keeps 6 significant digits: equal within their rounding
    check(abs(both["predicted_seconds"] - (wi["base_seconds"] - both["saving_seconds"]))
          <= 1e-5 * max(1.0, wi["base_seconds"]),
          "predicted_seconds is not base_seconds - saving_seconds")
    check("fixing #1 and #2:" in terminal or "fixing #1, #2 and #3:" in terminal,
          "no what-if line on the terminal:\n" + terminal[-1500:])
    try:
        import jsonschema
        jsonschema.validate(rep, json.load(open(os.path.join(args.source_dir, "docs", "report.schema.json"))))
    except ImportError:
        log("(python3-jsonschema missing: report.json not validated)")
    log("OK: the replayed prediction of both fixes against the program with both defects off")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as f:
        print("FAIL: %s" % f)
        sys.exit(1)
