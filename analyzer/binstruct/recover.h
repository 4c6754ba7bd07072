/* recover.h — the analyzer's entry to structure recovered from machine code
 * (binstruct/recover.c, docs/binstruct.md). */
#ifndef SCALANA_AN_BINSTRUCT_RECOVER_H
#define SCALANA_AN_BINSTRUCT_RECOVER_H

#include "core/types.h"
#include "scalana/psg_format.h"

/* ---- Structure from machine code (binstruct/recover.c) --------------------- */

/** For an executable without an embedded PSG: the PSG recovered from its
 *  machine code (docs/binstruct.md), through the cache unless --psg-cache
 *  off.  Returns 1 with out filled and a->psg_recovered set, 0 when there is
 *  none (--no-recover, or recovery failed); warns once either way. */
int an_recover_structure(struct an_analysis *a, const char *exe, const char *build_id, struct psg_graph *out);
/** --recover-libs: joins to g (the executable's PSG, possibly empty) the PSG
 *  of every shared library of the application that the run in run_dir
 *  loaded (from its first readable profile; system and ScalAna libraries
 *  excluded): its embedded section, else recovered from its machine code.
 *  Returns the number of libraries joined (g replaced), 0 when none (g
 *  untouched); warns about each library left out. */
int an_recover_libraries(struct an_analysis *a, const char *exe, const char *build_id, const char *run_dir,
                         struct psg_graph *g);

#endif
