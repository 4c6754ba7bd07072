/* psg_index.h — the program structure graph indexed for attribution
 * (read/psg_index.c). */
#ifndef SCALANA_AN_READ_PSG_INDEX_H
#define SCALANA_AN_READ_PSG_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "core/types.h"
#include "scalana/psg_format.h"

/* ---- PSG index ----------------------------------------------------------------*/

struct an_psg {
    const struct psg_graph *g;
    uint32_t **child_first;      /* [unit][vertex] first child index or AN_NONE */
    uint32_t **child_next;       /* [unit][vertex] next sibling */
    struct { const char *name; uint32_t unit, index; } *fn; size_t fn_n; /* FUNCTION vertices */
    struct sc_hash fn_index;     /* indices into fn, by linkage name */
};
int an_psg_index(struct an_psg *x, const struct psg_graph *g);
void an_psg_free(struct an_psg *x);
/** FUNCTION vertex of a linkage name: returns 1 and sets unit/index, or 0. */
int an_psg_function(const struct an_psg *x, const char *name, uint32_t *unit, uint32_t *index);
/** Descends from vertex `from` to the deepest descendant whose source range
 *  contains (file, line, column): call-like vertices must match the line (and
 *  column when both are known; when is_call, a call-like vertex on the line is
 *  preferred); the descent goes on below a folded COMPUTE into its
 *  attribution-only loops and calls.  Writes the chain below `from` (outermost first) into chain
 *  and returns its length (0: the location stays on `from`). */
uint32_t an_psg_descend(const struct an_psg *x, uint32_t unit, uint32_t from, const char *file,
                        uint32_t line, uint32_t column, int is_call, uint32_t *chain,
                        uint32_t maxchain);
/** Whether FUNCTION vertex (unit, fn) is a thin MPI wrapper of the
 *  application: its PSG holds exactly one vertex besides the FUNCTION, an
 *  MPI vertex without children (no loop, no branch, no computation, no other
 *  call: `int hypre_MPI_Waitall(int n, MPI_Request *r, MPI_Status *s) {
 *  return MPI_Waitall(n, r, s); }`).  The program's entry (main, the Fortran
 *  main program) never is.  Attribution does not enter such a function from
 *  a caller: its MPI call is named at the wrapper's call site. */
int an_psg_thin_mpi_wrapper(const struct an_psg *x, uint32_t unit, uint32_t fn);

#endif
