#!/bin/sh
# nodebug.sh — a program built without -g (the system's mpicc -O2 and mpifort
# -O2, no ScalAna compiler, so no PSG and no DWARF), profiled through
# LD_PRELOAD alone at 1 and 2 processes (Open MPI): the analysis says once that
# there is no debug information, with the fix (-g), in the terminal summary
# and in report.json's data_quality.warnings, and still names the planted
# function from the symbol table: root cause #1 is load imbalance in relax
# (C) / relax_mod::relax (gfortran's __relax_mod_MOD_relax) on process 0,
# traced from the wait at MPI_Allreduce.  The kernels are kept out of line
# (noinline, -fno-inline): with no lines, a function is the finest thing the
# report can name, and an inlined one is main's time.  The same gfortran
# program built with -g checks the names from gfortran's DWARF: the procedure
# relax_mod::relax, the main program (MAIN__, DW_AT_name use_mpi_relax with
# DW_AT_main_subprogram) as "program use_mpi_relax" (a PSG recovered from the
# machine code names them relax and use_mpi_relax: accepted), and no warning.
# usage: nodebug.sh BUILD_DIR SOURCE_DIR WORK_DIR PYTHON
set -eu
build=$1 src=$2 work=$3 python=$4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
lib="$build/lib/libscalana-openmpi.so"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

mpicc.openmpi -O2 "$src/tests/analyzer/nodebug/relax_nodebug.c" -o relax_c
mpifort.openmpi -O2 -fno-inline "$src/tests/plugin/Inputs/use_mpi_relax.f90" -o relax_f
mpifort.openmpi -g -O2 -fno-inline "$src/tests/plugin/Inputs/use_mpi_relax.f90" -o relax_fg

check() { # PROGRAM FUNCTION DEBUG(0: built without -g, 1: with)
    prog=$1 fn=$2 debug=$3
    if [ "$(readelf -S "$prog" | grep -c '\.debug_info')" != "$debug" ]; then
        echo "FAIL: $prog: .debug_info sections: want $debug"; exit 1
    fi
    for np in 1 2; do
        SCALANA_OUTPUT="$work/$prog-$np" SCALANA_QUIET=1 LD_PRELOAD="$lib" \
            mpirun.openmpi --oversubscribe -n $np -x LD_PRELOAD -x SCALANA_OUTPUT -x SCALANA_QUIET "./$prog"
    done
    "$build/bin/scalana-analyze" --no-viewer --color never -o "$work/rep-$prog" "$work/$prog-1" "$work/$prog-2" \
        > "$work/$prog.summary" 2> "$work/$prog.stderr"
    cat "$work/$prog.summary"
    "$python" - "$work/rep-$prog/report.json" "$work/$prog.summary" "$fn" "$debug" <<'PY'
import json, sys
report, summary, fn, debug = sys.argv[1:5]


def c_location(r):
    return ((r.get("root_causes") or [{}])[0]).get("location", "")


r = json.load(open(report))
text = open(summary).read()
bad = []
advice = "has no debug information (built without -g)"
fix = "rebuild with -g"
warns = [w for w in r["data_quality"]["warnings"] if advice in w]
flat = " ".join(text.split())
if debug == "1":
    if warns or advice in flat:
        bad.append("a build with -g is said to have no debug information")
    # the symbolizer's dynamic vertices say "program use_mpi_relax"; a PSG
    # recovered from the machine code names it by DW_AT_name alone
    if "use_mpi_relax at" not in c_location(r) or "MAIN__" in c_location(r):
        bad.append("the main program is not named by its name, use_mpi_relax")
else:
    if len(warns) != 1 or fix not in warns[0]:
        bad.append(f"report.json warnings: want one '{advice} ... {fix}', got {r['data_quality']['warnings']}")
    if flat.count(advice) != 1 or fix not in flat:
        bad.append("terminal summary: the no-debug-information warning (with the fix) is not there once")
c = (r.get("root_causes") or [{}])[0]
print("#1", c.get("category"), c.get("function"), c.get("processes"), "|", c.get("location"))
if c.get("category") != "load_imbalance": bad.append(f"category {c.get('category')}")
if c.get("function") not in fn.split("|"): bad.append(f"function {c.get('function')}, want {fn}")
if sorted(c.get("processes") or []) != [0]: bad.append(f"processes {c.get('processes')}, want [0]")
if "wait at MPI_Allreduce" not in c.get("evidence", ""): bad.append("not traced from the wait at MPI_Allreduce")
if "outside main" in text or ":0" in c.get("location", ""): bad.append("a location without a name")
for b in bad: print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
}
check relax_c relax 0
check relax_f relax_mod::relax 0
check relax_fg 'relax_mod::relax|relax' 1
rm -rf "$work"
