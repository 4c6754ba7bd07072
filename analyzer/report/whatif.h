/* whatif.h — what if the first k root causes were fixed: the largest run
 * replayed with the causes' excess removed (whatif.c, docs/analyzer.md). */
#ifndef SCALANA_ANALYZER_WHATIF_H
#define SCALANA_ANALYZER_WHATIF_H

#include "core/types.h"

/** The report.json "what_if" object (json_t *) of an analysis whose root
 *  causes are found (an_find_root_causes): at the largest process count,
 *  the run time with a core per process (base_seconds, an_base_seconds)
 *  and, for k = 1 .. min(5, causes), the predicted run time (seconds) with
 *  causes 1..k fixed: base_seconds minus the saving of a replay of the
 *  largest run's exact computation intervals (each collective closes a
 *  round that lasts as long as its slowest process's CPU time since the
 *  previous collective) in which each fixed cause's location is brought, on
 *  every process, to what its cost rule's fix leaves; causes that are no
 *  computation count with their cost.  Also each cause's replayed saving
 *  alone.  NULL when there is no root cause, the run recorded no intervals,
 *  or its ranks are held by other analyzer processes (parallel analysis).
 *  Aborts on allocation failure. */
void *an_whatif_json(const struct an_analysis *a);

#endif
