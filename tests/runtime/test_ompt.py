#!/usr/bin/python3
"""test_ompt.py — OpenMP regions measured through OMPT (runtime/threads/rt_ompt.c,
PRF_REC_OMP): progs/ompt.c built with scalana-cc -fopenmp (LLVM's libomp)
runs at 2 processes under the runtime, and per rank

  - REGION_A has team size 3 and 10 instances on each of its 3 threads, the
    master started them all; threads 0 and 2 waited at its explicit barrier
    about 10 * A_MS (the planted sleep of thread 1), thread 1 hardly;
  - REGION_B has team size 2 and 4 instances; thread 1 waited at the
    implicit barrier ending it about 4 * B_MS (the master's planted sleep),
    the master hardly; each thread entered 4 work-sharing loops of 1000
    iterations (libomp gives each thread the whole loop's count);
  - each region's path ends at the pragma's line in progs/ompt.c (addr2line);
  - REGION_C, one pragma reached from two callers at the same stack depth,
    is two regions on the master: 3 forks under VIA_LEFT, 5 under VIA_RIGHT
    (the fork memo of rt_ompt.c compares whole paths, not the code pointer
    and its frame);
  - scalana-analyze gives 3 threads per process, each region's team size,
    and the planted waits as the time summary's OMPT wait;
  - the program's output and exit status are those it has without the
    runtime;
  - the same source built with the MPI library's mpicc (gcc, libgomp: no
    OMPT) has no OpenMP record, and SCALANA_OMPT=off leaves it out too.
Margins are wide (a 2-core machine shared with other jobs): a planted wait
counts from 0.7x to 3x, a thread that did not wait below half of it; the
runs use OMP_WAIT_POLICY=passive so that idle threads do not spin.

usage: test_ompt.py BUILD_DIR MPI"""
import json
import os
import re
import subprocess
import sys
import tempfile

from mpitest import launcher  # the mpirun line of each MPI library

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "progs", "ompt.c")


def fail(msg):
    sys.exit("FAIL: " + msg)


def mpirun(mpi, n, prog, env):
    # idle threads sleep instead of spinning (libomp spins 200 ms at a barrier by default): on
    # a shared 2-core machine 6 spinning threads keep the planted sleepers from their cores
    env = dict(env, OMP_WAIT_POLICY="passive")
    full = dict(os.environ)
    full.update(env)
    cmd = launcher(mpi, n, env)
    if mpi == "openmpi":
        cmd[1:1] = ["--bind-to", "none"]
    return subprocess.run(cmd + [prog], env=full, text=True, capture_output=True, timeout=180)


def source_facts():
    facts = {}
    with open(SRC) as f:
        for no, text in enumerate(f, 1):
            m = re.search(r"/\* (REGION_[A-Z]|VIA_[A-Z]+) \*/", text)
            if m:
                facts[m.group(1)] = no
            m = re.match(r"#define ([AB]_MS) (\d+)", text)
            if m:
                facts[m.group(1)] = int(m.group(2)) / 1000.0
    return facts


def run_dump(build, mpi, exe, out, extra=None):
    env = {"SCALANA_OUTPUT": out, "LD_PRELOAD": os.path.join(build, "lib", f"libscalana-{mpi}.so")}
    env.update(extra or {})
    ours = mpirun(mpi, 2, exe, env)
    if ours.returncode:
        fail(f"exit status {ours.returncode} with the runtime:\n{ours.stderr}")
    dump = json.loads(subprocess.check_output([os.path.join(build, "bin", "scalana-dump"), "--json", out]))
    return ours, dump


def leaf_line(exe, frame):
    """The source line of a path's frame "module+0xOFF" in exe (a return address: looked up one
    byte before), None elsewhere."""
    m = re.fullmatch(r"(.+)\+0x([0-9a-f]+)", frame)
    if not m or m.group(1) != os.path.basename(exe):
        return None
    out = subprocess.check_output(["addr2line", "-e", exe, hex(int(m.group(2), 16) - 1)], text=True)
    m = re.search(r"ompt\.c:(\d+)", out)
    return int(m.group(1)) if m else None


def check_regions(dump, facts, exe):
    for rk in dump["ranks"]:
        r = rk["info"]["world_rank"]
        omp = rk.get("openmp")
        if not omp or omp["interface"] != "ompt":
            fail(f"rank {r}: no OpenMP record ({sorted(rk)})")
        if omp["dropped"] or omp["unmatched"]:
            fail(f"rank {r}: {omp['dropped']} instances dropped, {omp['unmatched']} paths without the fork")
        by, via = {}, {}
        for e in omp["regions"]:
            leaf = e["path"][-1] if e["path"] else ""
            line = leaf_line(exe, leaf)
            name = next((k for k in ("REGION_A", "REGION_B", "REGION_C") if facts[k] == line), None)
            if name is None:
                fail(f"rank {r}: a region whose path ends at {leaf!r}, not at a pragma "
                     f"(lines {facts['REGION_A']}, {facts['REGION_B']}, {facts['REGION_C']})")
            if name == "REGION_C":
                caller = leaf_line(exe, e["path"][-2]) if len(e["path"]) > 1 else None
                side = next((k for k in ("VIA_LEFT", "VIA_RIGHT") if facts[k] == caller), None)
                if side is None:
                    fail(f"rank {r}: REGION_C called from line {caller}, not from via_left or via_right")
                via.setdefault(side, []).append(e)
                continue
            by.setdefault(name, {})[e["thread"]] = e
        forks = {side: sorted(e["forks"] for e in ent) for side, ent in via.items()}
        if forks != {"VIA_LEFT": [0, 3], "VIA_RIGHT": [0, 5]}:
            fail(f"rank {r}: REGION_C forks per caller (master and worker) {forks}, want VIA_LEFT [0, 3] "
                 f"and VIA_RIGHT [0, 5]: one pragma from two callers is two calling contexts")
        a, b = by.get("REGION_A", {}), by.get("REGION_B", {})
        if len(a) != 3 or len(b) != 2:
            fail(f"rank {r}: REGION_A on {len(a)} threads, REGION_B on {len(b)} (want 3 and 2)")
        for name, ent, team, n in (("REGION_A", a, 3, 10), ("REGION_B", b, 2, 4)):
            masters = [e for e in ent.values() if e["forks"]]
            if len(masters) != 1 or masters[0]["forks"] != n:
                fail(f"rank {r}: {name} started by {[(e['thread'], e['forks']) for e in masters]}, want one "
                     f"master with {n}")
            for e in ent.values():
                if (e["team_min"], e["team_max"], e["regions"]) != (team, team, n):
                    fail(f"rank {r}: {name} thread {e['thread']}: team {e['team_min']}..{e['team_max']}, "
                         f"{e['regions']} instances (want {team}, {n})")
        # REGION_A: thread numbers in the team are not the runtime's thread indexes; the master
        # is the one that started it, the sleeper the one that hardly waited
        planted = 10 * facts["A_MS"]
        waits = sorted(e["barrier_wait_ns"] / 1e9 for e in a.values())
        if not (waits[0] < planted / 2 and all(0.7 * planted <= w <= 3 * planted for w in waits[1:])):
            fail(f"rank {r}: REGION_A explicit barrier waits {waits} s, want one below {planted / 2} and "
                 f"two about {planted}")
        if any(e["barriers"] != 10 for e in a.values()):
            fail(f"rank {r}: REGION_A barriers {[e['barriers'] for e in a.values()]}, want 10 each")
        planted = 4 * facts["B_MS"]
        master = next(e for e in b.values() if e["forks"])
        worker = next(e for e in b.values() if not e["forks"])
        mw, ww = master["end_wait_ns"] / 1e9, worker["end_wait_ns"] / 1e9
        if not (mw < planted / 2 and 0.7 * planted <= ww <= 3 * planted):
            fail(f"rank {r}: REGION_B end-of-region waits: master {mw} s, worker {ww} s (planted {planted} s)")
        if master["time_ns"] / 1e9 < planted:
            fail(f"rank {r}: REGION_B lasted {master['time_ns'] / 1e9} s, shorter than its planted {planted} s")
        # libomp gives the loop's whole trip count at each thread's start, not the thread's share
        if any(e["loops"] != 4 or e["loop_iterations"] != 4000 for e in b.values()):
            fail(f"rank {r}: REGION_B loops {[(e['loops'], e['loop_iterations']) for e in b.values()]}")
        print(f"rank {r}: REGION_A waits {['%.3f' % w for w in waits]} s, REGION_B master {mw:.3f} s "
              f"worker {ww:.3f} s, loop iterations {[e['loop_iterations'] for e in b.values()]}")


def check_report(build, run, report, facts):
    """scalana-analyze's runs[] and time summary of the run."""
    subprocess.run([os.path.join(build, "bin", "scalana-analyze"), run, "-o", report, "--no-viewer"],
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(report, "report.json")) as f:
        rep = json.load(f)
    r0 = rep["runs"][0]
    if r0.get("openmp_measure") != "ompt" or r0.get("threads_per_process") != 3:
        fail(f"runs[0]: openmp_measure {r0.get('openmp_measure')}, threads_per_process "
             f"{r0.get('threads_per_process')} (want ompt, 3)")
    cores = os.cpu_count() or 1
    if not r0.get("threads_per_core", 0) >= 2 * 3 / cores * 0.99:
        fail(f"runs[0].threads_per_core {r0.get('threads_per_core')}, want 2 x 3 / {cores} cores or more")
    teams = {x["line"]: x["team_size"] for x in r0.get("openmp_regions", [])}
    if teams.get(facts["REGION_A"]) != 3 or teams.get(facts["REGION_B"]) != 2:
        fail(f"runs[0].openmp_regions team sizes by line {teams}, want 3 at {facts['REGION_A']}, "
             f"2 at {facts['REGION_B']}")
    ts = rep["time_summary"]
    planted = 2 * 10 * facts["A_MS"] + 4 * facts["B_MS"]  # per process, all threads
    if not 0.7 * planted <= ts.get("ompt_wait_seconds_mean", 0) <= 3 * planted + 0.5:
        fail(f"time_summary.ompt_wait_seconds_mean {ts.get('ompt_wait_seconds_mean')}, planted {planted}")
    if "measured by OMPT" not in ts["text"]:
        fail(f"time summary text without the OMPT wait: {ts['text']}")
    print(f"report: threads per process 3, per core {r0['threads_per_core']}, OMPT wait "
          f"{ts['ompt_wait_seconds_mean']:.3f} s per process ({ts['ompt_wait_percent']:.1f} %)")


def main():
    build, mpi = os.path.abspath(sys.argv[1]), sys.argv[2]
    bindir = os.path.join(build, "bin")
    facts = source_facts()
    with tempfile.TemporaryDirectory(prefix="scalana-ompt-") as tmp:
        exe = os.path.join(tmp, "ompt")
        env = dict(os.environ, SCALANA_MPI=mpi)
        subprocess.run([os.path.join(bindir, "scalana-cc"), "-O1", "-g", "-fopenmp", SRC, "-o", exe],
                       env=env, check=True)
        plain = mpirun(mpi, 2, exe, {})
        ours, dump = run_dump(build, mpi, exe, os.path.join(tmp, "run"))
        if plain.returncode or plain.stdout != ours.stdout:
            fail(f"without the runtime: status {plain.returncode}, output {plain.stdout!r}; with it "
                 f"{ours.stdout!r}")
        check_regions(dump, facts, exe)
        text = subprocess.check_output([os.path.join(bindir, "scalana-dump"), os.path.join(tmp, "run")], text=True)
        if "openmp (ompt)" not in text or "omp region at" not in text:
            fail("scalana-dump's text has no OpenMP lines")

        check_report(build, os.path.join(tmp, "run"), os.path.join(tmp, "report"), facts)

        _, off = run_dump(build, mpi, exe, os.path.join(tmp, "off"), {"SCALANA_OMPT": "off"})
        if any("openmp" in rk for rk in off["ranks"]):
            fail("SCALANA_OMPT=off still wrote an OpenMP record")

        gexe = os.path.join(tmp, "ompt_gcc")
        mpicc = "mpicc.openmpi" if mpi == "openmpi" else "mpicc.mpich"
        subprocess.run([mpicc, "-O1", "-g", "-fopenmp", SRC, "-o", gexe], check=True)
        _, gdump = run_dump(build, mpi, gexe, os.path.join(tmp, "gcc"))
        if any("openmp" in rk for rk in gdump["ranks"]):
            fail("the libgomp build has an OpenMP record")
    print("ompt ok")


if __name__ == "__main__":
    main()
