#!/bin/sh
# test_sim_runtime.sh — gpu_sim_imbalance (a simulated GPU behind CUDA-named
# calls, the collector's real code) under the real runtime at 2 processes: the
# profile holds every rank's GPU activity at the right source lines.
# usage: test_sim_runtime.sh MPIRUN RUNTIME_LIB SIM_PROGRAM SCALANA_DUMP WORKDIR
set -u
mpirun=$1 runtime=$2 prog=$3 dump=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
"$mpirun" --oversubscribe -np 2 -x LD_PRELOAD="$runtime" "$prog" --steps 10 --launches 2 \
    --block-us 200 --factor 4 >out.txt 2>&1 || { echo "FAIL: run: $(cat out.txt)"; exit 1; }
cat out.txt
dir=$(ls -d scalana-* 2>/dev/null | head -1)
[ -n "$dir" ] || { echo "FAIL: no run directory"; exit 1; }
"$dump" --json "$dir" | /usr/bin/python3 "$here/check_sim_profile.py" "$prog" 10 2 4
