#!/bin/bash
# make_samples.sh — leaves sample run directories for the analyzer engineers:
#   tests/runtime/make_samples.sh BUILD_DIR [OUT_DIR=/tmp/scalana-samples]
# Under Open MPI and MPICH: ring.c (Isend/Irecv/Waitall ring, Send/Recv pair,
# Allreduce) at 2 and 4 ranks, p2p.c and coll.c at 4, threads.c at 2, misc.c
# (RMA, MPI-IO, phases) at 3.
set -eu
build=$(cd "$1" && pwd)
out=${2:-/tmp/scalana-samples}
progs=$(cd "$(dirname "$0")" && pwd)/progs
mkdir -p "$out/bin"
cd "$out"
run() { # mpi prog np
  local mpi=$1 prog=$2 n=$3 d="$out/$1-$2-$3p"
  rm -rf "$d"
  if [ "$mpi" = openmpi ]; then
    SCALANA_OUTPUT="$d" MISC_IO_DIR=/tmp timeout 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" \
      -x LD_PRELOAD="$build/lib/libscalana-openmpi.so" -x SCALANA_OUTPUT -x MISC_IO_DIR "./bin/$prog-$mpi" >/dev/null
  else
    timeout 120 mpirun.mpich -n "$n" -genv SCALANA_OUTPUT "$d" -genv MISC_IO_DIR /tmp \
      -genv LD_PRELOAD "$build/lib/libscalana-mpich.so" "./bin/$prog-$mpi" >/dev/null
  fi
}
for mpi in openmpi mpich; do
  for prog in ring p2p coll threads misc; do
    mpicc.$mpi -g -O1 -fno-inline -Wno-stringop-overflow -o "$out/bin/$prog-$mpi" "$progs/$prog.c" -lpthread
  done
  run $mpi ring 2; run $mpi ring 4; run $mpi p2p 4; run $mpi coll 4; run $mpi threads 2; run $mpi misc 3
done
echo "samples in $out: $(ls -d "$out"/*-*p | xargs -n1 basename | tr '\n' ' ')"
