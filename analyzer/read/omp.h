/* omp.h — the names of OpenMP code: runtime frames, forks and outlined
 * region bodies (read/omp.c). */
#ifndef SCALANA_AN_READ_OMP_H
#define SCALANA_AN_READ_OMP_H

#include <stddef.h>
#include <stdint.h>
#include "scalana/profile_format.h"

/* omp.c: the names of OpenMP code (docs/analyzer.md "OpenMP") */
/** Whether name is a frame of an OpenMP runtime (libgomp's GOMP_ and gomp_,
 *  libomp's __kmpc_ and __kmp_, omp_ and ompt_ entries). */
int an_omp_runtime_function(const char *name);
/** Which of rank d's modules (PRF_REC_MODULES) are an OpenMP runtime
 *  (libgomp.so*, libomp.so*, libiomp5.so by file name): a malloc'ed array of
 *  d->module_count flags (1: runtime) that the caller frees; aborts when
 *  out of memory. */
uint8_t *an_omp_runtime_modules(const struct prf_rank_data *d);
/** Which of rank d's calling-context nodes were in an OpenMP runtime when
 *  sampled: the node's module is one (an_omp_runtime_modules), or it is in
 *  libc, libpthread, librt, the dynamic loader or the vDSO and the first
 *  frame above it outside those is one (libomp's passive waits end in
 *  futex and sched_yield: at 1 process LULESH's OpenMP build had 43 % of its
 *  samples there, charged as computation of the code around the region).
 *  A malloc'ed array of d->cct_count flags (1: runtime) that the caller
 *  frees; aborts when out of memory; a parent chain that does not end is
 *  cut after d->cct_count steps. */
uint8_t *an_omp_runtime_nodes(const struct prf_rank_data *d);
/** Whether name is a runtime entry that forks a parallel region or teams
 *  (GOMP_parallel*, GOMP_teams*, __kmpc_fork_call, __kmpc_fork_teams). */
int an_omp_fork_entry(const char *name);
/** The function holding the pragma of an outlined region body (gcc's
 *  X._omp_fn.N, clang's X.omp_outlined*, flang's X..omp_par*): X copied
 *  into buf; "" for an outlined body that does not name it (clang's C
 *  `.omp_outlined.`); NULL when name is no outlined body (or buf is short). */
const char *an_omp_outlined_parent(const char *name, char *buf, size_t buflen);

#endif
