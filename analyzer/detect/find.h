/* find.h — the root-cause search (detect/find.c): symptoms, detectors,
 * merging and ranking. */
#ifndef SCALANA_AN_DETECT_FIND_H
#define SCALANA_AN_DETECT_FIND_H

#include "core/types.h"

/** Symptoms, backtracking, classification, ranking (fills a->causes). */
void an_find_root_causes(struct an_analysis *a);

#endif
