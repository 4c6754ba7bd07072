#!/usr/bin/python3
"""numbers_test.py — runs a test program with a real mpirun twice, without
and with the runtime, and asserts that
  - the exit status and the output (lines sorted: ranks interleave) are the
    same both times (the runtime's own lines, "scalana: ...", aside), and
  - the recorded calls, bytes and peers (`scalana-dump --json`) are exactly
    what the program did (the check named by --check).

usage: numbers_test.py --build BUILD --mpi openmpi|mpich --np N --prog BINARY --check NAME
                       [--env K=V ...] [--no-baseline] [-- ARGS...]
Exit 0 when every assertion holds; otherwise prints each failure."""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpitest  # noqa: E402
from mpitest import FAIL, check, dump, expect_ops, expect_peers, ops  # noqa: E402


def run(a, with_runtime, extra_env, preload_first=None):
    out = tempfile.mkdtemp(prefix="scalana-num-")
    rundir = os.path.join(out, "run")
    env = dict(extra_env)
    if not with_runtime:
        env.pop("SCALANA_SIGNAL", None)
    pre = [preload_first] if preload_first else []
    if with_runtime:
        env["SCALANA_OUTPUT"] = rundir
        pre.append(os.path.join(a.build, "lib", f"libscalana-{a.mpi}.so"))
    if pre:
        env["LD_PRELOAD"] = ":".join(pre)
    full = dict(os.environ)
    full.update(env)
    prog = a.prog
    if a.copy_prog:  # a copy the program may remove (mode delete)
        prog = os.path.join(out, os.path.basename(a.prog))
        shutil.copy2(a.prog, prog)
        a.prog_copy = prog
    if with_runtime:
        a.outdir = out
    cmd = mpitest.launcher(a.mpi, a.np, env) + [prog] + a.args
    p = subprocess.run(cmd, env=full, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=a.timeout)
    return out, rundir, p


def own_lines(text):
    return sorted(l for l in text.splitlines() if l.strip() and not l.startswith("scalana:"))


def by_op(rank, op):
    return [c for c in rank["mpi"] if c["op"] == op]


def u64(v):
    return v & (2 ** 64 - 1)


def analyzer_unmatched(a):
    """data_quality.unmatched_messages of scalana-analyze on the run: sends
    and receives it could not pair (by communicator id, world ranks, tag)."""
    rep = tempfile.mkdtemp(prefix="scalana-num-rep-")
    try:
        p = subprocess.run([os.path.join(a.build, "bin", "scalana-analyze"), "-q", "--no-viewer", "-o", rep,
                            a.rundir], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        if not check(p.returncode == 0, f"scalana-analyze exited {p.returncode}: {p.stderr.strip()}"):
            return None
        with open(os.path.join(rep, "report.json")) as f:
            return json.load(f)["data_quality"]["unmatched_messages"]
    finally:
        shutil.rmtree(rep, ignore_errors=True)


# ---- checks -------------------------------------------------------------------------
def check_getstatus(a, data, runs):
    """progs/getstatus.c: every transfer charged exactly once, whatever
    completed it (Request_get_status, Request_free after a completion out of
    the tool's sight, persistent requests completed by get_status)."""
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        g = ops(x).get("MPI_Request_get_status")
        check(g is not None and g[0] >= 3 and g[1:] == [0, 0], f"rank {r}: MPI_Request_get_status {g}")
        if r == 0:
            want = {"MPI_Isend": (3, 68, 0), "MPI_Request_free": (3, 0, 0), "MPI_Wait": (3, 0, 0),
                    "MPI_Send": (2, 12, 0), "MPI_Send_init": (1, 512, 0), "MPI_Start": (2, 0, 0),
                    "MPI_Barrier": (1, 0, 0), "MPI_Request_get_status": (g[0] if g else 0, 0, 0)}
            pw = {("MPI_Isend", 1, 21, "send"): (1, 40), ("MPI_Isend", 1, 22, "send"): (1, 16),
                  ("MPI_Send", 1, 23, "send"): (1, 8), ("MPI_Send", 1, 24, "send"): (1, 4),
                  ("MPI_Send_init", 1, 25, "send"): (2, 512), ("MPI_Isend", 1, 26, "send"): (1, 12)}
        else:
            want = {"MPI_Irecv": (3, 0, 64), "MPI_Request_free": (3, 0, 0), "MPI_Wait": (3, 0, 0),
                    "MPI_Recv": (2, 0, 16), "MPI_Recv_init": (1, 0, 512), "MPI_Start": (2, 0, 0),
                    "MPI_Barrier": (1, 0, 0), "MPI_Request_get_status": (g[0] if g else 0, 0, 0)}
            pw = {("MPI_Irecv", 0, 21, "recv"): (1, 40), ("MPI_Irecv", 0, 22, "recv"): (1, 16),
                  ("MPI_Irecv", 0, 23, "recv"): (1, 8), ("MPI_Recv", 0, 24, "recv"): (1, 4),
                  ("MPI_Recv_init", 0, 25, "recv"): (2, 512), ("MPI_Recv", 0, 26, "recv"): (1, 12)}
        expect_ops(r, x, want)
        expect_peers(r, x, pw)
    um = analyzer_unmatched(a)
    check(um == 0, f"the analyzer finds {um} unmatched messages")


def check_comms(a, data, runs):
    """progs/comms.c: one communicator id per constructor, the same on every
    member, distinct across constructors; point-to-point messages over the
    joined / connected intercommunicators carry the same id on both sides."""
    dpm = "--no-dpm" not in a.args
    members = {1: {0, 1, 2, 3}, 2: {0, 1, 2, 3}, 3: {0, 2}, 4: {0, 1, 2, 3}, 5: {0, 1, 2, 3},
               6: {0, 1, 2, 3}, 7: {0, 1, 2, 3}}
    ids = collections.defaultdict(dict)  # k -> rank -> comm id
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        comms = {c["comm_id"]: c for c in x["communicators"]}
        for c in by_op(x, "MPI_Allreduce"):
            k = c["bytes_sent"] // 4
            check(c["calls"] == 1 and c["bytes_received"] == 4 * k, f"rank {r}: Allreduce context {c}")
            ids[k][r] = c["comm_id"]
            rec = comms.get(c["comm_id"])
            if check(rec is not None, f"rank {r}: no record of communicator {c['comm_id']} (k={k})"):
                check(rec["size"] == len(members.get(k, ())), f"rank {r}: k={k} record size {rec['size']}")
    for k, m in members.items():
        check(set(ids[k]) == m, f"k={k}: ranks {sorted(ids[k])} used it, expected {sorted(m)}")
        check(len(set(ids[k].values())) == 1, f"k={k}: communicator ids differ across members: "
              f"{ {r: hex(u64(v)) for r, v in ids[k].items()} }")
    um = analyzer_unmatched(a)
    check(um == 0, f"the analyzer finds {um} unmatched messages")
    firsts = [next(iter(ids[k].values())) for k in members if ids[k]]
    check(len(set(firsts)) == len(firsts) and 1 not in firsts,
          f"constructors share an id or use MPI_COMM_WORLD's: {[hex(u64(v)) for v in firsts]}")
    if not dpm:
        return
    # Intercommunicators between two processes: 6 messages each way.
    for lo, hi, tag0 in ((0, 1, 40), (2, 3, 50)):
        seen = collections.defaultdict(set)
        for x in data["ranks"]:
            r = x["info"]["world_rank"]
            if r not in (lo, hi):
                continue
            other = hi if r == lo else lo
            pr = [p for p in x["peers"] if tag0 <= p["tag"] < tag0 + 6]
            check(len(pr) == 12 and all(p["peer"] == other and p["count"] == 1 and p["bytes"] == 8 for p in pr),
                  f"rank {r}: intercommunicator peers {pr}")
            for p in pr:
                seen[(p["tag"], p["direction"] == "send")].add((r, p["comm_id"]))
        idset = {cid for v in seen.values() for _, cid in v}
        check(len(idset) == 1 and 1 not in idset,
              f"ranks {lo},{hi}: one communicator id expected for tags {tag0}..{tag0 + 5}, got {[hex(u64(i)) for i in idset]}")


def warnings_of(a):
    return mpitest.runinfo(a.rundir).get("warnings", [])


def stderr_warnings(runs):
    return [l for l in runs["tool"].stderr.splitlines() if l.startswith("scalana: warning:")]


def check_phase(a, data, runs):
    """progs/leftovers.c phase: "solve" is still open at MPI_Finalize: closed
    and counted there (count 1, time > 0), with one warning (stderr of world
    rank 0, run.json); the nested "step" ended normally."""
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        ph = {p["name"]: p for p in x["phases"]}
        check(set(ph) == {"solve", "step"}, f"rank {r}: phases {sorted(ph)}")
        if "solve" in ph:
            check(ph["solve"]["count"] == 1 and ph["solve"]["time_ns"] > 0, f"rank {r}: open phase {ph['solve']}")
        if "step" in ph:
            check(ph["step"]["count"] == 1, f"rank {r}: phase step {ph['step']}")
    w = warnings_of(a)
    check(len(w) == 1 and "still open at MPI_Finalize" in w[0] and "solve" in w[0], f"run.json warnings {w}")
    sw = stderr_warnings(runs)
    check(len(sw) == 1 and "still open at MPI_Finalize" in sw[0], f"stderr warnings {sw}")


def check_delete(a, data, runs):
    """progs/leftovers.c delete: the executable, removed while the job ran,
    is recorded under its own path (no " (deleted)") and marked deleted."""
    ri = mpitest.runinfo(a.rundir)
    check(ri["executable"] == a.prog_copy, f"run.json executable {ri['executable']!r} != {a.prog_copy!r}")
    check(ri.get("executable_deleted") is True, f"run.json executable_deleted {ri.get('executable_deleted')}")
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        paths = [m["path"] for m in x["modules"]]
        check(a.prog_copy in paths and not [p for p in paths if "(deleted)" in p],
              f"rank {r}: module paths {paths}")
        expect_ops(r, x, {"MPI_Barrier": (1, 0, 0), "MPI_Allreduce": (2, 8, 8),
                          **({"MPI_Send": (1, 4, 0)} if r == 0 else {}),
                          **({"MPI_Recv": (1, 0, 4)} if r == 1 else {})})


def check_shadow(a, data, runs):
    """progs/leftovers.c plain with progs/pmpi_other.c preloaded first: its
    MPI_Send, MPI_Recv and MPI_Allreduce never reach the runtime (none
    recorded); one warning names the library and the count."""
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        got = set(ops(x))
        check(not got & {"MPI_Send", "MPI_Recv", "MPI_Allreduce"}, f"rank {r}: recorded {sorted(got)}")
        check("MPI_Finalize" in got, f"rank {r}: MPI_Finalize not recorded: {sorted(got)}")
    w = warnings_of(a)
    lib = os.path.basename(a.preload_first)
    check(len(w) == 1 and lib in w[0] and w[0].startswith("3 MPI entry points"), f"run.json warnings {w}")
    sw = stderr_warnings(runs)
    check(len(sw) == 1 and lib in sw[0], f"stderr warnings {sw}")


def check_shadow_all(a, data, runs):
    """progs/pmpi_other.c with OTHER_WRAPS_INIT preloaded first: not even
    MPI_Init reaches the runtime, nothing is recorded or written; one
    warning on stderr (the launcher's rank 0) says so and names the library."""
    check(not os.path.exists(a.rundir), f"a run directory was written: {a.rundir}")
    sw = stderr_warnings(runs)
    lib = os.path.basename(a.preload_first)
    check(len(sw) == 1 and lib in sw[0] and "no MPI call reached the runtime" in sw[0], f"stderr warnings {sw}")


def check_badsignal(a, data, runs):
    """SCALANA_SIGNAL=<garbage>: one warning naming the variable, the value
    and the signal used instead; sampling works on SIGPROF."""
    val = dict(e.split("=", 1) for e in a.env)["SCALANA_SIGNAL"]
    w = warnings_of(a)
    check(len(w) == 1 and f"SCALANA_SIGNAL={val} " in w[0] and "using SIGPROF" in w[0], f"run.json warnings {w}")
    check(len(stderr_warnings(runs)) == 1, f"stderr warnings {stderr_warnings(runs)}")
    for x in data["ranks"]:
        # 0.2 s of CPU at 1000 samples/s; CPU-time timers fire at kernel ticks
        check(x["info"]["samples_weight"] >= 20, f"rank {x['info']['world_rank']}: sample weight "
              f"{x['info']['samples_weight']} < 20 of ~200")


def check_finit(a, data, runs):
    """progs/finit_*.f90 (mpif.h, use mpi, mpi_f08): MPI_INIT / MPI_INIT_THREAD
    recorded once, marked Fortran, in the program's own call site, and inside
    the rank's wall time (>= the program's own time from before MPI_INIT to
    before MPI_FINALIZE); the root's Gather with MPI_IN_PLACE sends its own
    12 bytes (the ignored send count would give 4000); Waitany charges the
    request it completed (tags 5 and 6 with their sizes); a receive completed
    by MPI_REQUEST_GET_STATUS and freed is charged (tag 7)."""
    P = a.np
    init_op = "MPI_Init_thread" if "usempi" in os.path.basename(a.prog) else "MPI_Init"
    base = os.path.basename(a.prog)
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        inits = by_op(x, init_op)
        if check(len(inits) == 1 and inits[0]["calls"] == 1, f"rank {r}: {init_op} contexts {inits}"):
            c = inits[0]
            check(c["fortran"], f"rank {r}: {init_op} not marked Fortran")
            check(c["path"] and c["path"][-1].startswith(base + "+"),
                  f"rank {r}: {init_op} call site {c['path'][-1:]} is not in {base}")
        try:
            with open(os.path.join(a.outdir, f"elapsed-{r}.txt")) as f:
                elapsed = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            elapsed = None
        if check(elapsed is not None, f"rank {r}: no elapsed-{r}.txt"):
            # 20 ms of slack for a preemption between the two clocks (the bug lost 30-250 ms)
            check(x["info"]["wall_ns"] >= elapsed - 20e6,
                  f"rank {r}: wall {x['info']['wall_ns']} ns < the program's {elapsed} ns from before {init_op}")
        want = {init_op: (1, 0, 0), "MPI_Gather": (1, 12, 12 * P if r == 0 else 0)}
        if r == 0:
            g = ops(x).get("MPI_Request_get_status")
            check(g is not None and g[0] >= 1, f"rank {r}: MPI_Request_get_status {g}")
            want.update({"MPI_Irecv": (3, 0, 16), "MPI_Waitany": (2, 0, 0), "MPI_Request_free": (1, 0, 0),
                         "MPI_Request_get_status": (g[0] if g else 0, 0, 0)})
            pw = {("MPI_Irecv", 1, 5, "recv"): (1, 4), ("MPI_Irecv", 1, 6, "recv"): (1, 8),
                  ("MPI_Irecv", 1, 7, "recv"): (1, 4)}
        elif r == 1:
            want["MPI_Send"] = (3, 16, 0)
            pw = {("MPI_Send", 0, 5, "send"): (1, 4), ("MPI_Send", 0, 6, "send"): (1, 8),
                  ("MPI_Send", 0, 7, "send"): (1, 4)}
        else:
            pw = {}
        expect_ops(r, x, want)
        expect_peers(r, x, pw)
        bad = [c["op"] for c in x["mpi"] if not c["fortran"] and c["op"] != "MPI_Finalize"]
        check(not bad, f"rank {r}: not marked Fortran: {bad}")


def check_manyctx(a, data, runs):
    """progs/manyctx.c: 131072 distinct call paths to MPI_Send, each taken
    twice: one context per path (none merged by a hash collision or into the
    tree's overflow node), each with exactly 2 calls."""
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        sends = by_op(x, "MPI_Send")
        paths = {tuple(c["path"]) for c in sends}
        bad = [c for c in sends if c["calls"] != 2]
        check(len(sends) == 131072 and len(paths) == 131072,
              f"rank {r}: {len(sends)} MPI_Send contexts with {len(paths)} distinct paths (want 131072)")
        check(not bad, f"rank {r}: {len(bad)} contexts without exactly 2 calls, e.g. {bad[:2]}")
        check(x["info"]["cct_overflow"] == 0, f"rank {r}: cct_overflow {x['info']['cct_overflow']}")
        check(not [n for n in x["cct"] if n["kind"] == "overflow"], f"rank {r}: an overflow node exists")


# ---- MPI-4.0 (progs/mpi4_p2p.c, progs/mpi4_coll.c) --------------------------------
BIG = 2049 << 20  # the large-count message of mpi4_p2p.c big: 2 GiB + 1 MiB


def check_mpi4_p2p(a, data, runs):
    """progs/mpi4_p2p.c: a partitioned message is one message per round of
    all partitions' bytes between its two peers (3 rounds of 4 x 256 ints);
    MPI_Isendrecv(_replace) a send and a receive on one request; with "big"
    one MPI_Send_c / MPI_Recv_c of 2 GiB + 1 MiB, recorded whole."""
    big = "big" in a.args
    part = 3 * 4 * 256 * 4
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        other = 1 - r
        got = ops(x)
        want = {"MPI_Start": (3, 0, 0), "MPI_Wait": (6, 0, 0), "MPI_Request_free": (1, 0, 0),
                "MPI_Isendrecv": (2, 1600, 1600), "MPI_Isendrecv_replace": (1, 200, 200)}
        pw = {("MPI_Isendrecv", other, 41, "send"): (2, 1600), ("MPI_Isendrecv", other, 41, "recv"): (2, 1600),
              ("MPI_Isendrecv_replace", other, 42, "send"): (1, 200),
              ("MPI_Isendrecv_replace", other, 42, "recv"): (1, 200)}
        if r == 0:
            want.update({"MPI_Psend_init": (1, part, 0), "MPI_Pready": (3, 0, 0), "MPI_Pready_range": (3, 0, 0),
                         "MPI_Pready_list": (3, 0, 0)})
            pw[("MPI_Psend_init", 1, 31, "send")] = (3, part)
            if big:
                want["MPI_Send"] = (1, BIG, 0)
                pw[("MPI_Send", 1, 51, "send")] = (1, BIG)
        else:
            n = got.get("MPI_Parrived", [0])[0]
            check(n >= 3, f"rank 1: MPI_Parrived called {n} times, expected at least 3")
            want.update({"MPI_Precv_init": (1, 0, part), "MPI_Parrived": (n, 0, 0)})
            pw[("MPI_Precv_init", 0, 31, "recv")] = (3, part)
            if big:
                want["MPI_Recv"] = (1, 0, BIG)
                pw[("MPI_Recv", 0, 51, "recv")] = (1, BIG)
        expect_ops(r, x, want)
        expect_peers(r, x, pw)
    um = analyzer_unmatched(a)
    check(um == 0, f"the analyzer finds {um} unmatched messages")


def check_mpi4_coll(a, data, runs):
    """progs/mpi4_coll.c: a persistent collective is one collective per
    start with its bytes, at the start's context and under its own name
    (MPI_Start of an MPI_Allreduce_init request is recorded as
    MPI_Allreduce_init; MPI_Startall keeps its name and takes the bytes);
    the large-count twins are their MPI-3 relatives with MPI_Count counts."""
    p = a.np
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        root = r == 0
        want = {"MPI_Allreduce_init": (1 + 5, 5 * 512, 5 * 512), "MPI_Wait": (5, 0, 0),
                "MPI_Bcast_init": (1, 0, 0), "MPI_Barrier_init": (1, 0, 0),
                "MPI_Startall": (3, 3 * 40 if root else 0, 0 if root else 3 * 40), "MPI_Waitall": (3, 0, 0),
                "MPI_Request_free": (3, 0, 0), "MPI_Allreduce": (1, 512, 512),
                "MPI_Bcast": (1, 40 if root else 0, 0 if root else 40),
                "MPI_Gatherv": (1, 4 * (r + 1), 4 * p * (p + 1) // 2 if root else 0)}
        expect_ops(r, x, want)
        # The five starts: one context of MPI_Allreduce_init on
        # MPI_COMM_WORLD with the collective's bytes, apart from the init's.
        ctxs = sorted((c["calls"], c["bytes_sent"], c["comm_id"]) for c in by_op(x, "MPI_Allreduce_init"))
        check(ctxs == [(1, 0, 1), (5, 5 * 512, 1)], f"rank {r}: MPI_Allreduce_init contexts {ctxs}")
        st = [c for c in by_op(x, "MPI_Allreduce_init") if c["calls"] == 5]
        w = by_op(x, "MPI_Wait")
        if st and w:
            # The Waits' time is the collective's, at the start's context.
            check(w[0]["time_ns"] == 0 and st[0]["time_ns"] > 0,
                  f"rank {r}: Wait time {w[0]['time_ns']}, start context time {st[0]['time_ns']}")


def check_sessions(a, data, runs):
    """progs/sessions.c: a sessions-only program (no MPI_Init) is measured
    from MPI_Session_init to MPI_Session_finalize on every rank (common()
    checked the ranks and sizes): world ranks are the ranks of mpi://WORLD
    (the ring's peers), and each communicator made from a group has one id
    on all its members, distinct from the other's and from MPI_COMM_WORLD's."""
    p = a.np
    ids = collections.defaultdict(dict)  # members -> rank -> comm id
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        even = r % 2 == 0
        ne = (p + 1) // 2
        nxt, prv = (r + 1) % p, (r + p - 1) % p
        want = {"MPI_Session_init": (1, 0, 0), "MPI_Session_finalize": (1, 0, 0),
                "MPI_Group_from_session_pset": (1, 0, 0), "MPI_Group_incl": (1, 0, 0),
                "MPI_Group_free": (2, 0, 0), "MPI_Comm_create_from_group": (2 if even else 1, 0, 0),
                "MPI_Comm_free": (2 if even else 1, 0, 0),
                "MPI_Allreduce": (2, 8, 8) if even else (1, 4, 4)}
        pw = {}
        if p > 1:
            want.update({"MPI_Send": (1, 32, 0), "MPI_Recv": (1, 0, 32)})
            pw = {("MPI_Send", nxt, 61, "send"): (1, 32), ("MPI_Recv", prv, 61, "recv"): (1, 32)}
        expect_ops(r, x, want)
        expect_peers(r, x, pw)
        comms = {c["comm_id"]: c for c in x["communicators"]}
        for c in by_op(x, "MPI_Allreduce"):
            rec = comms.get(c["comm_id"])
            if check(rec is not None, f"rank {r}: no record of communicator {hex(u64(c['comm_id']))}"):
                ids[rec["size"] == p][r] = c["comm_id"]
                check(rec["size"] in (p, ne), f"rank {r}: communicator size {rec['size']}")
        sess = [c for c in x["mpi"] if c["op"] == "MPI_Session_init"]
        check(len(sess) == 1 and sess[0]["time_ns"] > 0, f"rank {r}: MPI_Session_init record {sess}")
    check(set(ids[True]) == set(range(p)) and len(set(ids[True].values())) == 1,
          f"world communicator ids {ids[True]}")
    if p > 1:
        check(set(ids[False]) == set(range(0, p, 2)) and len(set(ids[False].values())) == 1,
              f"even-ranks communicator ids {ids[False]}")
        check(not set(ids[True].values()) & set(ids[False].values()), "the two communicators share an id")
    check(1 not in set(ids[True].values()) | set(ids[False].values()), "a communicator has MPI_COMM_WORLD's id")
    um = analyzer_unmatched(a)
    check(um == 0, f"the analyzer finds {um} unmatched messages")


def check_mpi4_f(a, data, runs):
    """progs/mpi4_f.f90: MPI-4.0 through the Fortran binding (mpif.h): the
    persistent collective's 4 starts recorded as MPI_Allreduce_init with the
    round's bytes, MPI_ISENDRECV a send and a receive with the other rank."""
    for x in data["ranks"]:
        r = x["info"]["world_rank"]
        other = 1 - r
        expect_ops(r, x, {"MPI_Allreduce_init": (5, 4 * 64, 4 * 64), "MPI_Wait": (6, 0, 0),
                          "MPI_Request_free": (1, 0, 0), "MPI_Isendrecv": (2, 128, 128)})
        expect_peers(r, x, {("MPI_Isendrecv", other, 7, "send"): (2, 128),
                            ("MPI_Isendrecv", other, 7, "recv"): (2, 128)})
        bad = [c["op"] for c in x["mpi"] if not c["fortran"] and c["op"] not in ("MPI_Init", "MPI_Finalize")]
        check(not bad, f"rank {r}: calls not recorded as Fortran calls: {bad}")


CHECKS = {"mpi4_f": check_mpi4_f, "sessions": check_sessions, "mpi4_p2p": check_mpi4_p2p, "mpi4_coll": check_mpi4_coll, "manyctx": check_manyctx, "finit": check_finit, "getstatus": check_getstatus, "comms": check_comms, "phase": check_phase, "delete": check_delete,
          "shadow": check_shadow, "shadow_all": check_shadow_all, "badsignal": check_badsignal}
NO_PROFILE = {"shadow_all"}  # checks of runs where the runtime writes nothing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--check", required=True)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-baseline", action="store_true", help="do not run the program without the runtime")
    ap.add_argument("--preload-first", help="a library preloaded before the runtime (both runs)")
    ap.add_argument("--copy-prog", action="store_true", help="run a copy of the program (it may remove it)")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.prog = os.path.abspath(a.prog)
    a.pin = None
    if a.preload_first:
        a.preload_first = os.path.abspath(a.preload_first)
    extra = dict(e.split("=", 1) for e in a.env)
    runs = {}
    if not a.no_baseline:
        bout, _, bp = run(a, False, extra, a.preload_first)
        shutil.rmtree(bout, ignore_errors=True)
        runs["plain"] = bp
    out, rundir, p = run(a, True, extra, a.preload_first)
    runs["tool"] = p
    a.rundir = rundir
    if "plain" in runs:
        bp = runs["plain"]
        check(bp.returncode == p.returncode,
              f"exit status {p.returncode} with the runtime, {bp.returncode} without")
        check(own_lines(bp.stdout) == own_lines(p.stdout),
              f"output differs:\n   without: {own_lines(bp.stdout)}\n   with:    {own_lines(p.stdout)}")
        check(own_lines(bp.stderr) == own_lines(p.stderr),
              f"stderr differs (runtime lines aside):\n   without: {own_lines(bp.stderr)}\n   with:    {own_lines(p.stderr)}")
    if p.returncode != 0:
        FAIL.append(f"mpirun exited {p.returncode}")
    if "FAIL" in p.stdout:
        FAIL.append("program reported: " + p.stdout)
    if a.check in NO_PROFILE:
        CHECKS[a.check](a, None, runs)
    else:
        data = dump(a.build, rundir)
        if data is not None:
            mpitest.common(a, data, rundir)
            CHECKS[a.check](a, data, runs)
    if FAIL:
        print(f"{len(FAIL)} failure(s) [{a.mpi} np={a.np} {a.check}] (run dir kept: {rundir})")
        for f in FAIL:
            print(" -", f)
        print("stdout of the run:\n" + p.stdout)
        print("stderr of the run:\n" + p.stderr)
        return 1
    if not a.keep:
        shutil.rmtree(out, ignore_errors=True)
    print(f"ok [{a.mpi} np={a.np} {a.check}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
