#!/usr/bin/python3
"""inline_attr.py — attribution through inlining, on real binaries.

Builds one of the programs of tests/analyzer/inline/ with scalana-cc/-cxx/-fc
at -O2/-O3 (real DWARF inline chains), checks that the compiler really
inlined the helper (so the test tests inlining), runs it under scalana-run
with 2 processes, analyzes the run and asserts in report.json which vertex
receives the samples and which the MPI time:

  c_helper        static helpers inlined at -O2: the samples reach the loops
                  of smooth() under its call site in main's loop; the
                  MPI_Allreduce inside the inlined total() stays under
                  total()'s call site inside main's loop.
  cxx_template    the miniFE pattern (namespace, header template, functor,
                  lambda, -O3): the CG loop holds the solver's time, the
                  matvec functor's loop its CPU, the dot product's
                  MPI_Allreduce stays under the dot call sites in the loop.
  fortran_module  a module procedure inlined into the main program at -O2:
                  the samples reach its loops.

Vertices are named by paths of steps KIND[:@marker][=name]: a marker is a
comment "@name" in the sources, naming its line; "=name" a substring of the
vertex's name.  Exit 77 (skip) when a tool is missing.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "inline")

# minimum shares: the loops named are where the program computes (they hold
# nearly all of it); margins are wide because 2 cores are shared
CASES = {
    "c_helper": {
        "compiler": "scalana-cc", "flags": ["-O2"], "sources": ["helper.c"],
        "inlined": {"main": ["smooth", "total"]},
        "cpu": [
            # (path, minimum share of all CPU time outside MPI)
            ("LOOP:@main-loop/COMPUTE/CALL:@call-smooth=smooth/FUNCTION=smooth/LOOP:@smooth-loop", 0.35),
            ("LOOP:@main-loop/COMPUTE/CALL:@call-smooth=smooth/FUNCTION=smooth", 0.80),
        ],
        "mpi": [
            # (path, minimum share of all MPI time outside MPI_Init/Finalize)
            ("LOOP:@main-loop/CALL:@call-total=total/FUNCTION=total/MPI:@total-mpi", 0.90),
        ],
    },
    "cxx_template": {
        "compiler": "scalana-cxx", "flags": ["-O3"], "sources": ["cg_main.cpp"],
        "inlined": {"cg_solve": ["matvec_std", "mini::dot"]},
        "cpu": [
            ("LOOP:@cg-loop/COMPUTE/CALL:@cg-matvec=matvec_std/FUNCTION=matvec_std/LOOP:@matvec-loop", 0.30),
            ("FUNCTION=cg_solve/LOOP:@cg-loop", 0.60),
        ],
        "mpi": [
            ("LOOP:@cg-loop/CALL:@cg-dot=dot/FUNCTION=dot/MPI:@dot-mpi", 0.30),
            ("FUNCTION=cg_solve/LOOP:@cg-loop", 0.85),
        ],
        "no_cpu_on": [("FUNCTION=cg_solve", 0.10)],  # the function itself: at most this share
    },
    "fortran_module": {
        "compiler": "scalana-fc", "flags": ["-O2"], "sources": ["modproc.f90"],
        "inlined": {"_QQmain": ["relax"]},
        "cpu": [
            ("LOOP:@main-loop/COMPUTE/CALL:@call-relax=relax/FUNCTION=relax/LOOP:@relax-loop", 0.35),
            ("CALL:@call-relax=relax/FUNCTION=relax", 0.80),
        ],
        "mpi": [("LOOP:@main-loop/MPI", 0.90)],
    },
}


class Failure(Exception):
    pass


def markers(sources):
    """marker -> set of (file basename, line) (several files may use one name)."""
    out = {}
    for src in sources:
        for no, line in enumerate(open(src), 1):
            for m in re.findall(r"@([a-z][a-z0-9-]*)", line):
                out.setdefault(m, set()).add((os.path.basename(src), no))
    return out


def parse_step(step, marks):
    m = re.fullmatch(r"([A-Z_]+)(?::@([a-z0-9-]+))?(?:=(.+))?", step)
    if not m:
        raise Failure("bad step %r" % step)
    kind, mark, name = m.groups()
    where = marks[mark] if mark else None
    return kind, where, name


def step_matches(v, kind, where, name):
    if v["kind"] != kind:
        return False
    if where and (os.path.basename(v["file"]), v["line"]) not in where:
        return False
    return not name or name in v["name"]


def find(report, path, marks):
    """Every vertex at the end of path (a chain of direct children)."""
    steps = [parse_step(s, marks) for s in path.split("/")]
    verts = report["vertices"]
    kids = {}
    for v in verts:
        kids.setdefault(v["parent"], []).append(v)
    cur = [v for v in verts if step_matches(v, *steps[0])]
    for st in steps[1:]:
        cur = [c for v in cur for c in kids.get(v["id"], []) if step_matches(c, *st)]
    return cur, kids


def last(v, key):
    return v["metrics"][-1][key] if v["metrics"] else 0.0


def subtree_sum(v, kids, key):
    return last(v, key) + sum(subtree_sum(c, kids, key) for c in kids.get(v["id"], []))


def run(cmd, cwd, env=None, timeout=600):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    if p.returncode != 0:
        raise Failure("%s exited %d:\n%s\n%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:],
                                                 p.stderr[-2000:]))
    return p.stdout


def check_inlined(exe, inlined):
    """The callees really were inlined: the caller's code calls none of them."""
    dis = run(["llvm-objdump-19", "-d", "-C", "--no-show-raw-insn", exe], os.path.dirname(exe))
    for caller, callees in inlined.items():
        body, inside = [], False
        for line in dis.splitlines():
            if re.match(r"^[0-9a-f]+ <", line):
                inside = re.search(r"<(.*)>:", line) and caller in line.split("<", 1)[1].split("(")[0]
                continue
            if inside:
                body.append(line)
        if not body:
            raise Failure("no code of %s in %s" % (caller, exe))
        for callee in callees:
            calls = [l for l in body if re.search(r"\bcall", l) and callee in l]
            if calls:
                raise Failure("%s is not inlined into %s (%s): the test needs the inlined build"
                              % (callee, caller, calls[0].strip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun")
    a = ap.parse_args()
    case = CASES[a.case]
    for tool in (case["compiler"], "scalana-run", "scalana-analyze"):
        if not os.access(os.path.join(a.bindir, tool), os.X_OK):
            print("skip: %s missing" % tool)
            return 77
    if not shutil.which("llvm-objdump-19") or not shutil.which(a.mpirun):
        print("skip: llvm-objdump-19 or %s missing" % a.mpirun)
        return 77
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    sources = [os.path.join(SRC, s) for s in case["sources"]]
    exe = os.path.join(a.workdir, a.case)
    run([os.path.join(a.bindir, case["compiler"])] + case["flags"] + sources + ["-o", exe],
        a.workdir)
    check_inlined(exe, case["inlined"])
    run_dir = os.path.join(a.workdir, "run-2p")
    env = dict(os.environ, SCALANA_OUTPUT=run_dir)
    run([os.path.join(a.bindir, "scalana-run"), a.mpirun, "--allow-run-as-root", "--oversubscribe",
         "-n", "2", exe], a.workdir, env)
    out = os.path.join(a.workdir, "report")
    run([os.path.join(a.bindir, "scalana-analyze"), "-q", "--no-viewer", "-o", out, run_dir],
        a.workdir)
    report = json.load(open(os.path.join(out, "report.json")))
    marks = markers([os.path.join(SRC, f) for f in os.listdir(SRC)])

    verts = report["vertices"]
    total_cpu = sum(last(v, "cpu_mean_seconds") for v in verts)
    total_mpi = sum(last(v, "mpi_mean_seconds") for v in verts
                    if not (v["kind"] == "MPI" and v["name"] in ("MPI_Init", "MPI_Finalize")))
    print("%s: CPU %.3f s, MPI %.3f s per process (mean)" % (a.case, total_cpu, total_mpi))
    if total_cpu <= 0:
        raise Failure("no CPU time sampled")
    errors = []
    for what, key, total in (("cpu", "cpu_mean_seconds", total_cpu),
                             ("mpi", "mpi_mean_seconds", total_mpi)):
        for path, share in case.get(what, []):
            found, kids = find(report, path, marks)
            got = sum(subtree_sum(v, kids, key) for v in found)
            print("  %s %-100s %.3f s = %5.1f%% (needs >= %.0f%%)"
                  % (what, path, got, 100 * got / total if total else 0, 100 * share))
            if not found:
                errors.append("no vertex at %s" % path)
            elif got < share * total:
                errors.append("%s at %s is %.3f s, under %.0f%% of %.3f s"
                              % (what, path, got, 100 * share, total))
    for path, share in case.get("no_cpu_on", []):
        found, _ = find(report, path, marks)
        got = sum(last(v, "cpu_mean_seconds") for v in found)
        print("  cpu exclusive on %s: %.3f s (at most %.0f%%)" % (path, got, 100 * share))
        if got > share * total_cpu:
            errors.append("%.3f s of CPU stays on %s itself" % (got, path))
    if errors:
        raise Failure("\n".join(errors))
    print("ok")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
