#!/bin/sh
# make-sim-runs.sh — run directories with GPU activity on this GPU-less machine,
# for the analyzer: gpu_sim_imbalance (simulated GPU, the collector's real code)
# built with scalana-cc (so its PSG has the GPU vertices) and profiled with
# scalana-run at 1, 2 and 4 processes, plus a balanced control at 4.
# usage: make-sim-runs.sh BUILD_DIR OUT_DIR   (BUILD_DIR: a full build with
#        scalana-cc, scalana-run, libscalana-openmpi.so and tests/gpu built)
# Expected analysis: the top root cause is the kernel launch at
# gpu_sim_imbalance.c:29 on the last rank (GPU-bound, 4x the kernel time),
# explaining the others' waits in MPI_Allreduce at gpu_sim_imbalance.c:61.
set -eu
build=$(cd "$1" && pwd)
mkdir -p "$2"; out=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cuda=${SCALANA_CUDA_ROOT:-/usr/local/cuda}
sim=$build/tests/gpu
[ -e "$sim/libscalana_gpu_sim.so" ] || { echo "build $sim/libscalana_gpu_sim.so first" >&2; exit 1; }
"$build/bin/scalana-cc" -O2 -g -I"$here" -I"$cuda/include" "$here/gpu_sim_imbalance.c" \
    -o "$out/gpu_sim_imbalance" -L"$sim" -lscalana_gpu_sim -Wl,-rpath,"$sim" -Wl,-rpath,"$cuda/lib64"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$out"
for p in 1 2 4; do
    "$build/bin/scalana-run" mpirun.openmpi --oversubscribe -np $p ./gpu_sim_imbalance
done
mkdir -p balanced && cd balanced
"$build/bin/scalana-run" mpirun.openmpi --oversubscribe -np 4 ../gpu_sim_imbalance --balanced
cd "$out" && ls -d scalana-* balanced/scalana-*
