#!/usr/bin/env python3
"""predict.py — scalana-analyze --predict P on the runs that planted examples'
e2e tests left (fixtures e2e_<example>: defect on at 1, 2, 4 and 8 processes, and
their report of all four counts); no MPI job of its own.

For each example: the runs at the smaller counts (1, 2, 4) are analysed with
--predict 8, the largest measured count, and the prediction is checked against
the cost that the fixture's analysis of all the counts measured at 8:

  * the predicted cause (the one at the planted location: same category,
    function and line) is root cause #1 and dominates at 8 (dominant_rank);
  * its predicted cost is within 25 % of the measured cost at 8, and the
    measured cost lies inside the prediction's band, widened by the measured
    cost's own noise (2.5 x its cost_noise_seconds, at least 5 % of it: the
    runs at 8 are a measurement too; 0.591 s against a band from 0.612 s
    failed once on a loaded machine);
  * the terminal shows the "At 8 processes" part, index.html the prediction
    section, report.json validates against docs/report.schema.json;
  * a bad --predict value (0, 0x10, 1e3, " 16", 16.0, inf) is a usage error (exit 2).

Exit 77 (skipped) while a tool or a fixture's runs are missing.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_check import Failure, check, log  # noqa: E402

TOLERANCE = 0.25


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--analyze", required=True)
    ap.add_argument("--series", action="append", required=True,
                    help="an example's e2e work directory (defect-on/run-<p>p, defect-on/report)")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    if not os.access(args.analyze, os.X_OK):
        print("SKIP: %s not built" % args.analyze)
        return 77
    w = os.path.abspath(args.workdir)
    shutil.rmtree(w, ignore_errors=True)
    os.makedirs(w)
    try:
        import jsonschema
        schema = json.load(open(os.path.join(args.source_dir, "docs", "report.schema.json")))
    except ImportError:
        jsonschema = None
    for series in args.series:
        name = os.path.basename(os.path.normpath(series))
        on = os.path.join(series, "defect-on")
        full = os.path.join(on, "report", "report.json")
        if not os.path.isfile(full):
            print("SKIP: %s missing (run the fixture e2e_%s)" % (full, name))
            return 77
        measured = json.load(open(full))
        counts = sorted(r["processes"] for r in measured["runs"])
        check(len(counts) >= 3, "%s: runs at %s, the test needs three counts or more" % (name, counts))
        big = counts[-1]
        check(measured["root_causes"], "%s: the fixture's report has no root cause" % name)
        truth = measured["root_causes"][0]
        out = os.path.join(w, name)
        cmd = [args.analyze, "--no-progress", "--color=never", "--predict", str(big), "-o", out] + \
              [os.path.join(on, "run-%dp" % p) for p in counts[:-1]]
        log("$ " + " ".join(cmd))
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        check(p.returncode == 0, "%s: exit %d:\n%s" % (name, p.returncode, p.stderr[-3000:]))
        check("At %d processes" % big in p.stdout, "%s: no prediction on the terminal:\n%s" % (name, p.stdout[-2000:]))
        rep = json.load(open(os.path.join(out, "report.json")))
        if jsonschema:
            jsonschema.validate(rep, schema)
        html = open(os.path.join(out, "index.html")).read()
        check('<section id="prediction">' in html, "%s: no prediction section in index.html" % name)
        pr = rep["prediction"]
        check(pr["processes"] == big and pr["measured_processes"] == counts[:-1],
              "%s: prediction for %s from %s" % (name, pr["processes"], pr["measured_processes"]))
        mine = [c for c in pr["causes"] if c["category"] == truth["category"]
                and c["function"] == truth["function"] and c["line"] == truth["line"]]
        check(mine, "%s: no prediction for the measured #1 %s at line %d in %s: %s"
              % (name, truth["category"], truth["line"], truth["function"],
                 [(c["category"], c["function"], c["line"]) for c in pr["causes"]]))
        c = mine[0]
        want = truth["cost_seconds"]
        got = c["predicted_cost_seconds"]
        log("%s: %s at %s:%d predicted %.3f s at %d (band %.3f-%.3f s, %s; from %.3f s at %d), measured %.3f s"
            % (name, c["category"], os.path.basename(c["file"]), c["line"], got, big, c["band_low_seconds"],
               c["band_high_seconds"], c["model"], c["cost_seconds"], c["cost_processes"], want))
        check(got is not None and abs(got - want) <= TOLERANCE * want,
              "%s: predicted %s s at %d, measured %.3f s: more than %d %% off"
              % (name, got, big, want, TOLERANCE * 100))
        slack = max(2.5 * (truth.get("cost_noise_seconds") or 0), 0.05 * want)
        check(c["band_low_seconds"] - slack <= want <= c["band_high_seconds"] + slack,
              "%s: measured %.3f s outside the band %.3f-%.3f s (+- %.3f s of its own noise)"
              % (name, want, c["band_low_seconds"], c["band_high_seconds"], slack))
        check(pr["dominant_rank"] == c["rank"], "%s: #%s dominates, the planted cause is #%d"
              % (name, pr["dominant_rank"], c["rank"]))
    # a process count is decimal digits: strtod's hexadecimal, exponent and blank forms are not
    for bad in ("0", "0x10", "1e3", " 16", "16.0", "inf"):
        p = subprocess.run([args.analyze, "--predict", bad, args.series[0]], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        check(p.returncode == 2 and "--predict" in p.stderr,
              "--predict %r: exit %d %s" % (bad, p.returncode, p.stderr))
    log("OK: the largest count predicted from the smaller ones")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as f:
        print("FAIL: %s" % f)
        sys.exit(1)
