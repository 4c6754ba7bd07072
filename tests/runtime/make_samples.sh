#!/bin/bash
# make_samples.sh — leaves sample run directories for the analyzer engineers:
#   tests/runtime/make_samples.sh BUILD_DIR [OUT_DIR=/tmp/scalana-samples]
# ring.c (Isend/Irecv/Waitall ring, Send/Recv pair, Allreduce) at 2 and 4
# ranks under Open MPI and MPICH.
set -eu
build=$(cd "$1" && pwd)
out=${2:-/tmp/scalana-samples}
src=$(cd "$(dirname "$0")" && pwd)/progs/ring.c
mkdir -p "$out/bin"
mpicc.openmpi -g -O1 -o "$out/bin/ring-openmpi" "$src"
mpicc.mpich -g -O1 -Wno-stringop-overflow -o "$out/bin/ring-mpich" "$src"
cd "$out"
for n in 2 4; do
  rm -rf "$out/openmpi-ring-${n}p" "$out/mpich-ring-${n}p"
  SCALANA_OUTPUT="$out/openmpi-ring-${n}p" timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n $n \
    -x LD_PRELOAD="$build/lib/libscalana-openmpi.so" -x SCALANA_OUTPUT ./bin/ring-openmpi >/dev/null
  SCALANA_OUTPUT="$out/mpich-ring-${n}p" timeout 120 mpirun.mpich -n $n \
    -genv LD_PRELOAD "$build/lib/libscalana-mpich.so" ./bin/ring-mpich >/dev/null
done
echo "samples in $out: $(ls -d "$out"/*-ring-*p | tr '\n' ' ')"
