#!/usr/bin/python3
"""run_example.py — end-to-end test of one planted example (examples/examples.list).

Compiles the example with scalana-cc/-cxx/-fc, runs it under scalana-run at 1, 2, 4
and 8 processes with the planted defect on and off, analyzes each series with
scalana-analyze and checks report.json against the example's own ground truth:

  defect on:  root_causes[0] (rank 1) has the planted category, names the planted
              ranks, its [line, last_line] lies inside the planted loop or the
              statement that runs it (<= 10 lines, no MPI call unless the planted
              statement is the collective itself), and its cost_seconds is within a
              factor of 3 of the injected cost;
  defect off (and the control program): no root cause above 1 % of the run time;
  always:     report.json validates against docs/report.schema.json.

Exit status: 0 pass, 1 fail, 77 skip (a ScalAna tool or a Python module is missing;
ctest reports it as skipped, never as passed).
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

SKIP = 77
GROUND_TRUTH = "SCALANA_GROUND_TRUTH "
COMPILERS = {"c": "scalana-cc", "cxx": "scalana-cxx", "fortran": "scalana-fc"}
COST_FACTOR = 3.0        # cost_seconds must lie within [truth / 3, truth * 3]
QUIET_PERCENT = 1.0      # defect off: no root cause above 1 % of run time
MAX_PLANTED_LINES = 10   # the planted range, by the rule


class Failure(Exception):
    pass


def log(msg=""):
    print(msg, flush=True)


def skip(msg):
    log("SKIP: " + msg)
    sys.exit(SKIP)


def read_manifest(path, name):
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#") and fields[0] == name:
                return {"name": fields[0], "source": fields[1], "language": fields[2],
                        "category": None if fields[3] == "none" else fields[3]}
    raise Failure("example %r is not in %s" % (name, path))


def tool(bindir, name):
    path = os.path.join(bindir, name)
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        skip("%s not built yet (looked for %s)" % (name, path))
    if os.path.getsize(path) == 0:
        skip("%s is an empty placeholder (%s)" % (name, path))
    return path


def run(cmd, cwd, env=None, timeout=300, what=None):
    """Runs cmd, echoes it, returns (rc, stdout, stderr); a timeout is a failure."""
    log("$ " + " ".join(cmd))
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure("%s timed out after %d s" % (what or cmd[0], timeout))
    log("  (%.1f s, exit %d)" % (time.monotonic() - t0, p.returncode))
    return p.returncode, p.stdout, p.stderr


def tail(text, n=40):
    lines = text.rstrip().splitlines()
    return "\n".join(("    " + l) for l in lines[-n:])


def check_planted_range(src_lines, truth):
    """The example itself must honour the rules: planted ranges of <= 10 lines, the
    loop free of MPI calls (the statement may be the collective itself only for a
    growing collective), and the statement must run the planted loop."""
    loop, stmt = truth["loop"], truth["statement"]
    for name, (a, b) in (("loop", loop), ("statement", stmt)):
        if not (1 <= a <= b <= len(src_lines)) or b - a + 1 > MAX_PLANTED_LINES:
            raise Failure("example bug: planted %s range %d-%d is not 1..10 lines of the source"
                          % (name, a, b))
    loop_text = "\n".join(src_lines[loop[0] - 1:loop[1]])
    stmt_text = "\n".join(src_lines[stmt[0] - 1:stmt[1]])
    mpi = re.compile(r"\bMPI_[A-Za-z_]+\s*\(|call\s+MPI_", re.IGNORECASE)
    if truth["category"] == "growing_communication":
        if not mpi.search(stmt_text):
            raise Failure("example bug: planted collective missing at line %d" % stmt[0])
        return
    if mpi.search(loop_text) or mpi.search(stmt_text):
        raise Failure("example bug: the planted range contains an MPI call")
    head = re.split(r"!|//|/\*", src_lines[loop[0] - 1])[0]
    m = re.search(r"(\w+)\s*\(", head)
    if not m or not re.search(r"\b%s\s*\(" % re.escape(m.group(1)), stmt_text):
        raise Failure("example bug: statement line %d does not run the planted loop %d-%d"
                      % (stmt[0], loop[0], loop[1]))


def parse_truth(stdout):
    for line in stdout.splitlines():
        if line.startswith(GROUND_TRUTH):
            return json.loads(line[len(GROUND_TRUTH):])
    raise Failure("the example printed no %sline" % GROUND_TRUTH)


def validate_schema(report, schema_path):
    try:
        import jsonschema
    except ImportError:
        skip("python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    with open(schema_path) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(report), key=lambda e: list(e.path))
    if errors:
        msgs = ["  at /%s: %s" % ("/".join(str(p) for p in e.path), e.message[:300])
                for e in errors[:10]]
        raise Failure("report.json does not validate against %s:\n%s" % (schema_path, "\n".join(msgs)))
    causes = report["root_causes"]
    for k, rc in enumerate(causes):
        if rc["rank"] != k + 1:
            raise Failure("root_causes[%d].rank is %d, not %d" % (k, rc["rank"], k + 1))
        if k and rc["cost_seconds"] > causes[k - 1]["cost_seconds"] + 1e-9:
            raise Failure("root_causes are not in non-increasing cost_seconds order at %d" % k)


def describe(rc):
    return ("#%d %s %s:%d-%d in %s, processes %s, cost %.3f s (%.1f %%)"
            % (rc["rank"], rc["category"], rc["file"], rc["line"], rc["last_line"],
               rc.get("function", "?"), rc["processes"], rc["cost_seconds"], rc["cost_percent"]))


def largest_run_seconds(report):
    runs = report.get("runs") or []
    if not runs:
        raise Failure("report.json lists no runs")
    largest = max(runs, key=lambda r: r["processes"])
    return largest["processes"], largest["wall_seconds"]


def check_quiet(report, label):
    """No root cause above 1 % of the run time of the largest run."""
    _, wall = largest_run_seconds(report)
    loud = []
    for rc in report["root_causes"]:
        share = max(rc["cost_percent"], 100.0 * rc["cost_seconds"] / wall if wall > 0 else 0.0)
        if share > QUIET_PERCENT:
            loud.append("%s  [%.2f %% of %.2f s]" % (describe(rc), share, wall))
    if loud:
        raise Failure("%s: expected no root cause above %.0f %% of run time, got:\n  %s"
                      % (label, QUIET_PERCENT, "\n  ".join(loud)))
    log("%s: OK, %d root cause(s), none above %.0f %% of run time"
        % (label, len(report["root_causes"]), QUIET_PERCENT))


def check_planted(report, truth, nprocs, cores):
    causes = report["root_causes"]
    if not causes:
        raise Failure("defect on: report.json has no root cause; expected %s at %s:%d-%d"
                      % (truth["category"], os.path.basename(truth["file"]), *truth["loop"]))
    rc = causes[0]
    problems = []
    if rc["category"] != truth["category"]:
        problems.append("category is %s, planted %s" % (rc["category"], truth["category"]))
    if os.path.basename(rc["file"]) != os.path.basename(truth["file"]):
        problems.append("file is %s, planted %s" % (rc["file"], os.path.basename(truth["file"])))
    first, last = rc["line"], max(rc["line"], rc["last_line"])
    inside = [name for name in ("loop", "statement")
              if truth[name][0] <= first and last <= truth[name][1]]
    if not inside:
        problems.append("lines %d-%d are not inside the planted loop %d-%d or statement %d-%d"
                        % (first, last, *truth["loop"], *truth["statement"]))
    planted = sorted(truth["ranks"])
    named = sorted(set(rc["processes"]))
    everyone = list(range(nprocs))
    if named != planted and not (planted == everyone and named == []):
        problems.append("processes are %s, planted ranks %s" % (named, planted))
    # Injected computation is counted in extra CPU seconds per planted rank.  On an
    # oversubscribed machine a defect on more ranks than cores costs more run time
    # than that, by (planted ranks / cores).  The growing collective's truth is the
    # wall time each rank spends inside it, where an analyzer working in CPU terms
    # divides by the oversubscription (p / cores).  Accept a factor of 3 around
    # either figure.
    truth_cost = truth["cost_seconds"]
    candidates = [truth_cost]
    if truth["category"] == "growing_communication":
        oversubscription = nprocs / max(1, cores)
        if oversubscription > 1:
            candidates.append(truth_cost / oversubscription)
    else:
        crowding = min(len(planted), nprocs) / max(1, cores)
        if crowding > 1:
            candidates.append(truth_cost * crowding)
    if not any(c / COST_FACTOR <= rc["cost_seconds"] <= c * COST_FACTOR for c in candidates):
        problems.append("cost_seconds %.3f is not within a factor of %g of the injected %s s"
                        % (rc["cost_seconds"], COST_FACTOR,
                           " or ".join("%.3f" % c for c in candidates)))
    if problems:
        raise Failure("defect on: root cause #1 is not the planted one:\n  got:      %s\n"
                      "  planted:  %s at %s:%d-%d (statement %d-%d), ranks %s, cost %.3f s\n  - %s"
                      % (describe(rc), truth["category"], os.path.basename(truth["file"]),
                         *truth["loop"], *truth["statement"], planted, truth_cost,
                         "\n  - ".join(problems)))
    log("defect on: OK, root cause #1 is the planted %s (%s range), ranks %s, cost %.3f s "
        "(injected %.3f s)" % (rc["category"], inside[0], named, rc["cost_seconds"], truth_cost))


def run_series(args, exe, mode, procs, mpirun, scalana_run, scalana_analyze, workdir):
    """Runs the example at every process count with the defect `mode` and analyzes;
    returns (report, ground truth at the largest process count)."""
    series = os.path.join(workdir, "defect-" + mode)
    os.makedirs(series)
    run_dirs, truth = [], None
    for p in procs:
        run_dir = os.path.join(series, "run-%dp" % p)
        env = dict(os.environ, SCALANA_OUTPUT=run_dir)
        cmd = [scalana_run, mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(p),
               exe, "--defect=" + mode]
        if args.scale != 1.0:
            cmd.append("--scale=%g" % args.scale)
        rc, out, err = run(cmd, series, env, timeout=args.run_timeout, what="the %dp run" % p)
        for line in out.splitlines():
            if line.startswith("ground truth:"):
                log("  " + line)
        if rc != 0:
            raise Failure("the %d-process run exited %d:\n%s\n%s" % (p, rc, tail(out), tail(err)))
        if not os.path.isdir(run_dir):
            raise Failure("scalana-run wrote no run directory %s\n%s" % (run_dir, tail(err)))
        run_dirs.append(run_dir)
        if p == max(procs):
            truth = parse_truth(out)
    out_dir = os.path.join(series, "report")
    rc, out, err = run([scalana_analyze] + run_dirs + ["-o", out_dir], series,
                       timeout=args.analyze_timeout, what="scalana-analyze")
    if out.strip():
        log(tail(out, 30))
    if rc != 0:
        raise Failure("scalana-analyze exited %d:\n%s\n%s" % (rc, tail(out), tail(err)))
    report_path = os.path.join(out_dir, "report.json")
    if not os.path.isfile(report_path):
        raise Failure("scalana-analyze wrote no %s" % report_path)
    with open(report_path) as f:
        try:
            report = json.load(f)
        except ValueError as e:
            raise Failure("%s is not JSON: %s" % (report_path, e))
    validate_schema(report, args.schema)
    if not os.path.isfile(os.path.join(out_dir, "index.html")):
        raise Failure("scalana-analyze wrote no %s" % os.path.join(out_dir, "index.html"))
    log("report: %s (schema OK); root causes:" % report_path)
    for rc_ in report["root_causes"][:5]:
        log("  " + describe(rc_))
    return report, truth


def verdict(args, ex):
    """--verdict: judge an existing report.json against the ground truth printed in a
    run's output (used by scripts/demo.sh); one line, exit 0 found / 1 missed."""
    try:
        with open(args.truth_log) as f:
            truth = parse_truth(f.read())
        with open(args.verdict) as f:
            report = json.load(f)
        validate_schema(report, args.schema)
        if truth["category"]:
            check_planted(report, truth, truth["processes"], len(os.sched_getaffinity(0)))
        else:
            check_quiet(report, "control" if not ex["category"] else "defect off")
    except (Failure, OSError, ValueError) as e:
        log("MISSED: %s: %s" % (args.example, e))
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--example", required=True, help="name in examples/examples.list")
    ap.add_argument("--source-dir", required=True, help="the repository root")
    ap.add_argument("--bindir", help="directory of scalana-cc, scalana-run, ...")
    ap.add_argument("--workdir", help="scratch directory (emptied first)")
    ap.add_argument("--verdict", metavar="REPORT_JSON",
                    help="only judge this report.json (with --truth-log) and exit")
    ap.add_argument("--truth-log", help="output of the largest run, with its ground truth")
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    ap.add_argument("--procs", default="1,2,4,8")
    ap.add_argument("--modes", default="on,off", help="defect modes to test (on,off)")
    ap.add_argument("--scale", type=float, default=1.0, help="--scale passed to the example")
    ap.add_argument("--run-timeout", type=int, default=300)
    ap.add_argument("--analyze-timeout", type=int, default=600)
    args = ap.parse_args()

    root = os.path.abspath(args.source_dir)
    args.schema = os.path.join(root, "docs", "report.schema.json")
    examples = os.path.join(root, "examples")
    if args.verdict:
        return verdict(args, read_manifest(os.path.join(examples, "examples.list"), args.example))
    if not args.bindir or not args.workdir:
        ap.error("--bindir and --workdir are required (unless --verdict)")
    try:
        ex = read_manifest(os.path.join(examples, "examples.list"), args.example)
        compiler = tool(args.bindir, COMPILERS[ex["language"]])
        scalana_run = tool(args.bindir, "scalana-run")
        scalana_analyze = tool(args.bindir, "scalana-analyze")
        mpirun = shutil.which(args.mpirun)
        if not mpirun:
            skip("%s not found (install openmpi-bin)" % args.mpirun)
        if importlib.util.find_spec("jsonschema") is None:
            skip("python3-jsonschema is not installed (apt-get install python3-jsonschema)")

        workdir = os.path.abspath(args.workdir)
        shutil.rmtree(workdir, ignore_errors=True)
        os.makedirs(workdir)
        source = os.path.join(examples, ex["source"])
        with open(source) as f:
            src_lines = f.read().splitlines()
        exe = os.path.join(workdir, ex["name"])
        rc, out, err = run([compiler, "-O2", "-g", "-I" + examples, source, "-o", exe], workdir,
                           timeout=300, what=compiler)
        if rc != 0 or not os.path.isfile(exe):
            raise Failure("%s failed (exit %d, %s):\n%s\n%s"
                          % (os.path.basename(compiler), rc,
                             "executable written" if os.path.isfile(exe) else "no executable",
                             tail(out), tail(err)))

        procs = [int(p) for p in args.procs.split(",")]
        cores = len(os.sched_getaffinity(0))
        modes = args.modes.split(",") if ex["category"] else ["on"]
    except Failure as e:
        log("FAIL: %s: %s" % (args.example, e))
        return 1
    failures = []
    for mode in modes:   # every mode runs, so that one report shows every failure
        log("== %s, defect %s, %s processes, %d cores" % (ex["name"], mode, procs, cores))
        try:
            report, truth = run_series(args, exe, mode, procs, args.mpirun, scalana_run,
                                       scalana_analyze, workdir)
            if mode == "on" and ex["category"]:
                if truth["category"] != ex["category"]:
                    raise Failure("example bug: planted %s, examples.list says %s"
                                  % (truth["category"], ex["category"]))
                check_planted_range(src_lines, truth)
                check_planted(report, truth, max(procs), cores)
            else:
                check_quiet(report, "defect off" if ex["category"] else "control")
        except Failure as e:
            log("FAIL: %s: %s" % (args.example, e))
            failures.append(mode)
    if failures:
        log("FAIL: %s (defect %s)" % (args.example, ", ".join(failures)))
        return 1
    log("PASS: %s" % args.example)
    return 0


if __name__ == "__main__":
    sys.exit(main())
