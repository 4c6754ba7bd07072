#!/bin/sh
# test_runtime_nodevice.sh — the example under the real ScalAna runtime on this
# GPU-less machine, with the collector initialised as the driver would (shim):
# every rank reports its own CUDA error, each prints one collector line, the run
# directory is written and records the collector's failure for every rank.
# usage: test_runtime_nodevice.sh MPIRUN RUNTIME_LIB SHIM COLLECTOR EXAMPLE SCALANA_DUMP WORKDIR
set -u
mpirun=$1 runtime=$2 shim=$3 collector=$4 example=$5 dump=$6 work=$7
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
"$mpirun" --oversubscribe -np 2 -x CUDA_INJECTION64_PATH="$collector" \
    -x LD_PRELOAD="$runtime:$shim" "$example" --steps 2 >out.txt 2>err.txt
rc=$?
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ $rc = 3 ] || bad "mpirun exit $rc, expected the example's own 3"
[ "$(grep -c 'cudaGetDeviceCount: ' err.txt)" = 2 ] || bad "ranks did not report their own CUDA error: $(cat err.txt)"
[ "$(grep -c '^scalana: GPU collection disabled: ' err.txt)" = 2 ] || bad "expected one collector line per rank: $(cat err.txt)"
dir=$(ls -d scalana-* 2>/dev/null | head -1)
[ -n "$dir" ] || { bad "no run directory"; exit 1; }
"$dump" "$dir" >dump.txt 2>&1 || bad "scalana-dump failed: $(cat dump.txt)"
[ "$(grep -c 'gpu.*cuptiSubscribe' dump.txt)" = 2 ] || bad "the profile does not record the collector's failure per rank"
[ $fails = 0 ] && echo PASS
