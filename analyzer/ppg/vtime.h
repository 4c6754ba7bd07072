/* vtime.h — inline figures of a run and of a vertex record (the signal unit,
 * a capped sampling rate, a rank's exclusive seconds), for the files that only
 * read a run: no function of ppg/ppg.c comes with them. */
#ifndef SCALANA_AN_PPG_VTIME_H
#define SCALANA_AN_PPG_VTIME_H

#include <stdint.h>

#include "core/types.h"

/** CPU seconds one sampling signal stands for in run r: the unit that turns
 *  sampled seconds into signal counts for every statistical test (Poisson
 *  counts are signals, not weights: 10 signals of weight 20 are 10
 *  observations).  r->signal_s, else the period, else 0.01 s. */
static inline double an_signal_s(const struct an_run *r)
{
    return r->signal_s > 0 ? r->signal_s : r->period_s > 0 ? r->period_s : 0.01;
}
/** 1 when run r obtained clearly fewer signals than asked because its timer
 *  is capped (a CPU-time timer at kernel ticks): raising SCALANA_FREQ does
 *  not help there. */
static inline int an_rate_capped(const struct an_run *r)
{
    return r->asked_hz > 0 && r->effective_hz > 0 && r->effective_hz < 0.8 * r->asked_hz;
}
/** Seconds of exclusive time of vertex v on rank i (cpu + mpi). */
static inline double an_vtime(const struct an_vrun *x, uint32_t i)
{
    double t = 0;
    if (x->cpu) t += x->cpu[i];
    if (x->mpi) t += x->mpi[i];
    return t;
}

#endif
