/* ompt.h — OpenMP regions as OMPT measured them (read/ompt.c). */
#ifndef SCALANA_AN_READ_OMPT_H
#define SCALANA_AN_READ_OMPT_H

#include "core/types.h"
#include "scalana/profile_format.h"

/* ---- OpenMP through OMPT (ompt.c) ------------------------------------------ */
/** Adds rank's OMP record (if any) to r: its regions by vertex (nv: CCT node
 *  -> vertex; c resolves the fork's own line), the threads per process (the largest team; without OMPT the
 *  threads the runtime measured) and per core (ranks on the host times those
 *  threads over its usable cores).  Called by an_run_add_rank after
 *  ranks_on_host and usable_cores are set.  Aborts on allocation failure. */
struct an_attr_ctx;
void an_run_add_omp(struct an_run *r, struct an_attr_ctx *c, uint32_t rank, const struct prf_rank_data *d,
                    const uint32_t *nv);
/** The OMPT wait (barriers and sync, all threads) per process, in seconds
 *  into *seconds (may be NULL), and as a share of the threads' wall time
 *  (wall_max x threads per process); 0 without OMPT records. */
double an_ompt_wait_share(const struct an_run *r, double *seconds);
/** Renames the fork vertices of r's OpenMP region entries by map (old id ->
 *  new id, nmap entries; AN_NONE: gone, the entry is dropped), as the
 *  parallel analyzer's merged vertex table does (an_run_remap_thread_cpu's
 *  twin). */
void an_run_remap_omp(struct an_run *r, const uint32_t *map, uint32_t nmap);
struct json_t;
/** runs[].openmp_regions: per region vertex its team size, instances and
 *  time per process, and each (rank, thread)'s waits in seconds (at most
 *  256 rows). */
struct json_t *an_ompt_regions_json(const struct an_run *r, const struct an_graph *g);

#endif
