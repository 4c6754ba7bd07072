/* predict.h — scalana-analyze --predict P: each root cause's cost extended
 * to P processes by scaling models of what the cost is made of, with a band,
 * and the cause that dominates there (predict.c, docs/analyzer.md). */
#ifndef SCALANA_ANALYZER_PREDICT_H
#define SCALANA_ANALYZER_PREDICT_H

#include "core/types.h"

/** Adds report.json "prediction" to report (a json_t *, an_report_build's):
 *  for each root cause, its cost (seconds, at the largest measured count
 *  Pmax) times m(P) / m(Pmax), m being the model (model.c, the analyzer's
 *  hypotheses and selection) fitted to the cause's excess at its location
 *  per measured count: the heavy processes' mean time above the light ones'
 *  (split at the largest gap of the sorted per-process times; imbalance,
 *  serial, late sender/receiver, GPU), the mean above ideal
 *  scaling (non-scalable computation), the mean's growth from the smallest
 *  count with two processes or more (communication and waits).  The band
 *  (band_low/high_seconds) spans the predictions of the same fit with each
 *  measured count left out in turn, widened by noise_sigmas times the cost's
 *  noise (th->noise_sigmas, cost_noise_seconds) scaled alike; with a single
 *  count of excess, from shrinking like 1/p to growing like p.  Also the
 *  run time with a core per process (wall / contention) modelled the same
 *  way, and dominant_rank, the cause with the largest predicted cost.  P in
 *  processes (>= 1).  A cause whose excess is nowhere positive gets no
 *  prediction (predicted_cost_seconds null, with the reason).  Cannot fail
 *  (aborts on allocation failure). */
void an_predict(void *report, double P, const struct an_thresholds *th);

#endif
