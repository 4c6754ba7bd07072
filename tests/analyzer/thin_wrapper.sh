#!/bin/sh
# thin_wrapper.sh — a thin MPI wrapper of the application (a function that only
# forwards to one MPI call, as hypre's hypre_MPI_Waitall in mpistubs.c) is
# skipped to its caller: its MPI vertex is named at the wrapper's call site in
# the caller (docs/analyzer.md, Attribution).  thin_wrapper/wrapmain.c calls
# app_MPI_Waitall and app_MPI_Allreduce of thin_wrapper/mpistubs.c, and
# app_MPI_Waitall_each, which loops over MPI_Wait (not thin: its MPI_Wait stays
# in mpistubs.c).  Three builds, each run at 2 processes (Open MPI) and
# analysed: scalana-cc -O2 (the pass's PSG; the wrapper's frame is kept,
# notail), the system mpicc -O2 -g profiled through LD_PRELOAD (gcc makes the
# wrapper a tail jump: no frame of it) and mpicc -O2 -g
# -fno-optimize-sibling-calls (a frame, and the recovered PSG's wrapper).
# usage: thin_wrapper.sh BUILD_DIR SOURCE_DIR WORK_DIR PYTHON
set -eu
build=$1 src=$2 work=$3 python=$4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
in="$src/tests/analyzer/thin_wrapper"
"$build/bin/scalana-cc" -O2 "$in/wrapmain.c" "$in/mpistubs.c" -o w_cc
mpicc.openmpi -O2 -g "$in/wrapmain.c" "$in/mpistubs.c" -o w_gcc
mpicc.openmpi -O2 -g -fno-optimize-sibling-calls "$in/wrapmain.c" "$in/mpistubs.c" -o w_gcc_frame
waitall=$(grep -n 'WAITALL_LINE' "$in/wrapmain.c" | cut -d: -f1)
allreduce=$(grep -n 'ALLREDUCE_LINE' "$in/wrapmain.c" | cut -d: -f1)
for prog in w_cc w_gcc w_gcc_frame; do
    "$build/bin/scalana-run" --output "$work/run-$prog" mpirun.openmpi --oversubscribe -n 2 "./$prog"
    "$build/bin/scalana-analyze" --no-viewer -q --psg-cache off -o "$work/rep-$prog" "$work/run-$prog"
    "$python" - "$work/rep-$prog/report.json" "$prog" "$waitall" "$allreduce" <<'PY'
import json, os, sys
report, prog, waitall, allreduce = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
r = json.load(open(report))
byid = {v["id"]: v for v in r["vertices"]}
bad = []


def mpi(name):
    return [v for v in r["vertices"] if v["kind"] == "MPI" and v["name"] == name]


for name, line, wrapper in (("MPI_Waitall", waitall, "app_MPI_Waitall"),
                            ("MPI_Allreduce", allreduce, "app_MPI_Allreduce")):
    vs = mpi(name)
    if not vs:
        bad.append("no %s vertex" % name)
    for v in vs:
        where = "%s:%s" % (os.path.basename(v.get("file") or ""), v.get("line"))
        if where != "wrapmain.c:%d" % line:
            bad.append("%s named at %s, not at the call of %s at wrapmain.c:%d" % (name, where, wrapper, line))
        if v.get("function") != "main":
            bad.append("%s is in %s, not in main (the caller)" % (name, v.get("function")))
        parent = byid.get(v.get("parent"), {})
        if parent.get("name") != "call " + wrapper:
            bad.append("%s is below %r, not below the call of %s" % (name, parent.get("name"), wrapper))
# a wrapper with a loop is not thin: its MPI_Wait stays in it
waits = mpi("MPI_Wait")
if not waits or any(os.path.basename(v.get("file") or "") != "mpistubs.c" for v in waits):
    bad.append("MPI_Wait of the looping wrapper: %s, want it in mpistubs.c"
               % [(v.get("file"), v.get("line")) for v in waits])
for v in r["vertices"]:
    if v["kind"] == "MPI" and v["name"] != "MPI_Wait" and os.path.basename(v.get("file") or "") == "mpistubs.c":
        bad.append("%s still named in the wrapper (mpistubs.c:%s)" % (v["name"], v.get("line")))
for b in bad:
    print("FAIL: %s: %s" % (prog, b))
if bad:
    sys.exit(1)
print("PASS: %s: MPI_Waitall at wrapmain.c:%d, MPI_Allreduce at wrapmain.c:%d, MPI_Wait in the looping wrapper"
      % (prog, waitall, allreduce))
PY
done
