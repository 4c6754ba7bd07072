#!/usr/bin/python3
"""openmp_threads.py — load imbalance among the threads of a process (issue
26; detector thread_imbalance, docs/analyzer.md): progs/omp_triangle.c built
with scalana-cc -fopenmp runs with OMP_NUM_THREADS=2 at 1 and 2 processes.

  static:  root cause #1 is thread_imbalance at the triangular loop (its
           lines hold the marked `for`; in relax_static, the function that
           holds the pragma; analysed as weak scaling: every process runs
           the whole nest), on
           every process, with the process's two threads listed; its
           evidence gives the threads' iterations 1:3 (max/mean 1.5 within
           a few per cent: rows split in two contiguous halves); the
           report validates against docs/report.schema.json
  dynamic: no thread_imbalance, root cause or candidate (the fix)

usage: openmp_threads.py --bindir DIR --workdir DIR [--mpirun mpirun.openmpi]"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "progs", "omp_triangle.c")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def marker(name):
    with open(SRC) as f:
        for no, line in enumerate(f, 1):
            if "/* " + name + " */" in line:
                return no
    raise SystemExit(f"no marker {name} in {SRC}")


def study(a, exe, mode):
    runs = []
    for np in (1, 2):
        d = os.path.join(a.workdir, f"{mode}-{np}p")
        env = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
        subprocess.run([os.path.join(a.bindir, "scalana-run"), "-o", d, a.mpirun, "--allow-run-as-root",
                        "--bind-to", "none", "-x", "OMP_NUM_THREADS", "-x", "OMP_WAIT_POLICY", "-np",
                        str(np), exe, mode], env=env, check=True, timeout=300, stdout=subprocess.DEVNULL)
        runs.append(d)
    rep = os.path.join(a.workdir, f"report-{mode}")
    subprocess.run([os.path.join(a.bindir, "scalana-analyze"), "--weak"] + runs + ["-o", rep, "--no-viewer"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(rep, "report.json")) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bindir", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--mpirun", default="mpirun.openmpi")
    a = ap.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    exe = os.path.join(a.workdir, "omp_triangle")
    p = subprocess.run([os.path.join(a.bindir, "scalana-cc"), "-O2", "-g", "-fopenmp", SRC, "-o", exe],
                       env=dict(os.environ, SCALANA_MPI="openmpi"), capture_output=True, text=True)
    if p.returncode:
        if "not installed" in p.stderr:
            print("SKIP: " + p.stderr.strip())
            sys.exit(77)
        fail(f"scalana-cc -fopenmp: {p.stderr}")

    r = study(a, exe, "static")
    line = marker("TRIANGLE_STATIC")
    if not r["root_causes"]:
        fail(f"static: no root cause; candidates {[(c['category'], c.get('location')) for c in r['candidates']]}")
    c = r["root_causes"][0]
    print(f"static #1: {c['category']} at {c.get('location')} processes {c.get('processes')} threads "
          f"{c.get('threads')} cost {c['cost_seconds']:.3f} s")
    print(f"  evidence: {c['evidence']}")
    # the loop's range holds the marked `for` (clang starts it at the pragma's line)
    if (c["category"] != "thread_imbalance" or not c["line"] <= line <= c.get("last_line", c["line"])
            or c["function"] != "relax_static"):
        fail(f"static: #1 is {c['category']} at {c['function']}:{c['line']}-{c.get('last_line')}, want "
             f"thread_imbalance at the loop of relax_static:{line}")
    if c["processes"] != [0, 1]:
        fail(f"static: processes {c['processes']}, want [0, 1]")
    if len(c.get("threads") or []) != 2:
        fail(f"static: threads {c.get('threads')}, want the process's 2 threads")
    import jsonschema  # Debian's python3-jsonschema (install-deps)
    with open(os.path.join(HERE, "..", "..", "docs", "report.schema.json")) as f:
        jsonschema.validate(r, json.load(f))
    m = re.search(r"max/mean (\d+\.\d+)", c["evidence"])
    if not m or abs(float(m.group(1)) - 1.5) > 0.05:
        fail(f"static: the threads' iterations should split 1:3 (max/mean 1.5): {c['evidence']}")

    d = study(a, exe, "dynamic")
    bad = [x for x in d["root_causes"] + d["candidates"] if x["category"] == "thread_imbalance"]
    if bad:
        fail(f"dynamic: thread_imbalance reported: {[(x.get('location'), x['evidence']) for x in bad]}")
    print("dynamic: no thread imbalance")
    print("PASS")


if __name__ == "__main__":
    main()
