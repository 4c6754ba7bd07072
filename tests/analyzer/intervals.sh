#!/bin/sh
# intervals.sh — runs progs/intervals.c (tests/runtime) under the runtime with
# a real mpirun (2 processes), then test_intervals checks what the analyzer
# ingests from the run directory.
# usage: intervals.sh TEST_BIN BUILD_DIR MPI PROGRAM SOURCE WORK_DIR
set -eu
test_bin=$1 build=$2 mpi=$3 prog=$4 src=$5 work=$6
rm -rf "$work"
mkdir -p "$work"
run="$work/run"
lib="$build/lib/libscalana-$mpi.so"
if [ "$mpi" = openmpi ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SCALANA_OUTPUT="$run" LD_PRELOAD="$lib" \
        SCALANA_QUIET=1 mpirun.openmpi --oversubscribe -n 2 -x LD_PRELOAD -x SCALANA_OUTPUT -x SCALANA_QUIET "$prog"
else
    mpirun.mpich -n 2 -genv LD_PRELOAD "$lib" -genv SCALANA_OUTPUT "$run" -genv SCALANA_QUIET 1 "$prog"
fi
"$test_bin" "$run" "$prog" "$src"
rm -rf "$work"
