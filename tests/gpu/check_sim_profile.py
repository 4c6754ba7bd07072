#!/usr/bin/python3
"""check_sim_profile.py — checks the profile of gpu_sim_imbalance run under the
real runtime (scalana-dump --json on stdin): every rank's GPU activity is there,
the heavy (last) rank launched --factor times the kernels of the others, and
kernel, copy and sync records sit at the source lines of their calls.
usage: scalana-dump --json RUN | check_sim_profile.py BINARY STEPS LAUNCHES FACTOR"""
import json
import subprocess
import sys

binary, steps, launches, factor = sys.argv[1], *map(int, sys.argv[2:5])
run = json.load(sys.stdin)
ranks = run["ranks"]
size = len(ranks)
fails = []

def source_line(rank, node):
    """file:line of the innermost frame of node that lies in the executable."""
    cct, mods = rank["cct"], rank["modules"]
    while node is not None and node >= 0:
        c = cct[node]
        if c["kind"] == "root":
            return None
        if c["module"] >= 0 and mods[c["module"]]["path"].endswith(binary.split("/")[-1]):
            out = subprocess.run(["addr2line", "-e", binary, "-i", hex(c["address"] - 1)],
                                 capture_output=True, text=True).stdout.split("\n")[0]
            return out.split("/")[-1].split(" ")[0]
        node = c["parent"]
    return None

for r in ranks:
    rank = r["info"]["world_rank"]
    if not r["info"]["flags"] & 32:
        fails.append(f"rank {rank}: PRF_RANK_GPU_ENABLED not set")
    acts = {(g["kind"], g["name"]): g for g in r["gpu"]}
    heavy = size > 1 and rank == size - 1
    want = steps * launches * (factor if heavy else 1)
    k = acts.get(("kernel", "_Z11busy_kernelPfii"))
    if not k or k["count"] != want:
        fails.append(f"rank {rank}: {k and k['count']} kernels, expected {want}")
    checks = [("kernel", "_Z11busy_kernelPfii", "gpu_sim_imbalance.c:29"),
              ("memcpy", "DtoH", "gpu_sim_imbalance.c:32"),
              ("sync", "cudaMemcpy", "gpu_sim_imbalance.c:32"),
              ("sync", "cudaDeviceSynchronize", "gpu_sim_imbalance.c:63")]
    for kind, name, where in checks:
        g = acts.get((kind, name))
        if not g:
            fails.append(f"rank {rank}: no {kind} {name}")
            continue
        if g["node"] < 0 or g["node"] == 4294967295:
            fails.append(f"rank {rank}: {kind} {name} has no context")
            continue
        at = source_line(r, g["node"])
        if at != where:
            fails.append(f"rank {rank}: {kind} {name} at {at}, expected {where}")
    s = acts.get(("sync", "cudaMemcpy"))
    if s and k and s["time_ns"] < 0.5 * k["time_ns"]:
        fails.append(f"rank {rank}: host blocked {s['time_ns']} ns in cudaMemcpy, less than half "
                     f"the kernel time {k['time_ns']} ns it waits for")
for f in fails:
    print("FAIL:", f)
print("PASS" if not fails else f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
