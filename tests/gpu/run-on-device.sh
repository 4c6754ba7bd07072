#!/bin/bash
# run-on-device.sh — the GPU checks for the accelerator machine (CUDA and CMake
# there; no MPI, libunwind, Graphviz or registry).  Uses the carried bundle made
# here by tests/gpu/prepare-device-bundle.sh; bounded to a few minutes.
#   run(command="bash tests/gpu/run-on-device.sh", carry=["build-gpu-bundle"], timeout_s=540)
# (typically about a minute; every step has its own timeout, and profiled runs stop
# starting once SCALANA_DEVICE_BUDGET_S, default 420 s, is nearly spent)
# Writes to $OUT: device.log (everything printed), collector-check.log, np<N>.log,
# runs/ (the run directories written by the runtime), summary.txt.
# Steps: 1 machine facts; 2 CUDA smoke test (rebuilds with the machine's nvcc
# if the driver refuses our binaries); 3 collector check with a stand-in
# runtime; 4 the example profiled at 1 process, and at 2 and 4 (plus a balanced
# control at 4) when the carried mpirun starts.
set -u
B=$(cd "${1:-build-gpu-bundle}" 2>/dev/null && pwd) || { echo "no bundle: ${1:-build-gpu-bundle}"; exit 2; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT/runs"
exec > >(tee -a "$OUT/device.log") 2>&1
WORK=$(mktemp -d /tmp/scalana-gpu.XXXXXX)
RUNS=$WORK/runs
mkdir -p "$RUNS" "$WORK/bin" "$WORK/lib"
summary() { echo "$*"; echo "$*" >>"$OUT/summary.txt"; }
step() { echo; echo "=== $* ($(date -u +%T))"; }
EX_ARGS=${SCALANA_GPU_EXAMPLE_ARGS:-"--steps 40 --launches 4 --work 200000 --factor 4"}

step "1. machine"
uname -a; ldd --version | head -1
nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv 2>&1 | head -5
command -v nvcc && nvcc --version | tail -2
cat "$B/MANIFEST"
have=$(ldd --version | head -1 | grep -oE '[0-9]+\.[0-9]+$'); need=$(cat "$B/GLIBC_NEEDED" 2>/dev/null || echo 2.0)
[ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -1)" = "$need" ] ||
    summary "FAIL this machine's glibc $have is older than the $need the carried libraries need"
# shellcheck disable=SC1091
. "$B/env.sh"
for f in "$B/lib/libscalana-cupti.so" "$B/bin/gpu_imbalance" "$B/bin/cuda_nodevice"; do
    [ -e "$f" ] || continue
    miss=$(ldd "$f" | grep 'not found')
    [ -z "$miss" ] || summary "FAIL libraries missing for $(basename "$f"): $miss"
done
case $(command -v mpirun) in "$B"/*) ;; *) summary "FAIL mpirun is not the carried one: $(command -v mpirun)";; esac
COLLECTOR=$B/lib/libscalana-cupti.so
export CUDA_INJECTION64_PATH=$COLLECTOR # what scalana-run sets; harmless if it does too

step "2. CUDA smoke test (no tool)"
timeout 30 "$B/bin/cuda_nodevice"; rc=$?
if [ $rc != 0 ]; then
    summary "NOTE carried CUDA binaries failed (rc $rc): rebuilding with this machine's nvcc"
    CUDA_INJECTION64_PATH= timeout 60 nvcc -O1 -o "$WORK/bin/cuda_nodevice" "$SRC/tests/gpu/cuda_nodevice.cu" &&
    timeout 90 nvcc -O2 -g -lineinfo -Xcompiler -fno-omit-frame-pointer -DOMPI_SKIP_MPICXX=1 \
        -gencode arch=compute_90,code=sm_90 -I"$B/mpi-include" \
        -Xlinker "$R/usr/lib/x86_64-linux-gnu/libmpi.so.40" \
        -Xlinker -rpath-link="$R/usr/lib/x86_64-linux-gnu:$OPAL_LIBDIR" \
        -o "$WORK/bin/gpu_imbalance" "$SRC/examples/gpu/gpu_imbalance.cu" &&
    export PATH="$WORK/bin:$PATH" || summary "FAIL rebuilding with this machine's nvcc"
    timeout 30 cuda_nodevice; rc=$?
fi
[ $rc = 0 ] && summary "PASS CUDA runs here" || summary "FAIL CUDA does not run here (rc $rc)"
NODEV=$(command -v cuda_nodevice); EX=$(command -v gpu_imbalance)
# the build with the PSG (nvcc + clang++-19 + the pass), unless we had to rebuild
[ -x "$B/bin/gpu_imbalance_psg" ] && [ "$EX" = "$B/bin/gpu_imbalance" ] && EX=$B/bin/gpu_imbalance_psg
summary "NOTE example: $EX"
# the analyzer needs the very binary that ran (build-id): bring a rebuilt one back
[ "$EX" = "$WORK/bin/gpu_imbalance" ] && cp -p "$EX" "$OUT/gpu_imbalance.rebuilt"

step "3. collector with a stand-in runtime (kernel, sync, copies attributed?)"
collector_check() {
    rm -f "$OUT/collector-check.log"
    LD_PRELOAD="$B/lib/libscalana_gpu_fake_rt.so" SCALANA_FAKE_RT_LOG="$OUT/collector-check.log" \
        SCALANA_GPU_DEBUG=1 CUDA_INJECTION64_PATH=$COLLECTOR timeout 30 "$NODEV"
    cat "$OUT/collector-check.log"
    grep -q 'gpu KERNEL name=_Z5scalePfi .*count=1 no_context=0' "$OUT/collector-check.log"
}
if collector_check; then
    summary "PASS collector: kernel attributed to its launch context"
else
    if grep -q collector_failed "$OUT/collector-check.log" 2>/dev/null && command -v cmake >/dev/null; then
        summary "NOTE carried collector failed: rebuilding it against this machine's CUPTI"
        CUDA_INJECTION64_PATH= timeout 60 cmake -S "$SRC/runtime/gpu" -B "$WORK/cupti" >/dev/null &&
            CUDA_INJECTION64_PATH= timeout 90 cmake --build "$WORK/cupti" >/dev/null &&
            COLLECTOR=$WORK/cupti/lib/libscalana-cupti.so && export CUDA_INJECTION64_PATH=$COLLECTOR
        collector_check && summary "PASS collector (rebuilt here): kernel attributed" ||
            summary "FAIL collector: see collector-check.log"
    else
        summary "FAIL collector: see collector-check.log"
    fi
fi
for k in SYNC MEMCPY MEMSET; do
    grep -q "gpu $k " "$OUT/collector-check.log" && summary "PASS collector: $k records" ||
        summary "FAIL collector: no $k records"
done

step "4. the example, profiled"
if [ -x "$B/bin/scalana-run" ]; then
    how="scalana-run"
elif [ -e "$B/lib/libscalana-openmpi.so" ]; then
    how="LD_PRELOAD=libscalana-openmpi.so"
else
    how="stand-in runtime (no ScalAna runtime in the bundle)"
fi
summary "NOTE profiling through: $how"
export SCALANA_GPU_DEBUG=1 # per rank: collection started, and records/unmatched/dropped at the flush
BUDGET=${SCALANA_DEVICE_BUDGET_S:-420} # seconds for the whole script; runs that may not fit are skipped
profile() { # np, extra args...
    np=$1; shift
    if [ $((BUDGET - SECONDS)) -lt 65 ]; then
        echo "skipped: ${SECONDS}s of ${BUDGET}s used"; return 124
    fi
    tag=np$np$([ $# -gt 0 ] && echo -balanced)
    log="$OUT/$tag.log"
    mkdir -p "$RUNS/$tag" # one directory per run: two runs at one size must not collide
    (cd "$RUNS/$tag" && case $how in
        scalana-run) timeout 60 scalana-run mpirun -np "$np" "$EX" $EX_ARGS "$@" ;;
        LD_PRELOAD*) timeout 60 mpirun -np "$np" -x LD_PRELOAD="$B/lib/libscalana-openmpi.so" \
                         -x CUDA_INJECTION64_PATH "$EX" $EX_ARGS "$@" ;;
        *) SCALANA_FAKE_RT_LOG="$log.rt" timeout 60 mpirun -np "$np" \
               -x LD_PRELOAD="$B/lib/libscalana_gpu_fake_rt.so" -x SCALANA_FAKE_RT_LOG \
               -x CUDA_INJECTION64_PATH "$EX" $EX_ARGS "$@" ;;
     esac) >"$log" 2>&1
    rc=$?
    cat "$log"; [ -e "$log.rt" ] && cat "$log.rt"
    return $rc
}
mpi_ok=0
mpi_starts() { # np: rank 0 reports the size whether or not CUDA works
    timeout 30 mpirun -np "$1" "$EX" --steps 1 >>"$OUT/mpi-check.log" 2>&1
    grep -q "gpu_imbalance: .*, $1 ranks" "$OUT/mpi-check.log"
}
if mpi_starts 1; then
    mpi_ok=1
else
    cat "$OUT/mpi-check.log"; summary "FAIL the carried mpirun does not start at 1 process"
fi
profile 1 && summary "PASS np 1" || summary "FAIL np 1 (rc $?)"
if [ $mpi_ok = 1 ] && mpi_starts 2; then
    profile 2 && summary "PASS np 2" || summary "FAIL np 2 (rc $?)"
    profile 4 && summary "PASS np 4" || summary "FAIL np 4 (rc $?)"
    profile 4 --balanced && summary "PASS np 4 balanced control" || summary "FAIL np 4 balanced (rc $?)"
else
    summary "SKIP np 2 and 4: the carried mpirun does not start 2 processes"
fi
grep -h 'ground truth' "$OUT"/np*.log | sort -u | while read -r l; do summary "$l"; done
grep -h '^scalana' "$OUT"/np*.log | sort | uniq -c | sort -rn | head -20 | while read -r l; do summary "collector: $l"; done

cp -a "$RUNS"/. "$OUT/runs/" 2>/dev/null
summary "run directories: $(cd "$OUT/runs" && ls -d */* 2>/dev/null | tr '\n' ' ')"
du -sh "$OUT"
rm -rf "$WORK"
echo; cat "$OUT/summary.txt"
sleep 1 # let tee finish device.log before the machine collects $OUT
