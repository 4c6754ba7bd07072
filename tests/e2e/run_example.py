#!/usr/bin/python3
"""run_example.py — end-to-end test of one planted example (examples/examples.list).

Compiles the example with scalana-cc/-cxx/-fc at its optimisation level
(examples.list), runs it under scalana-run at 1, 2, 4 and 8 processes with the
planted defect on and off (each job once; the on and off runs of one count back to
back), analyzes each series with scalana-analyze and checks report.json against
the example's own ground truth:

  defect on:  root_causes[0] (rank 1) has the planted category, names exactly the
              planted ranks, its [line, last_line] lies inside the planted loop's
              own lines (not the call site, not the whole function), its function
              is the one that holds the loop, and its cost_seconds is within 25 %
              of the saving (see reference_saving());
  defect off (and the control program): no root cause above 1 % of the run time;
  always:     report.json validates against docs/report.schema.json; the example's
              ground truth is exactly a loop of its source; the helpers it says
              are inlined have no out-of-line copy; for C++ no mangled name reaches
              the terminal, report.json's function names, the HTML or the DOT.

With --exe (the gcc variant, issue 12): the example was built elsewhere with an MPI
library's own compiler wrapper (mpicc/mpicxx/mpif90.<mpi>: gcc, g++, gfortran;
examples/CMakeLists.txt) and holds nothing of ScalAna: the test checks that it
has no .scalana_psg section and does not link a ScalAna runtime, runs it with the
runtime library preloaded (--launch: scalana-run, or LD_PRELOAD forwarded by the
launcher itself, -x for Open MPI, -genv for MPICH's hydra) and asks for the same
root cause as the scalana-cc build (the same checks; whether gcc inlined the
helpers is only logged).

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
COST_TOLERANCE = 0.25    # |cost_seconds - saving| <= 25 % of the saving (issue 11)
QUIET_PERCENT = 1.0      # defect off: no root cause above 1 % of run time
MAX_PLANTED_LINES = 12   # a planted loop is short: a longer range is an example bug
# Planted communication: the range holds the MPI calls (a call may stand alone);
# the growing ones have their saving measured in the calls (comm_seconds), the
# pipeline's is the example's CPU model with a core per process.
COMM_CATEGORIES = ("growing_communication", "halo_exchange", "pipeline_wait")
MEASURED_SAVING = ("growing_communication", "halo_exchange")
MANGLED = re.compile(r"(?<![A-Za-z0-9_$.])_Z(?:[NLSKZ]|[0-9])[A-Za-z0-9_]*")


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
                        "category": None if fields[3] == "none" else fields[3],
                        "opt": fields[4] if len(fields) > 4 else "-O2",
                        "needs": fields[6] if len(fields) > 6 else None}
    raise Failure("example %r is not in %s" % (name, path))


def tool(bindir, name):
    path = os.path.abspath(os.path.join(bindir, name))
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


LOOP_HEAD = re.compile(r"^\s*(?:for|while)\s*\(|^\s*do\b", re.IGNORECASE)
MPI_CALL = re.compile(r"\bMPI_[A-Za-z_]+\s*\(|call\s+MPI_", re.IGNORECASE)
OMP_FOR = re.compile(r"^\s*#\s*pragma\s+omp\s+(?:parallel\s+)?for\b")
# --openmp: the team the MPI + OpenMP examples are planted for (examples.list needs)
OMP_ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive"}


def strip_comment(line, fortran):
    return re.split(r"!" if fortran else r"//|/\*", line)[0]


def loop_extent(src_lines, first, fortran):
    """Last line of the loop that starts on line `first` (1-based): for C/C++ the
    matching brace of a braced body, else the first statement's `;` (through nested
    unbraced loops); for Fortran the matching `end do`."""
    if fortran:
        depth = 0
        for n in range(first, len(src_lines) + 1):
            for stmt in strip_comment(src_lines[n - 1], True).split(";"):
                if re.match(r"^\s*(?:\w+\s*:\s*)?do\b", stmt, re.IGNORECASE):
                    depth += 1
                elif re.match(r"^\s*end\s*do\b", stmt, re.IGNORECASE):
                    depth -= 1
            if depth <= 0:
                return n
        return None
    depth, opened = 0, False
    parens = 0
    for n in range(first, len(src_lines) + 1):
        text = strip_comment(src_lines[n - 1], False)
        for ch in text:
            if ch == "(":
                parens += 1
            elif ch == ")":
                parens -= 1
            elif ch == "{" and parens == 0:
                depth += 1
                opened = True
            elif ch == "}" and parens == 0:
                depth -= 1
                if opened and depth == 0:
                    return n
            elif ch == ";" and parens == 0 and not opened:
                return n
    return None


def check_planted_range(src_lines, truth, language=None):
    """The example itself must be right: its planted `loop` is exactly the extent of
    a loop of the source (<= 12 lines), free of MPI calls unless the defect is the
    communication itself (then the collective is inside the range); `statement`
    is a line range of the source."""
    fortran = language == "fortran" or truth["file"].lower().endswith((".f90", ".f"))
    loop, stmt = truth["loop"], truth["statement"]
    for name, (a, b) in (("loop", loop), ("statement", stmt)):
        if not (1 <= a <= b <= len(src_lines)) or b - a + 1 > MAX_PLANTED_LINES:
            raise Failure("example bug: planted %s range %d-%d is not 1..%d lines of the source"
                          % (name, a, b, MAX_PLANTED_LINES))
    loop_text = "\n".join(strip_comment(l, fortran) for l in src_lines[loop[0] - 1:loop[1]])
    comm = truth["category"] in COMM_CATEGORIES
    # an OpenMP work-sharing loop starts at its pragma (clang's loop does, and the
    # line is where a person changes the schedule): the loop is the next line's
    head = loop[0]
    if not fortran and OMP_FOR.search(src_lines[head - 1]) and head < loop[1]:
        head += 1
    if LOOP_HEAD.search(strip_comment(src_lines[head - 1], fortran)):
        end = loop_extent(src_lines, head, fortran)
        if end != loop[1]:
            raise Failure("example bug: the loop at line %d ends at line %s, the ground truth "
                          "says %d" % (loop[0], end, loop[1]))
        # not the unbraced body of an enclosing loop (`while (...)` / `for (...) body;`):
        # then the planted loop is the enclosing one
        prev = head - 1 if head == loop[0] else 0
        while prev >= 1 and not strip_comment(src_lines[prev - 1], fortran).strip():
            prev -= 1
        if (not fortran and prev >= 1 and LOOP_HEAD.search(strip_comment(src_lines[prev - 1], False))
                and "{" not in strip_comment(src_lines[prev - 1], False)
                and loop_extent(src_lines, prev, False) == loop[1]):
            raise Failure("example bug: lines %d-%d are the body of the loop at line %d"
                          % (loop[0], loop[1], prev))
    elif not (comm and loop[0] == loop[1]):   # a collective statement may stand alone
        raise Failure("example bug: planted line %d does not start a loop: %r"
                      % (loop[0], src_lines[loop[0] - 1].strip()))
    if comm:
        if not MPI_CALL.search(loop_text):
            raise Failure("example bug: planted collective missing in lines %d-%d" % tuple(loop))
        return
    if MPI_CALL.search(loop_text):
        raise Failure("example bug: the planted loop %d-%d contains an MPI call" % tuple(loop))


def check_inlined(exe, truth):
    """The helpers the example says the compiler inlines must have no out-of-line
    copy in the binary (nm): otherwise the example does not test inlining."""
    names = truth.get("inlined") or []
    if not names:
        return
    nm = shutil.which("nm")
    if not nm:
        log("note: nm not found, inlining of %s not checked" % names)
        return
    p = subprocess.run([nm, "-C", "--defined-only", exe], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    funcs = [l.split(None, 2)[2] for l in p.stdout.splitlines()
             if len(l.split(None, 2)) == 3 and l.split(None, 2)[1] in "tTwW"]
    for name in names:
        pat = re.compile(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(name))
        copies = [f for f in funcs if pat.search(f)]
        if copies:
            raise Failure("example bug: %s is not inlined, the binary holds %s"
                          % (name, ", ".join(copies[:3])))
    log("inlined as planted: %s" % ", ".join(names))


def check_function(rc, truth):
    """The report's function is the one whose body holds the planted loop: every
    identifier of the ground truth's name (e.g. RowSweep, double, operator for
    RowSweep<double>::operator()) appears in it, demangled."""
    want = truth.get("function")
    if not want:
        return None
    got = rc.get("function") or ""
    missing = [w for w in re.findall(r"[A-Za-z_]\w*", want)
               if not re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(w), got)]
    if missing:
        return "function is %r, the planted loop is in %s" % (got, want)
    return None


def mangled_in(text):
    return sorted(set(MANGLED.findall(text)))


def check_demangled(report_dir, terminal, report):
    """No mangled C++ name where a person reads it: the terminal summary, the
    function names of report.json, the HTML and the DOT files.  Values under keys
    that name a linkage (mangled) name for tools are left out."""
    found = {}
    if mangled_in(terminal):
        found["terminal"] = mangled_in(terminal)

    def walk(node, path):
        if isinstance(node, dict):
            for k, v in node.items():
                if "linkage" in k or "mangled" in k:
                    continue
                if k == "function" and isinstance(v, str) and mangled_in(v):
                    found.setdefault("report.json", []).extend(mangled_in(v))
                walk(v, path + [k])
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
    walk(report, [])
    tool_keys = re.compile(r'"[A-Za-z_]*(?:linkage|mangled)[A-Za-z_]*"\s*:\s*"[^"]*"')
    for dirpath, _, files in os.walk(report_dir):
        for fn in files:
            if fn.endswith((".html", ".dot", ".svg", ".txt")):
                with open(os.path.join(dirpath, fn), errors="replace") as f:
                    names = mangled_in(tool_keys.sub("", f.read()))
                if names:
                    found[os.path.relpath(os.path.join(dirpath, fn), report_dir)] = names
    if found:
        raise Failure("mangled C++ names reach person-facing output:\n  %s"
                      % "\n  ".join("%s: %s" % (k, ", ".join(sorted(set(v))[:5]))
                                    for k, v in sorted(found.items())))
    log("demangled: no mangled name in the terminal, report.json functions, HTML or DOT")


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


def comm_growth_seconds(truth_on, truth_base, over, base_contention=None):
    """The growth of the time in the planted communication per rank, from the base
    count (the smallest with two or more processes, defect on) to the largest, each
    divided by its processes per core (or its run's contention when larger): what a
    fix saves that keeps the operation's cost per process at the base count's.  The
    defect-off variants do more (they remove the Allgather, or shrink each round to
    1/p of the vector), so a fix saves between this and the whole time in the
    operation; the analyzer's cost is this growth (growing_comm.c saving_seconds),
    and on a quiet 2-core machine it lies below the whole uncontended time by the
    base count's cost (growing_collective at 8 processes: 0.241 s against 0.327 s
    on - off divided by 4, with 0.108 s per rank in the collective at 2).  None
    without a base run."""
    if truth_base is None or truth_base.get("comm_seconds") is None \
            or truth_base["processes"] >= truth_on["processes"]:
        return None
    over_b = max(1.0, truth_base["processes"] / max(1, truth_base.get("cores") or 1),
                 base_contention or 0)
    return max(0.0, truth_on["comm_seconds"] / over - truth_base["comm_seconds"] / over_b)


def reference_saving(truth_on, truth_off, cores, contention=None, truth_base=None, base_contention=None):
    """The saving a fix would bring at the largest count, with where it comes from.

    Not oversubscribed (p <= cores): the wall-time saving measured by the rerun
    with the defect off, run_seconds(on) - run_seconds(off), back to back.

    More processes than cores: the two wall times mostly measure how the kernel
    shares the cores and what else runs on the machine (on a shared 2-core machine
    on - off swings by seconds from one pair of runs to the next), and the saving on
    these few cores is not the one a person fixing the code gets on a machine with a
    core per process (a constant-total imbalance costs nothing while the heavy
    ranks alone fill the cores).  Planted computation is then compared with the
    example's CPU model of the saving with a core per process (saving_seconds: each
    phase takes as long as its busiest process), computed from the work the example
    assigns; this is the CPU-time reading the analyzer gives when it judges an
    oversubscribed run on CPU time.  The same model on this machine's cores
    (saving_on_cores_seconds, fair processor sharing) is accepted as the other
    reading: what the fix saves here on an otherwise idle machine.  Returns a list
    of readings then; a cost must lie within 25 % of one of them.

    Planted communication has no CPU model: its saving is measured inside the
    collective, mean wall seconds per rank with the defect on minus the same with it
    off (comm_seconds); on an oversubscribed machine that wall time, or the same
    divided by the oversubscription p / cores (the share of it a process would
    spend with a core of its own).  On an oversubscribed machine neither reading is
    the saving: the raw one includes the scheduling waits that any collective in
    its place absorbs, the divided one discounts the call's own cost too; the
    saving lies between them, so the cost must lie within 25 % of that interval
    (latency_collective at 8 processes on 2 cores, in one ctest -j2 pass: 0.210 s
    raw, 0.053 s divided, cost 0.073 s).  With the run at the base count
    (truth_base), the growth of the time in the operation (comm_growth_seconds) is
    the interval's lower end when it is lower: a fix that keeps the base count's
    cost saves that much.  Without a defect-off run (the demo) the
    model, or the time in the collective, stands in.  With other load on the machine
    a process gets less than its 1/over share of a core: the uncontended share is then
    the wall time divided by the run's measured contention (report.json
    runs[].contention at the largest count, wall/CPU of the best-served process), the
    divisor the analyzer uses, when that exceeds the oversubscription (growing_collective
    in make demo beside two CPU hogs: 9.2x contended at 8 processes on 2 cores)."""
    p = truth_on["processes"]
    over = p / max(1, cores)
    if contention and contention > over:
        over = contention
    if truth_on["category"] in MEASURED_SAVING:
        if truth_off is not None and truth_off.get("comm_seconds") is not None:
            saving = truth_on["comm_seconds"] - truth_off["comm_seconds"]
            how = ("measured in the collective: %.3f s (on) - %.3f s (off) per rank at %dp"
                   % (truth_on["comm_seconds"], truth_off["comm_seconds"], p))
        else:
            saving = truth_on["cost_seconds"]
            how = "time in the collective, %.3f s per rank" % saving
        readings = [saving]
        if over > 1:   # both readings: the wall time measured, and its uncontended share
            readings.append(saving / over)
            how += (" (or / %.1f processes per core)" % over if over == p / max(1, cores)
                    else " (or / %.1f, the run's contention)" % over)
        growth = comm_growth_seconds(truth_on, truth_base, over, base_contention)
        if growth is not None and growth < min(readings):
            readings = [max(readings), growth]
            how += (" (or the growth from %dp: %.3f s - %.3f s per rank, each per its core share)"
                    % (truth_base["processes"], truth_on["comm_seconds"], truth_base["comm_seconds"]))
        return (readings if len(readings) > 1 else saving), how
    if truth_off is not None and p <= cores:
        return (truth_on["run_seconds"] - truth_off["run_seconds"],
                "measured: run %.3f s (on) - %.3f s (off) at %dp on %d cores"
                % (truth_on["run_seconds"], truth_off["run_seconds"], p, cores))
    model = truth_on.get("saving_seconds")
    if model is None:
        model = truth_on["cost_seconds"]
    shared = truth_on.get("saving_on_cores_seconds")
    readings = [model] + ([shared] if shared and abs(shared - model) > 1e-9 else [])
    return readings, ("CPU model at %dp: %.3f s with a core per process, %.3f s on this "
                      "machine's %d cores" % (p, model, shared or 0.0, cores))


def check_planted(report, truth, nprocs, cores, truth_off=None, openmp=False, truth_base=None):
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
    if not (truth["loop"][0] <= first and last <= truth["loop"][1]):
        problems.append("lines %d-%d are not inside the planted loop %d-%d (the call at %d-%d "
                        "or the whole function do not count)"
                        % (first, last, truth["loop"][0], truth["loop"][1], *truth["statement"]))
    bad_function = check_function(rc, truth)
    if bad_function:
        problems.append(bad_function)
    planted = sorted(truth["ranks"])
    named = sorted(set(rc["processes"]))
    everyone = list(range(nprocs))
    if named != planted and not (planted == everyone and named == []):
        problems.append("processes are %s, planted ranks %s" % (named, planted))
    largest = [r for r in report.get("runs", []) if r.get("processes") == nprocs]
    contention = max((r.get("contention") or 0 for r in largest), default=0)
    base_contention = None
    if truth_base is not None:
        base_runs = [r for r in report.get("runs", []) if r.get("processes") == truth_base["processes"]]
        base_contention = max((r.get("contention") or 0 for r in base_runs), default=0)
    saving, how = reference_saving(truth, truth_off, cores, contention, truth_base, base_contention)
    readings = saving if isinstance(saving, list) else [saving]
    saving = readings[0]
    between = (truth["category"] in MEASURED_SAVING and len(readings) == 2
               and (1 - COST_TOLERANCE) * min(readings) <= rc["cost_seconds"]
               <= (1 + COST_TOLERANCE) * max(readings))
    if not between and not any(abs(rc["cost_seconds"] - s) <= COST_TOLERANCE * abs(s) for s in readings):
        problems.append("cost_seconds %.3f is not within %d %% of the saving %s s (%s)"
                        % (rc["cost_seconds"], round(100 * COST_TOLERANCE),
                           " or ".join("%.3f" % s for s in readings), how))
    if problems:
        raise Failure("defect on: root cause #1 is not the planted one:\n  got:      %s\n"
                      "  planted:  %s at %s:%d-%d in %s (called at %d-%d), ranks %s, saving %.3f s\n"
                      "  - %s"
                      % (describe(rc), truth["category"], os.path.basename(truth["file"]),
                         *truth["loop"], truth.get("function", "?"), *truth["statement"], planted,
                         saving, "\n  - ".join(problems)))
    if openmp:
        check_threads(rc, truth)
    log("defect on: OK, root cause #1 is the planted %s in loop %d-%d, ranks %s, cost %.3f s "
        "(saving %.3f s: %s)" % (rc["category"], *truth["loop"], named, rc["cost_seconds"],
                                 saving, how))


def check_threads(rc, truth):
    """The threads root cause #1 names, for the MPI + OpenMP examples (2 threads):
    thread_imbalance lists the process's team heaviest first, the long half's
    thread (not the main thread, index 0) first; the serial section between
    regions names the main thread alone; a process cause names none."""
    threads = rc.get("threads")
    cat = truth["category"]
    if cat == "thread_imbalance":
        ok = threads is not None and len(threads) == 2 and threads[0] not in (0, None)
        want = "the team's 2 threads, a worker (not 0) first"
    elif cat == "serial_bottleneck":
        ok = threads == [0]
        want = "[0], the main thread alone"
    else:
        ok = not threads
        want = "none (a cause among processes)"
    if not ok:
        raise Failure("defect on: root cause #1 (%s) names threads %s, expected %s"
                      % (cat, threads, want))
    log("defect on: threads %s (%s)" % (threads, want))


def launcher_flags(mpi):
    """Options the launcher needs here: Open MPI's mpirun runs as root and with more
    processes than cores only when told; MPICH's hydra needs (and rejects) neither."""
    return [] if mpi == "mpich" else ["--allow-run-as-root", "--oversubscribe"]


def launch_command(args, scalana_run, p, run_dir, exe_args):
    """The command of one run.  scalana-run (the launcher wrapper: it reads the
    program's MPI library with ldd and forwards LD_PRELOAD and SCALANA_* to the ranks),
    or, with --launch preload, what a user types without it: the launcher's own
    option that sets LD_PRELOAD for the ranks (Open MPI -x VAR=VALUE, hydra -genv)."""
    flags = launcher_flags(args.mpi)
    if args.openmp and args.mpi != "mpich":   # hydra passes the environment on
        # the team's threads must not share the rank's one core
        flags = flags + ["--bind-to", "none"] + [a for k in OMP_ENV for a in ("-x", k)]
    if args.launch == "scalana-run":
        return [scalana_run, args.mpirun] + flags + ["-n", str(p)] + exe_args
    if args.mpi == "mpich":
        env = ["-genv", "LD_PRELOAD", args.preload, "-genv", "SCALANA_OUTPUT", run_dir]
    else:
        env = ["-x", "LD_PRELOAD=" + args.preload, "-x", "SCALANA_OUTPUT=" + run_dir]
    return [args.mpirun] + flags + env + ["-n", str(p)] + exe_args


def check_foreign(exe):
    """--exe: the binary must be one a user brings, built without ScalAna: no
    .scalana_psg section (the pass's structure graph) and no ScalAna runtime among its
    dynamic dependencies (else the test would not test LD_PRELOAD alone)."""
    readelf = shutil.which("readelf")
    if not readelf:
        raise Failure("readelf not found (binutils): cannot check that %s is built without "
                      "ScalAna" % exe)
    p = subprocess.run([readelf, "-W", "-S", "-d", exe], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Failure("readelf cannot read %s: %s" % (exe, p.stderr.strip()))
    if ".scalana_psg" in p.stdout:
        raise Failure("%s holds a .scalana_psg section: not a build without ScalAna" % exe)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", p.stdout)
    if any("scalana" in n for n in needed):
        raise Failure("%s links %s: not a build without ScalAna"
                      % (exe, [n for n in needed if "scalana" in n]))
    log("built without ScalAna: no .scalana_psg section; links %s" % ", ".join(needed))


def run_all(args, exe, modes, procs, scalana_run, workdir, cores):
    """Runs the example once per (count, mode) under scalana-run (or with the runtime
    preloaded by the launcher, launch_command), the defect-on and
    defect-off runs of one count back to back so that both see the same machine
    load; returns {mode: [(p, run_dir, ground truth), ...]} in the order of procs.
    A failed run is a Failure of every mode (the test stops)."""
    runs = {m: [] for m in modes}
    for p in procs:
        for mode in modes:
            if mode == "off" and "on" in runs and runs["on"] and runs["on"][-1][0] == p \
                    and runs["on"][-1][2].get("inert"):
                # The defect-on run was the defect-off program (1 process: nothing to
                # unbalance); the same job serves both series.
                log("  (defect off at %dp: the defect-on run, which ran the defect-off code)" % p)
                runs["off"].append(runs["on"][-1])
                continue
            series = os.path.join(workdir, "defect-" + mode)
            os.makedirs(series, exist_ok=True)
            run_dir = os.path.join(series, "run-%dp" % p)
            # SCALANA_EXAMPLE_CORES: the cores the example's CPU model assumes.
            env = dict(os.environ, SCALANA_OUTPUT=run_dir, SCALANA_EXAMPLE_CORES=str(cores))
            if args.openmp:
                env.update(OMP_ENV)
            cmd = launch_command(args, scalana_run, p, run_dir, [exe, "--defect=" + mode])
            if args.scale != 1.0:
                cmd.append("--scale=%g" % args.scale)
            rc, out, err = run(cmd, series, env, timeout=args.run_timeout,
                               what="the %dp run (defect %s)" % (p, mode))
            for line in out.splitlines():
                if line.startswith("ground truth:"):
                    log("  " + line)
            if rc != 0:
                raise Failure("the %d-process run (defect %s) exited %d:\n%s\n%s"
                              % (p, mode, rc, tail(out), tail(err)))
            if not os.path.isdir(run_dir):
                raise Failure("scalana-run wrote no run directory %s\n%s" % (run_dir, tail(err)))
            runs[mode].append((p, run_dir, parse_truth(out)))
    if "on" in runs and "off" in runs:
        log("measured savings (run seconds, defect on - off; the CPU model with a core per "
            "process and on %d cores):" % cores)
        for (p, _, on), (_, _, off) in zip(runs["on"], runs["off"]):
            model = on.get("saving_seconds")
            log("  %dp: %.3f - %.3f = %+.3f s%s%s" % (
                p, on["run_seconds"], off["run_seconds"], on["run_seconds"] - off["run_seconds"],
                "; model %.3f s (%.3f s)" % (model, on.get("saving_on_cores_seconds") or 0.0)
                if model is not None else "",
                "; in the collective %.3f - %.3f s" % (on["comm_seconds"], off["comm_seconds"])
                if on.get("comm_seconds") is not None and off.get("comm_seconds") is not None
                else ""))
    return runs


def analyze(args, scalana_analyze, mode, series_runs, workdir):
    """scalana-analyze over one mode's runs; returns (report, terminal output, report dir)."""
    series = os.path.join(workdir, "defect-" + mode)
    out_dir = os.path.join(series, "report")
    # the structure recovered from a binary without a PSG is cached by build-id: a
    # cache of the test's own, so that every test recovers it with the rules built
    env = dict(os.environ, SCALANA_PSG_CACHE=os.path.join(workdir, "psg-cache"))
    rc, out, err = run([scalana_analyze] + [d for _, d, _ in series_runs] + ["-o", out_dir], series,
                       env=env, timeout=args.analyze_timeout, what="scalana-analyze")
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
    return report, out + err, out_dir


def verdict(args, ex):
    """--verdict: judge an existing report.json against the ground truth printed in a
    run's output (used by scripts/demo.sh); one line, exit 0 found / 1 missed."""
    try:
        with open(args.truth_log) as f:
            truth = parse_truth(f.read())
        with open(args.verdict) as f:
            report = json.load(f)
        validate_schema(report, args.schema)
        base = None
        if args.truth_base_log:
            with open(args.truth_base_log) as f:
                base = parse_truth(f.read())
        if truth["category"]:
            check_planted(report, truth, truth["processes"], truth.get("cores") or
                          len(os.sched_getaffinity(0)), openmp=ex["needs"] == "openmp",
                          truth_base=base)
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
    ap.add_argument("--truth-base-log", help="with --verdict: output of the run at the smallest count "
                    "with two or more processes (the base of a communication cost's growth)")
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    ap.add_argument("--mpi", choices=("openmpi", "mpich"), default="openmpi",
                    help="the MPI library of the launcher and the binary")
    ap.add_argument("--exe", help="test this prebuilt binary (built without ScalAna) "
                    "instead of compiling the example with scalana-cc/-cxx/-fc")
    ap.add_argument("--launch", choices=("scalana-run", "preload"), default="scalana-run",
                    help="how the ranks get the runtime: scalana-run, or LD_PRELOAD "
                    "forwarded by the launcher (needs --preload)")
    ap.add_argument("--preload", help="the runtime library for --launch preload "
                    "(build/lib/libscalana-<mpi>.so)")
    ap.add_argument("--procs", default="1,2,4,8")
    ap.add_argument("--modes", default="on,off", help="defect modes to test (on,off)")
    ap.add_argument("--reference-off", action="store_true",
                    help="with --modes on: one defect-off run at the largest count, only "
                    "as the reference of the saving (needed where it is measured: the "
                    "communication examples)")
    ap.add_argument("--scale", type=float, default=1.0, help="--scale passed to the example")
    ap.add_argument("--openmp", action="store_true",
                    help="an MPI + OpenMP example (examples.list needs openmp): compiled with "
                    "-fopenmp (scalana-cc), run with OMP_NUM_THREADS=2, OMP_WAIT_POLICY=passive, "
                    "--bind-to none; root cause #1's threads are checked")
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
        compiler = None if args.exe else tool(args.bindir, COMPILERS[ex["language"]])
        if args.launch == "preload":
            if not args.preload:
                ap.error("--launch preload needs --preload LIB")
            if not os.path.isfile(args.preload) or os.path.getsize(args.preload) == 0:
                skip("the runtime library %s is not built yet" % args.preload)
            args.preload = os.path.abspath(args.preload)
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
        if args.exe:
            exe = os.path.abspath(args.exe)
            if not os.path.isfile(exe):
                raise Failure("the prebuilt binary %s does not exist (built by the target "
                              "`examples`, examples/CMakeLists.txt)" % exe)
            check_foreign(exe)
            built_by = "%s (prebuilt)" % os.path.relpath(exe, os.path.dirname(os.path.dirname(exe)))
        else:
            exe = os.path.join(workdir, ex["name"])
            omp = ["-fopenmp"] if args.openmp else []
            rc, out, err = run([compiler, ex["opt"]] + omp + ["-g", "-I" + examples, source, "-o", exe],
                               workdir, timeout=300, what=compiler)
            if rc != 0 or not os.path.isfile(exe):
                raise Failure("%s failed (exit %d, %s):\n%s\n%s"
                              % (os.path.basename(compiler), rc,
                                 "executable written" if os.path.isfile(exe) else "no executable",
                                 tail(out), tail(err)))
            built_by = os.path.basename(compiler)

        procs = [int(p) for p in args.procs.split(",")]
        cores = len(os.sched_getaffinity(0))
        modes = args.modes.split(",") if ex["category"] else ["on"]
        log("== %s (%s %s), defect %s, %s processes, %d cores, %s through %s"
            % (ex["name"], built_by, ex["opt"], "/".join(modes), procs, cores,
               os.path.basename(args.mpirun), args.launch))
        runs = run_all(args, exe, modes, procs, scalana_run, workdir, cores)
        largest = {m: runs[m][-1][2] for m in modes}
        if args.reference_off and "off" not in modes and ex["category"]:
            # one defect-off run at the largest count, only for the saving the
            # cost is compared with (the collectives' saving is measured); not analysed
            ref = run_all(args, exe, ["off"], procs[-1:], scalana_run,
                          os.path.join(workdir, "reference"), cores)
            largest["off"] = ref["off"][-1][2]
        if ex["category"] and "on" in modes:
            truth = largest["on"]
            if truth["category"] != ex["category"]:
                raise Failure("example bug: planted %s, examples.list says %s"
                              % (truth["category"], ex["category"]))
            check_planted_range(src_lines, truth, ex["language"])
            if args.exe:   # the example's premise is clang's inlining; gcc's is logged
                try:
                    check_inlined(exe, truth)
                except Failure as e:
                    log("note (not a failure for this build): %s" % e)
            else:
                check_inlined(exe, truth)
    except Failure as e:
        log("FAIL: %s: %s" % (args.example, e))
        return 1
    failures = []
    for mode in modes:   # every mode is analyzed, so that one log shows every failure
        log("== %s, defect %s: analysis" % (ex["name"], mode))
        try:
            report, terminal, report_dir = analyze(args, scalana_analyze, mode, runs[mode], workdir)
        except Failure as e:
            log("FAIL: %s: %s" % (args.example, e))
            failures.append(mode)
            continue
        checks = []
        if mode == "on" and ex["category"]:
            base = next((t for q, _, t in runs["on"] if 2 <= q < max(procs)), None)
            checks.append(lambda: check_planted(report, largest["on"], max(procs), cores,
                                                largest.get("off"), openmp=args.openmp,
                                                truth_base=base))
        else:
            checks.append(lambda: check_quiet(report, "defect off" if ex["category"] else "control"))
        if ex["language"] == "cxx":
            checks.append(lambda: check_demangled(report_dir, terminal, report))
        for check in checks:   # each check runs, so that the log shows every failure
            try:
                check()
            except Failure as e:
                log("FAIL: %s: %s" % (args.example, e))
                if mode not in failures:
                    failures.append(mode)
    if failures:
        log("FAIL: %s (defect %s)" % (args.example, ", ".join(failures)))
        return 1
    log("PASS: %s" % args.example)
    return 0


if __name__ == "__main__":
    sys.exit(main())
