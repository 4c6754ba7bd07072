/* vstat.h — a vertex's statistics over the ranks, and a site's figures, that
 * slices of a parallel analysis combine exactly (ppg/vstat.c). */
#ifndef SCALANA_AN_PPG_VSTAT_H
#define SCALANA_AN_PPG_VSTAT_H

#include <stdint.h>
#include "core/types.h"

/** Statistics of vertex record x over the present ranks run r holds (its
 *  slice [slice_lo, slice_lo + slice_n), where x's arrays are) into s
 *  (vstat.c). */
void an_vstat_slice(const struct an_run *r, const struct an_vrun *x, struct an_vstat *s);
/** What the growing-communication detector needs of a site (MPI vertices
 *  judged together) over the ranks that called it: the smallest time in
 *  the site of a rank (fastest, seconds; INFINITY when none called it), the
 *  smallest share of a rank's calls made back to back after another MPI
 *  call (share, from the computation intervals; 1 without any), the sum of
 *  the callers' time there (sum_t) and their number (n).  Minima and sums:
 *  the slices of a parallel analysis combine exactly. */
struct an_site_figures { double fastest, share, sum_t; uint32_t n; };
/** The figures of the site v[0..nv) over the ranks run r holds itself. */
void an_site_figures_slice(const struct an_run *r, const uint32_t *v, uint32_t nv, struct an_site_figures *f);
/** Empty statistics (no rank). */
void an_vstat_init(struct an_vstat *s);
/** Adds the statistics b of ranks after those of a (a's ranks lower) to a. */
void an_vstat_merge(struct an_vstat *a, const struct an_vstat *b);

#endif
