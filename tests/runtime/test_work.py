#!/usr/bin/python3
"""test_work.py — the loop work counters end to end (plugin/WorkCounters.cpp,
runtime/threads/rt_work.c, PRF_REC_WORK, analyzer/ppg/work.c): progs/work.c built with
scalana-cc runs at 2 processes under the runtime, and

  - every loop's header count in the profile is the one the program's
    structure gives (the comments in progs/work.c), per world rank and per
    thread: a thread that ended before MPI_Finalize keeps its counts, two
    threads of one loop are two entries, `return` and `break` out of a loop
    are counted;
  - scalana-analyze says runs[].work_measure "loop_iterations";
  - the binary runs unchanged without the runtime (the registration is a
    weak reference), and the same source built by the MPI library's own
    mpicc has no work record and work_measure "none".

usage: test_work.py BUILD_DIR MPI"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "progs", "work.c")


def fail(msg):
    sys.exit("FAIL: " + msg)


def mpirun(mpi, n, prog, env):
    full = dict(os.environ)
    full.update(env)
    if mpi == "openmpi":
        cmd = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", str(n)]
        for k in env:
            cmd += ["-x", k]
    else:
        cmd = ["mpirun.mpich", "-n", str(n)] + sum((["-genv", k, v] for k, v in env.items()), [])
    return subprocess.run(cmd + [prog], env=full, text=True, capture_output=True, timeout=180)


def marker_lines():
    lines = {}
    with open(SRC) as f:
        for no, text in enumerate(f, 1):
            m = re.search(r"/\* (LOOP_[A-Z_]+)[ *(]", text)
            if m:
                lines[m.group(1)] = no
    return lines


def expected(rank):
    """Header counts by marker, summed over the process's threads, and the
    per-thread split of the two-thread loop."""
    n = 100 * (rank + 1)
    inner = lambda m: sum(i + 2 for i in range(m))
    # tri's outer loop holds its inner loop: uncounted (its work is the inner
    # loop's; docs/plugin.md, "Work counters")
    return {
        "LOOP_TRI_INNER": 3 * inner(n) + inner(50),
        "LOOP_FIND": 5 * 8,
        "LOOP_BRK": 5 * 5,
        "LOOP_FILL": 17,
        "LOOP_MAIN": 4,
        "LOOP_CALLS": 6,
        "LOOP_SPIN": 1000 + 3000,
    }


def work_measures(bindir, run, report):
    """runs[].work_measure of scalana-analyze's report of one run directory."""
    subprocess.run([os.path.join(bindir, "scalana-analyze"), run, "-o", report, "--no-viewer"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(report, "report.json")) as f:
        return [x["work_measure"] for x in json.load(f)["runs"]]


def main():
    build, mpi = os.path.abspath(sys.argv[1]), sys.argv[2]
    bindir = os.path.join(build, "bin")
    marks = marker_lines()
    with tempfile.TemporaryDirectory(prefix="scalana-work-") as tmp:
        exe = os.path.join(tmp, "work")
        env = dict(os.environ, SCALANA_MPI=mpi)
        subprocess.run([os.path.join(bindir, "scalana-cc"), "-O2", "-g", SRC, "-o", exe, "-lpthread"],
                       env=env, check=True)
        psg = json.loads(subprocess.check_output([os.path.join(bindir, "scalana-dump"), "--psg",
                                                  "--json", exe]))
        loop_of = {}
        for u in psg["units"]:
            for v in u["vertices"]:
                if v["kind"] == "LOOP":
                    loop_of[v["stable_id"]] = v["first_line"]
        by_line = {line: name for name, line in marks.items()}
        if sorted(loop_of.values()) != sorted(marks.values()):
            fail(f"the PSG's loops start at lines {sorted(loop_of.values())}, the markers at "
                 f"{sorted(marks.values())}")

        plain = mpirun(mpi, 2, exe, {})
        out = os.path.join(tmp, "run")
        ours = mpirun(mpi, 2, exe, {"SCALANA_OUTPUT": out, "LD_PRELOAD":
                                    os.path.join(build, "lib", f"libscalana-{mpi}.so")})
        if plain.returncode or ours.returncode:
            fail(f"exit status {plain.returncode} plain, {ours.returncode} with the runtime:\n"
                 f"{plain.stderr}\n{ours.stderr}")
        if sorted(plain.stdout.splitlines()) != sorted(ours.stdout.splitlines()):
            fail(f"output differs:\n{plain.stdout}\nvs\n{ours.stdout}")

        dump = json.loads(subprocess.check_output([os.path.join(bindir, "scalana-dump"), "--json", out]))
        for rk in dump["ranks"]:
            r = rk["info"]["world_rank"]
            w = rk.get("work")
            if not w or w["measure"] != "loop_iterations" or w["units"] != 1:
                fail(f"rank {r}: work record {w}")
            got, spin = {}, []
            for e in w["loops"]:
                name = by_line.get(loop_of.get(e["stable_id"]))
                if name is None:
                    fail(f"rank {r}: count for unknown vertex {e['stable_id']}")
                got[name] = got.get(name, 0) + e["count"]
                if name == "LOOP_SPIN":
                    spin.append(e["count"])
            if got != expected(r):
                fail(f"rank {r}: counts {got}, expected {expected(r)}")
            if sorted(spin) != [1000, 3000]:
                fail(f"rank {r}: the two threads' do-while counts are {spin}, not 1000 and 3000")
            print(f"rank {r}: {len(w['loops'])} entries, counts as the program's structure says")

        measures = work_measures(bindir, out, os.path.join(tmp, "report"))
        if measures != ["loop_iterations"]:
            fail(f"work_measure {measures} for a scalana-cc build")

        gexe = os.path.join(tmp, "work-gcc")
        subprocess.run([f"mpicc.{mpi}", "-O2", "-g", SRC, "-o", gexe, "-lpthread"], check=True)
        gout = os.path.join(tmp, "run-gcc")
        g = mpirun(mpi, 2, gexe, {"SCALANA_OUTPUT": gout, "LD_PRELOAD":
                                  os.path.join(build, "lib", f"libscalana-{mpi}.so")})
        if g.returncode:
            fail(f"the mpicc build failed under the runtime: {g.stderr}")
        gd = json.loads(subprocess.check_output([os.path.join(bindir, "scalana-dump"), "--json", gout]))
        if any("work" in rk for rk in gd["ranks"]):
            fail("an mpicc build has a work record")
        measures = work_measures(bindir, gout, os.path.join(tmp, "report-gcc"))
        if measures != ["none"]:
            fail(f"work_measure {measures} for an mpicc build")
    print("PASS")


if __name__ == "__main__":
    main()
