#!/bin/bash
# check_exports.sh — the runtime library exports only what it must: MPI
# interposers (C and Fortran), the phase API, the collector API, the loop work
# counters' registration (include/scalana/work_counters.h), the OMPT tool
# entry (ompt_start_tool), libgomp's fork calls (GOMP_parallel*), and the libc
# functions interposed for sampling (pthread_create, sigaction, signal) and
# for the module table (dlclose).
#   check_exports.sh LIBRARY
set -u
lib=$1
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v -E \
  '^(MPI_[A-Za-z0-9_]+|mpi_[a-z0-9_]+|pmpi_[a-z0-9_]+|MPI_[A-Z0-9_]+_?|scalana_phase_(begin|end)_{0,2}|SCALANA_PHASE_(BEGIN|END)|scalana_rt_(collector_api_version|capture_context|gpu_add|register_flush|collector_failed|work_register)|ompt_start_tool|GOMP_parallel(_reductions|_sections|_loop_(static|dynamic|guided|runtime|nonmonotonic_(dynamic|guided|runtime)|maybe_nonmonotonic_runtime))?|pthread_create|dlclose|sigaction|signal|pthread_sigmask|sigprocmask)$')
if [ -n "$bad" ]; then
  echo "unexpected exported symbols in $lib:"; echo "$bad"; exit 1
fi
for must in MPI_Send MPI_Allreduce MPI_Init MPI_Finalize MPI_Waitall scalana_phase_begin scalana_phase_end \
            scalana_rt_collector_api_version scalana_rt_capture_context scalana_rt_gpu_add scalana_rt_work_register ompt_start_tool \
            GOMP_parallel GOMP_parallel_loop_static GOMP_parallel_loop_runtime; do
  nm -D --defined-only "$lib" | awk '{print $3}' | grep -qx "$must" || { echo "$lib does not export $must"; exit 1; }
done
echo "exports of $(basename "$lib") ok ($(nm -D --defined-only "$lib" | wc -l) symbols)"
