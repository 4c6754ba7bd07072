#!/usr/bin/python3
"""check_gcc_structure.py — the structure recovered from the gcc builds of the examples.

For every example built with an MPI library's own compiler wrappers
(<build>/examples/gcc-<mpi>/, gcc/g++/gfortran -O2 -g, examples/CMakeLists.txt),
bs_dump prints the PSG that scalana-analyze recovers from its machine code
(analyzer/binstruct).  Without any MPI run, this asserts what the analysis of
such a binary needs before any sample lands:

  - the planted loop is a LOOP vertex starting on the planted loop's first line
    and ending inside it, in a FUNCTION whose name holds every identifier of the
    function the example names (`(anonymous namespace)::Domain::relax` for
    Domain::relax: gcc gives no linkage name to a member that exists only
    inlined); for the collectives, the MPI call on the planted lines;
  - `main` (Fortran: the main program) holds the iteration loop that reaches MPI
    (gcc splits `main` into main and main.cold, the cold part below it: a graph
    entered there has no loop);
  - a C++ lambda is named `lambda at <file>:<line> in main`, as the pass names it.

The ground truth (planted lines, function) is what each binary prints when run
alone (an MPI singleton, 1 process, --scale=0.01, well under a second).
Exit 0 pass, 1 fail, 77 skip (bs_dump or the gcc builds missing).
"""
import argparse
import json
import os
import re
import subprocess
import sys

GROUND_TRUTH = "SCALANA_GROUND_TRUTH "
VERTEX = re.compile(r"^(?P<indent> *)(?P<kind>[A-Z_]+) (?P<rest>.*)$")
LINES = re.compile(r" (?P<file>[^ :]+):(?P<first>\d+)-(?P<last>\d+)(?: |$)")


def examples(source_dir):
    with open(os.path.join(source_dir, "examples", "examples.list")) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                yield fields[0], fields[3]


def parse_dump(text):
    """bs_dump's tree as a list of (depth, kind, function, file, first, last, text)."""
    out = []
    for line in text.splitlines():
        m = VERTEX.match(line)
        if not m or m.group("kind") == "UNIT":
            continue
        rest = m.group("rest")
        lm = LINES.search(" " + rest)
        fn = rest[:lm.start()].strip() if lm else rest
        out.append((len(m.group("indent")) // 2, m.group("kind"), fn,
                    lm.group("file") if lm else "", int(lm.group("first")) if lm else 0,
                    int(lm.group("last")) if lm else 0, line))
    return out


def truth_of(exe):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               SCALANA_EXAMPLE_CORES="1")
    p = subprocess.run([exe, "--defect=on", "--scale=0.01"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120, env=env)
    for line in p.stdout.splitlines():
        if line.startswith(GROUND_TRUTH):
            return json.loads(line[len(GROUND_TRUTH):])
    raise RuntimeError("%s printed no ground truth (exit %d): %s" % (exe, p.returncode, p.stderr[-500:]))


def readable(name):
    """gfortran's module procedure __<mod>_MOD_<proc> as mod::proc (as the report reads it)."""
    m = re.match(r"^__(\w+?)_MOD_(\w+)$", name)
    return "%s::%s" % m.groups() if m else name


def names_all(got, want):
    got = readable(got)
    return all(re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(w), got)
               for w in re.findall(r"[A-Za-z_]\w*", want))


def check(name, category, exe, bs_dump):
    truth = truth_of(exe)
    p = subprocess.run([bs_dump, exe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if p.returncode != 0:
        return ["bs_dump failed (exit %d): %s" % (p.returncode, p.stderr.strip())]
    tree = parse_dump(p.stdout)
    base = os.path.basename(truth["file"])
    first, last = truth["loop"]
    problems = []
    # the planted loop (or, for the collectives, the MPI call on its lines)
    # (run_example.py's COMM_CATEGORIES)
    kinds = ("LOOP", "MPI") if category in ("growing_communication", "halo_exchange",
                                            "pipeline_wait") else ("LOOP",)
    hits = [v for v in tree if v[1] in kinds and v[3] == base and v[4] == first and v[5] <= last]
    if not hits:
        near = [v[6].strip() for v in tree if v[1] == "LOOP" and v[3] == base
                and v[4] <= last and v[5] >= first]
        problems.append("no %s starting at %s:%d and ending by %d (overlapping loops: %s)"
                        % ("/".join(kinds), base, first, last, near or "none"))
    elif not any(names_all(v[2], truth["function"]) for v in hits):
        problems.append("the planted loop %s is in %s, the example says %s"
                        % (hits[0][6].strip(), [v[2] for v in hits], truth["function"]))
    # main's iteration loop, with MPI in it (Fortran: the main program's, named
    # after the program as gfortran's DWARF names it)
    in_main = False
    main_loop = False
    for d, kind, fn, _, _, _, text in tree:
        if d == 0:
            in_main = kind == "FUNCTION" and fn in ("main", name)
        elif in_main and kind == "LOOP" and "reaches_mpi" in text:
            main_loop = True
    if not main_loop:
        problems.append("main has no loop that reaches MPI (its iteration loop)")
    # C++: a lambda as the pass names it, no bare member names
    if exe.endswith("_cxx"):
        funcs = [v[2] for v in tree if v[0] == 0 and v[1] == "FUNCTION"]
        bare = [f for f in funcs if f in ("operator()", "relax")]
        if bare:
            problems.append("C++ functions named without their class: %s" % bare)
        with open(truth["file"]) as f:
            src = f.read()
        has_lambda = "[&" in src or "[=" in src
        if has_lambda and not any(f.startswith("lambda at %s:" % base) for f in funcs):
            problems.append("no lambda named 'lambda at %s:LINE in ...' among %s" % (base, funcs[:8]))
    if not problems:
        print("  %s: planted %s at %s:%d-%d in %s: %s" % (os.path.relpath(exe, os.path.dirname(
            os.path.dirname(exe))), category, base, first, last, truth["function"], hits[0][6].strip()))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--examples-dir", required=True, help="<build>/examples")
    ap.add_argument("--bs-dump", required=True)
    args = ap.parse_args()
    if not os.access(args.bs_dump, os.X_OK):
        print("SKIP: %s not built" % args.bs_dump)
        return 77
    failures, checked = [], 0
    for mpi in ("openmpi", "mpich"):
        for name, category in examples(args.source_dir):
            exe = os.path.join(args.examples_dir, "gcc-" + mpi, name)
            if category == "none" or not os.path.isfile(exe):
                continue
            try:
                problems = check(name, category, exe, args.bs_dump)
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
                problems = [str(e)]
            checked += 1
            failures += ["gcc-%s/%s: %s" % (mpi, name, p) for p in problems]
    if not checked:
        print("SKIP: no gcc build of the examples under %s" % args.examples_dir)
        return 77
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print("PASS: %d gcc builds" % checked)
    return 0


if __name__ == "__main__":
    sys.exit(main())
