/* rt_mpi_probe.c — preprocessed with one MPI library's include path when its
 * runtime is configured (runtime/CMakeLists.txt): the result lists the
 * PMPI_ functions that library declares, so that only those are wrapped. */
#include <mpi.h>
