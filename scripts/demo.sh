#!/bin/sh
# demo.sh — `make demo` (after the build): every planted example (examples/examples.list)
# compiled with scalana-cc/-cxx/-fc, run under scalana-run at 1, 2, 4 and 8 processes
# (the MPI + OpenMP ones at 1, 2 and 4, with 2 threads each) with its defect on, analyzed; prints each terminal summary, the ground truth and the
# path of each HTML report.  Usage: sh scripts/demo.sh [BUILD_DIR]   (default: build)
#
# Environment: SCALANA_DEMO_PROCS (default "1 2 4 8"), SCALANA_DEMO_EXAMPLES (names,
# default all), SCALANA_MPIRUN (default mpirun.openmpi), SCALANA_MPIRUN_FLAGS (default
# "--allow-run-as-root --oversubscribe"), SCALANA_DEMO_SCALE (work scale, default 1).
# Exit status: 0 when every example ran and every report names its planted cause (and
# nothing on the control); 1 otherwise, after running everything.
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
BIN=$BUILD/bin
OUT=$BUILD/demo
PROCS=${SCALANA_DEMO_PROCS:-1 2 4 8}
MPIRUN=${SCALANA_MPIRUN:-mpirun.openmpi}
MPIRUN_FLAGS=${SCALANA_MPIRUN_FLAGS:---allow-run-as-root --oversubscribe}
SCALE=${SCALANA_DEMO_SCALE:-1}
PYTHON=/usr/bin/python3
EXAMPLES=$ROOT/examples

say() { printf '%s\n' "$*"; }
die() { say "demo: $*" >&2; exit 1; }

for tool in scalana-cc scalana-cxx scalana-fc scalana-run scalana-analyze; do
    if [ ! -x "$BIN/$tool" ] || [ ! -s "$BIN/$tool" ]; then
        die "$BIN/$tool is missing: build first (make build, or cmake --build $BUILD)"
    fi
done
command -v "$MPIRUN" >/dev/null 2>&1 || die "$MPIRUN not found: install openmpi-bin"

largest=1
# the cores the examples' CPU model of the saving assumes (as the e2e tests)
cores=$(nproc 2>/dev/null || echo 1)
for p in $PROCS; do [ "$p" -gt "$largest" ] && largest=$p; done

rm -rf "$OUT"
mkdir -p "$OUT" || die "cannot create $OUT"
start=$(date +%s)
failed=""
reports=""
found=0
total=0

# examples.list: name source language category optimisation gcc-run needs
grep -v '^[[:space:]]*#' "$EXAMPLES/examples.list" | grep -v '^[[:space:]]*$' > "$OUT/examples.list"
# (fd 3: mpirun reads its standard input, which must not be the list)
while read -r name source language category opt _gcc needs _rest <&3; do
    [ -n "${opt:-}" ] || opt=-O2
    # MPI + OpenMP (needs openmp): -fopenmp, 2 threads that wait passively, not bound
    # to one core, at the counts up to 4 (as the e2e tests run them)
    omp="" ex_procs=$PROCS ex_largest=$largest omp_flags=""
    if [ "${needs:-}" = openmp ]; then
        omp=-fopenmp omp_flags="--bind-to none -x OMP_NUM_THREADS -x OMP_WAIT_POLICY"
        ex_procs="" ex_largest=1
        for p in $PROCS; do
            [ "$p" -le 4 ] || continue
            ex_procs="$ex_procs $p"
            [ "$p" -gt "$ex_largest" ] && ex_largest=$p
        done
    fi
    if [ -n "${SCALANA_DEMO_EXAMPLES:-}" ]; then
        case " $SCALANA_DEMO_EXAMPLES " in *" $name "*) ;; *) continue ;; esac
    fi
    total=$((total + 1))
    dir=$OUT/$name
    mkdir -p "$dir"
    case $language in
        c) cc=scalana-cc ;;
        cxx) cc=scalana-cxx ;;
        fortran) cc=scalana-fc ;;
        *) say "demo: $name: unknown language $language"; failed="$failed $name"; continue ;;
    esac
    say ""
    say "=== $name ($category, $cc $opt) =================================================="
    # shellcheck disable=SC2086  # omp is empty or one flag
    if ! (cd "$dir" && "$BIN/$cc" "$opt" $omp -g -I"$EXAMPLES" "$EXAMPLES/$source" -o "$dir/$name") \
            > "$dir/compile.log" 2>&1 || [ ! -x "$dir/$name" ]; then
        say "demo: $name: $cc failed, see $dir/compile.log:"
        tail -n 20 "$dir/compile.log"
        failed="$failed $name"
        continue
    fi
    runs=""
    ok=1
    for p in $ex_procs; do
        t0=$(date +%s)
        # shellcheck disable=SC2086  # MPIRUN_FLAGS and omp_flags are lists of flags
        if ! (cd "$dir" && SCALANA_OUTPUT="$dir/run-${p}p" SCALANA_EXAMPLE_CORES="$cores" \
                  OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive "$BIN/scalana-run" "$MPIRUN" $MPIRUN_FLAGS $omp_flags \
                  -n "$p" "./$name" --defect=on --scale="$SCALE") < /dev/null > "$dir/run-${p}p.log" 2>&1; then
            say "demo: $name: the $p-process run failed, see $dir/run-${p}p.log:"
            tail -n 20 "$dir/run-${p}p.log"
            ok=0
            break
        fi
        say "  ran at $p process(es) in $(( $(date +%s) - t0 )) s -> $dir/run-${p}p"
        runs="$runs $dir/run-${p}p"
    done
    if [ $ok = 0 ]; then failed="$failed $name"; continue; fi
    grep '^ground truth:' "$dir/run-${ex_largest}p.log" | sed 's/^/  /'
    say ""
    # shellcheck disable=SC2086  # runs is a list of directories
    if ! "$BIN/scalana-analyze" $runs -o "$dir/report" < /dev/null > "$dir/analyze.log" 2>&1; then
        say "demo: $name: scalana-analyze failed, see $dir/analyze.log:"
        tail -n 20 "$dir/analyze.log"
        failed="$failed $name"
        continue
    fi
    cat "$dir/analyze.log"
    say ""
    if [ -f "$dir/report/index.html" ]; then
        say "  HTML report: $dir/report/index.html"
        reports="$reports
  $name: $dir/report/index.html"
    else
        say "demo: $name: scalana-analyze wrote no $dir/report/index.html"
        failed="$failed $name"
    fi
    if [ -x "$PYTHON" ]; then
        # the base of a communication cost's growth: the smallest run with 2 or more processes
        base_log=""
        for p in $ex_procs; do
            if [ "$p" -ge 2 ] && [ "$p" -lt "$ex_largest" ] && [ -z "$base_log" ]; then
                base_log="$dir/run-${p}p.log"
            fi
        done
        if "$PYTHON" "$ROOT/tests/e2e/run_example.py" --example "$name" --source-dir "$ROOT" \
                --verdict "$dir/report/report.json" --truth-log "$dir/run-${ex_largest}p.log" \
                ${base_log:+--truth-base-log "$base_log"} > "$dir/verdict.log" 2>&1; then
            found=$((found + 1))
            say "  verdict: $(tail -n 1 "$dir/verdict.log")"
        else
            say "  verdict: $(cat "$dir/verdict.log")"
            failed="$failed $name"
        fi
    fi
done 3< "$OUT/examples.list"

say ""
say "=== ScalAna demo: $total example(s) in $(( $(date +%s) - start )) s ==========================="
[ -n "$reports" ] && say "HTML reports:$reports"
[ -x "$PYTHON" ] && say "planted causes found (nothing on the control): $found of $total"
if [ -n "$failed" ]; then
    say "demo: not as planted or failed:$failed"
    exit 1
fi
exit 0
