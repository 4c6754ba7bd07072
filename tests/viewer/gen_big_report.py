#!/usr/bin/python3
"""gen_big_report.py — writes a schema-conforming report.json with many
vertices (default 5000) for the viewer's size-bound tests.
Usage: gen_big_report.py OUT.json [VERTICES]"""
import json
import math
import random
import sys


def main():
    out = sys.argv[1]
    nvert = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    rnd = random.Random(42)
    procs = [8, 16, 32, 64, 128]
    kinds = ["LOOP", "CALL", "COMPUTE", "MPI", "BRANCH", "FUNCTION"]
    mpi_ops = ["MPI_Send", "MPI_Recv", "MPI_Wait", "MPI_Allreduce", "MPI_Bcast"]
    verts = []
    for i in range(nvert):
        parent = None if i == 0 else rnd.randrange(0, i)   # random recursive tree: depth ~ e ln n
        kind = "FUNCTION" if i == 0 else rnd.choice(kinds)
        op = rnd.choice(mpi_ops) if kind == "MPI" else None
        name = op if op else f"{kind.lower()}_{i}<T&{i % 7}>"
        base = rnd.uniform(0.001, 0.5)
        expo = rnd.choice([-1.0, -1.0, -1.0, -0.5, 0.0, 0.5])
        metrics = []
        for p in procs:
            t = base * (p / 8.0) ** expo
            m = {"processes": p, "time_mean_seconds": t, "time_max_seconds": t * rnd.uniform(1.0, 1.3)}
            if kind == "MPI":
                m["mpi_calls"] = 100 * p
                m["bytes"] = 8.0 * 100 * p
            metrics.append(m)
        v = {"id": i, "parent": parent, "kind": kind, "name": name, "function": f"fn_{i // 50}",
             "file": f"/src/module_{i % 40}.c", "line": 10 + i % 900, "metrics": metrics, "flags": []}
        if op:
            v["operation"] = op
        if expo > -1.0:
            t8 = metrics[0]["time_max_seconds"]
            ideal = t8 * 8 / 128
            loss = metrics[-1]["time_max_seconds"] - ideal
            v["scaling_loss_seconds"] = loss
            v["scaling_loss_percent"] = 100 * loss / 60.0
            v["model"] = {"formula": f"{base:.3g} * p^({expo + 1:g})", "c0": 0.0, "c1": base / 8 ** expo,
                          "i": expo, "j": 0, "quality": "cross-validated", "smape": 3.0,
                          "metric": "time_max_seconds"}
            if loss > 1.0:
                v["flags"].append("non_scalable")
        else:
            v["model"] = None
        verts.append(v)
    # three planted causes deep in the tree, with paths across processes
    causes = []
    for k, (vid, cat) in enumerate([(4321, "late_sender"), (2500, "load_imbalance"), (4999 % nvert, "wait_at_collective")]):
        vid = min(vid, nvert - 1)
        v = verts[vid]
        v["flags"] = sorted(set(v["flags"]) | {"root_cause", "imbalanced"})
        pp = [rnd.uniform(0.1, 0.2) for _ in range(128)]
        pp[17 + k] = 2.5
        v["metrics"][-1].update({"per_process_seconds": pp, "imbalance": max(pp) / (sum(pp) / 128), "outliers": [17 + k]})
        path = []
        cur = vid
        steps = []
        while cur is not None and len(steps) < 6:
            steps.append(cur)
            cur = verts[cur]["parent"]
        steps.reverse()
        for s_i, s in enumerate(steps):
            edge = "symptom" if s_i == 0 else ("root" if s_i == len(steps) - 1 else rnd.choice(["control", "communication", "call"]))
            path.append({"vertex": s, "process": 17 + k if s_i else 3, "edge": edge,
                         "file": verts[s]["file"], "line": verts[s]["line"], "wait_seconds": 2.0 if s_i == 0 else 0.0})
        causes.append({"rank": k + 1, "category": cat, "file": v["file"], "line": v["line"], "last_line": v["line"] + 3,
                       "function": v["function"], "vertex": vid, "cost_seconds": 3.0 - k, "cost_percent": (3.0 - k) / 60 * 100,
                       "processes": [17 + k], "waiting_processes": list(range(0, 128, 9)), "model": v["model"],
                       "evidence": f"rank {17 + k} spends 2.5 s in {v['name']} while the mean is 0.15 s", "path": path})
    n = 128
    bytes_m = [[0.0] * n for _ in range(n)]
    msgs = [[0.0] * n for _ in range(n)]
    for s in range(n):
        for d in ((s + 1) % n, (s - 1) % n, (s + 16) % n):
            bytes_m[s][d] = 8e5 * (1 + s % 3)
            msgs[s][d] = 1000
    runs = []
    for p in procs:
        wall = 60.0 * 8 / p + 0.05 * p
        runs.append({"processes": p, "directories": [f"scalana-big-{p}p"], "wall_seconds": wall,
                     "parallel_efficiency": (60.0 + 0.4) / (wall * p / 8), "oversubscription": p / 2.0})
    report = {"schema_version": "1.0", "tool": {"name": "scalana", "version": "0.1.0"},
              "program": {"executable": "/opt/big/bin/big", "build_id": "deadbeef", "has_psg": True},
              "scaling": "strong", "runs": runs, "root_causes": causes, "vertices": verts,
              "communication": {"processes": n, "bytes": bytes_m, "messages": msgs},
              "data_quality": {"samples": 1e7, "dropped": 1234, "overruns": 10, "unresolved_frames": 99,
                               "unmatched_messages": 0, "oversubscription": 64.0, "missing_ranks": [],
                               "warnings": ["64 ranks per core at 128 processes"]}}
    with open(out, "w") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main()
