/* phases.h — user phases over the process counts (metrics/phases.c). */
#ifndef SCALANA_AN_METRICS_PHASES_H
#define SCALANA_AN_METRICS_PHASES_H

#include "core/types.h"

/** Phases: per phase name and process count, mean and max over processes of
 *  the time inside, max/mean, a scaling model of the mean and the scaling
 *  efficiency at the largest count; warnings for an imbalanced or
 *  non-scaling phase (thresholds imbalance, scaling_ratio, minimum cost).
 *  Returns the report.json array "phases" (json_t *, as void *). */
void *an_phases_json(struct an_analysis *a);

#endif
