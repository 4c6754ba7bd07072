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
                  total()'s call site inside main's loop, named at that
                  call site (total() is a thin MPI wrapper: its PSG is the
                  MPI call alone, docs/analyzer.md).
  cxx_template    the miniFE pattern (namespace, header template, functor,
                  lambda, -O3): the CG loop holds the solver's time, the
                  matvec functor's loop its CPU, the dot product's
                  MPI_Allreduce stays under the dot call sites in the loop.
  fortran_module  a module procedure inlined into the main program at -O2:
                  the samples reach its loops.
  c_helper_chain  c_helper with rank 0 smoothing four times the rows: the
                  root cause lies in smooth() and its call chain is the one
                  call site in main, inlined.
  fortran_chain   fortran_module with rank 0 relaxing three times the
                  points: the root cause is relax's loop, named
                  kernels::relax, inlined into "program modproc" (the name of
                  its program statement) and no frame of flang's C main.
  dyn_ranges      helper.c built without the pass: the DYNAMIC vertices of
                  main and of the inlined smooth() carry the function's own
                  lines from DWARF (declaration to last line), not the lines
                  samples fell on.
  cxx_names       the C++ program with an imbalance and a part built without
                  the pass: no mangled (_Z) name and no closure name ($_0,
                  {lambda(...)#1}) reaches the terminal summary,
                  a person-facing field of report.json (all but linkage_name),
                  index.html or a DOT file; linkage names are kept; the
                  axpy lambda is "lambda at cg.hpp:LINE in mini::cg_solve<".

Vertices are named by paths of steps KIND[:@marker][=name]: a marker is a
comment "@name" in the sources, naming its line; "=name" a substring of the
vertex's name.  Exit 77 (skip) when a tool is missing.
"""
import argparse
import html
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
        "build": [("scalana-cc", ["-O2"], ["helper.c"])],
        "inlined": {"main": ["smooth", "total"]},
        "cpu": [
            # (path, minimum share of all CPU time outside MPI)
            ("LOOP:@main-loop/COMPUTE/CALL:@call-smooth=smooth/FUNCTION=smooth/LOOP:@smooth-loop", 0.35),
            ("LOOP:@main-loop/COMPUTE/CALL:@call-smooth=smooth/FUNCTION=smooth", 0.80),
        ],
        "mpi": [
            # (path, minimum share of all MPI time outside MPI_Init/Finalize/Barrier)
            ("LOOP:@main-loop/CALL:@call-total=total/MPI:@call-total", 0.90),
        ],
    },
    "cxx_template": {
        "build": [("scalana-cxx", ["-O3"], ["cg_main.cpp"]),
                  ("scalana-cxx", ["-O3", "--scalana-no-plugin"], ["cg_extra.cpp"])],
        "inlined": {"cg_solve": ["matvec_std", "mini::dot"]},
        "cpu": [
            ("LOOP:@cg-loop/COMPUTE/CALL:@cg-matvec=matvec_std/FUNCTION=matvec_std/LOOP/LOOP:@matvec-loop", 0.30),
            ("FUNCTION=cg_solve/LOOP:@cg-loop", 0.60),
        ],
        "mpi": [
            ("LOOP:@cg-loop/CALL:@cg-dot=dot/FUNCTION=dot/MPI:@dot-mpi", 0.30),
            ("FUNCTION=cg_solve/LOOP:@cg-loop", 0.85),
        ],
        "no_cpu_on": [("FUNCTION=cg_solve", 0.10)],  # the function itself: at most this share
    },
    "fortran_module": {
        "build": [("scalana-fc", ["-O2"], ["modproc.f90"])],
        # the loop work counters raise relax's inline cost from 180 to 225, the
        # -O2 threshold: with them flang calls relax (docs/plugin.md, "Work
        # counters"); the case is about attribution through inlining
        "compile_env": {"SCALANA_WORK_COUNTERS": "0"},
        "inlined": {"_QQmain": ["relax"]},
        "cpu": [
            ("LOOP:@main-loop/COMPUTE/CALL:@call-relax=relax/FUNCTION=relax/LOOP:@relax-loop", 0.35),
            ("CALL:@call-relax=relax/FUNCTION=relax", 0.80),
        ],
        "mpi": [("LOOP:@main-loop/MPI", 0.90)],
    },
    "c_helper_chain": {
        "build": [("scalana-cc", ["-O2"], ["helper.c"])], "args": ["imbalance"], "viewer": True, "freq": 1000,
        "inlined": {"main": ["smooth", "total"]},
        "chain": {"function": "smooth", "calls": [("main", "@call-smooth", True)], "loop": "@smooth-loop"},
    },
    "dyn_ranges": {
        # built without the pass and analysed without structure recovery
        # (--no-recover): the function vertices are dynamic
        "build": [("scalana-cc", ["-O2", "--scalana-no-plugin"], ["helper.c"])],
        "analyze_args": ["--no-recover"],
        "inlined": {"main": ["smooth", "total"]},
        "ranges": [
            # (function, first line, last line at least, last line at most)
            ("smooth", "@smooth-def", "@copy-body", "@smooth-end"),
            ("main", "@main-def", "@main-loop", None),
        ],
    },
    "c_helper_recovered": {
        # built without the pass: the structure recovered from the machine code
        # (docs/binstruct.md) puts the samples in the inlined helper's loop
        "build": [("scalana-cc", ["-O2", "--scalana-no-plugin"], ["helper.c"])],
        "inlined": {"main": ["smooth", "total"]},
        "cpu": [
            ("LOOP:@main-loop/CALL:@call-smooth=smooth/FUNCTION=smooth/LOOP:@smooth-loop", 0.35),
            ("LOOP:@main-loop/CALL:@call-smooth=smooth/FUNCTION=smooth", 0.80),
        ],
        "mpi": [
            ("LOOP:@main-loop/CALL:@call-total=total/MPI:@call-total", 0.90),
        ],
    },
    "fortran_chain": {
        "build": [("scalana-fc", ["-O2"], ["modproc.f90"])], "args": ["imbalance"], "viewer": True, "freq": 1000,
        "compile_env": {"SCALANA_WORK_COUNTERS": "0"},  # as fortran_module
        "inlined": {"_QQmain": ["relax"]},
        "chain": {"function": "kernels::relax", "calls": [("program modproc", "@call-relax", True)],
                  "loop": "@relax-loop"},
    },
    "cxx_names": {
        "build": [("scalana-cxx", ["-O3"], ["cg_main.cpp"]),
                  ("scalana-cxx", ["-O3", "--scalana-no-plugin"], ["cg_extra.cpp"])],
        "args": ["imbalance"], "viewer": True, "freq": 1000, "names": True,
        "inlined": {"cg_solve": ["matvec_std", "mini::dot"]},
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


def check_chain(report, want, marks, out=None):
    """A root cause inside want["function"] whose call_chain is want["calls"]
    ((caller, call-line marker, inlined) from main) and whose location names
    each call; with want["loop"], the location is the loop at that marker
    (or one nested in it); with out, the viewer's outputs say the same."""
    causes = [c for c in report["root_causes"] if want["function"] in c["function"]]
    for c in report["root_causes"]:
        print("  #%d %s: %s" % (c["rank"], c["category"], c.get("location")))
    if not causes:
        raise Failure("no root cause in %s" % want["function"])
    c = causes[0]
    chain = c.get("call_chain", [])
    if len(chain) != len(want["calls"]):
        raise Failure("call chain %s, wanted %d call sites" % (chain, len(want["calls"])))
    for got, (fn, mark, inlined) in zip(chain, want["calls"]):
        where = marks[mark.lstrip("@")]
        if got["function"] != fn or (os.path.basename(got["file"]), got["line"]) not in where \
                or got["inlined"] != inlined:
            raise Failure("call site %s, wanted %s at %s (inlined %s)" % (got, fn, sorted(where), inlined))
        text = "%s %s at %s:%d" % ("inlined into" if inlined else "called from", fn,
                                   os.path.basename(got["file"]), got["line"])
        if text not in c.get("location", ""):
            raise Failure("location %r does not say %r" % (c.get("location"), text))
    loop = want.get("loop")
    if loop:
        # the innermost loop inside the marked one: its first line is the
        # marked line or below, within the function
        (f, first), = marks[loop.lstrip("@")]
        m = re.match(r"loop ([^:]+):(\d+)-(\d+) in ", c.get("location", ""))
        if not m or m.group(1) != f or not first <= int(m.group(2)) <= first + 2 \
                or int(m.group(3)) < int(m.group(2)):
            raise Failure("location %r is not a loop at %s:%d" % (c.get("location"), f, first))
        if (c["line"], c["last_line"]) != (int(m.group(2)), int(m.group(3))):
            raise Failure("report.json line/last_line %d-%d differ from the location %r"
                          % (c["line"], c["last_line"], c["location"]))
    if out:
        check_viewer(c, out)
    print("ok")
    return 0


def check_ranges(report, want, marks):
    """Every DYNAMIC function vertex of each named function spans the
    function's own lines (from DWARF, the same in every run)."""
    errors = []
    for fn, first, last_min, last_max in want:
        vs = [v for v in report["vertices"] if v["kind"] == "DYNAMIC" and v["function"] == fn]
        if not vs:
            errors.append("no DYNAMIC vertex of %s" % fn)
        for v in vs:
            def line(mark):
                return min(no for f, no in marks[mark.lstrip("@")] if f == os.path.basename(v["file"]))
            hi = line(last_max) if last_max else 1 << 30
            print("  %s: lines %d-%d (want %d-[%d, %s])" % (fn, v["line"], v["last_line"], line(first),
                                                         line(last_min), hi if last_max else "end"))
            if v["line"] != line(first) or not line(last_min) <= v["last_line"] <= hi:
                errors.append("vertex %d of %s spans %d-%d" % (v["id"], fn, v["line"], v["last_line"]))
    if errors:
        raise Failure("\n".join(errors))
    print("ok")
    return 0


KIND_TWICE = re.compile(r"\b(LOOP|COMPUTE|BRANCH|FUNCTION|CALL|MPI|GPU|DYNAMIC) \1\b")


def check_viewer(cause, out):
    """The HTML cause header and the DOT title of the cause show the same
    location text as the terminal; no label prints a vertex kind twice."""
    page = open(os.path.join(out, "index.html"), errors="replace").read()
    heads = re.findall(r'<li class="cause" id="cause-%d".*?<button class="cause-head"[^>]*>(.*?)</button>'
                       % cause["rank"], page, re.S)
    head = html.unescape(re.sub(r"<[^>]+>", " ", heads[0])) if heads else ""
    if cause["location"] not in head:
        raise Failure("index.html header of cause #%d %r lacks %r" % (cause["rank"], head, cause["location"]))
    dot = open(os.path.join(out, "rootcause-%d.dot" % cause["rank"]), errors="replace").read()
    if cause["location"] not in dot:
        raise Failure("rootcause-%d.dot lacks %r" % (cause["rank"], cause["location"]))
    for f in sorted(os.listdir(out)):
        if f.endswith(".dot") or f == "index.html":
            m = KIND_TWICE.search(open(os.path.join(out, f), errors="replace").read())
            if m:
                raise Failure("%s prints a kind twice: %r" % (f, m.group(0)))
    print("  viewer: index.html and rootcause-%d.dot show %r" % (cause["rank"], cause["location"]))


MANGLED = re.compile(r"(?<![A-Za-z0-9_])_Z[A-Za-z0-9_]")
CLOSURE = re.compile(r"\$_[0-9]|\{lambda\(|'lambda[0-9]*'\(")


def marks_line(mark):
    """The line of a marker that only one source file uses."""
    (_, line), = markers([os.path.join(SRC, f) for f in sorted(os.listdir(SRC))])[mark]
    return line


def check_names(report, summary, out):
    """No mangled C++ name in what a person reads; linkage names kept."""
    errors = []
    def walk(o, where):
        if isinstance(o, dict):
            for k, v in o.items():
                if k != "linkage_name":
                    walk(v, where + "." + k)
        elif isinstance(o, list):
            for i, v in enumerate(o):
                walk(v, "%s[%d]" % (where, i))
        elif isinstance(o, str) and MANGLED.search(o):
            errors.append("report.json%s: %s" % (where, o[:120]))
    walk(report, "")
    texts = {"summary": summary}
    for f in sorted(os.listdir(out)):
        if f.endswith(".dot") or f == "index.html":
            texts[f] = open(os.path.join(out, f), errors="replace").read()
    if "index.html" not in texts or not any(f.endswith(".dot") for f in texts):
        errors.append("the viewer wrote no index.html or DOT file")
    for name, text in texts.items():
        for rx in (MANGLED, CLOSURE):
            for m in rx.finditer(text):
                errors.append("%s: ...%s..." % (name, text[max(0, m.start() - 40):m.end() + 40]))
                break
    # lambdas read "lambda at FILE:LINE in OUTER", not clang's "$_0" or a
    # demangler's {lambda(...)#1} / 'lambda'(...)
    for v in report["vertices"]:
        for k in ("name", "function"):
            if CLOSURE.search(v[k]):
                errors.append("vertex %d %s: %s" % (v["id"], k, v[k][:120]))
    lambdas = [v for v in report["vertices"] if v["kind"] == "FUNCTION"
               and v["function"].startswith("lambda at cg.hpp:%d in mini::cg_solve<" % marks_line("axpy-def"))
               and v.get("linkage_name", "").startswith("_Z")]
    if not lambdas:
        errors.append("no FUNCTION vertex 'lambda at cg.hpp:%d in mini::cg_solve<...>' with its linkage name"
                      % marks_line("axpy-def"))
    linkage = [v for v in report["vertices"] if v.get("linkage_name", "").startswith("_Z")]
    dynamic = [v for v in linkage if v.get("dynamic")]
    print("  %d vertices keep a _Z linkage name (%d dynamic), %d root causes"
          % (len(linkage), len(dynamic), len(report["root_causes"])))
    if not dynamic:
        errors.append("no dynamic vertex with a C++ linkage name: the test does not test demangling")
    if not report["root_causes"]:
        errors.append("no root cause: the summary shows no function name")
    if errors:
        raise Failure("\n".join(errors[:20]))
    print("ok")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun")
    a = ap.parse_args()
    case = CASES[a.case]
    tools = sorted({b[0] for b in case["build"]}) + ["scalana-run", "scalana-analyze"]
    for tool in tools:
        if not os.access(os.path.join(a.bindir, tool), os.X_OK):
            print("skip: %s missing" % tool)
            return 77
    if not shutil.which("llvm-objdump-19") or not shutil.which(a.mpirun):
        print("skip: llvm-objdump-19 or %s missing" % a.mpirun)
        return 77
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    exe = os.path.join(a.workdir, a.case)
    objs = []
    cenv = dict(os.environ, **case.get("compile_env", {}))
    for compiler, flags, srcs in case["build"]:
        for src in srcs:
            obj = os.path.join(a.workdir, os.path.splitext(src)[0] + ".o")
            run([os.path.join(a.bindir, compiler)] + flags + ["-c", os.path.join(SRC, src), "-o", obj],
                a.workdir, env=cenv)
            objs.append(obj)
    run([os.path.join(a.bindir, case["build"][0][0])] + objs + ["-o", exe], a.workdir)
    check_inlined(exe, case["inlined"])
    run_dir = os.path.join(a.workdir, "run-2p")
    env = dict(os.environ, SCALANA_OUTPUT=run_dir)
    if case.get("freq"):
        # a short run on busy cores: enough samples for the excess to be measured
        env["SCALANA_FREQ"] = str(case["freq"])
    run([os.path.join(a.bindir, "scalana-run"), a.mpirun, "--allow-run-as-root", "--oversubscribe",
         "-n", "2", exe] + case.get("args", []), a.workdir, env)
    out = os.path.join(a.workdir, "report")
    summary = run([os.path.join(a.bindir, "scalana-analyze"), "--color", "never", "-o", out,
                   "--psg-cache", "off"] + case.get("analyze_args", [])
                  + ([] if case.get("viewer") else ["--no-viewer"]) + [run_dir], a.workdir)
    report = json.load(open(os.path.join(out, "report.json")))
    marks = markers([os.path.join(SRC, f) for f in sorted(os.listdir(SRC))])

    if "ranges" in case:
        return check_ranges(report, case["ranges"], marks)
    if "chain" in case:
        return check_chain(report, case["chain"], marks, out if case.get("viewer") else None)
    if case.get("names"):
        return check_names(report, summary, out)
    verts = report["vertices"]
    total_cpu = sum(last(v, "cpu_mean_seconds") for v in verts)
    # start-up, shut-down and the set-up's skew (cg_main.cpp's barrier before the
    # solver) are not the solver's MPI time
    total_mpi = sum(last(v, "mpi_mean_seconds") for v in verts
                    if not (v["kind"] == "MPI" and v["name"] in ("MPI_Init", "MPI_Finalize", "MPI_Barrier")))
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
