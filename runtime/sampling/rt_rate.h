/* rt_rate.h — sampling rate asked for and obtained (rt_rate.c). */
#ifndef SCALANA_RT_RATE_H
#define SCALANA_RT_RATE_H

#include <stdint.h>

#include "scalana/profile_format.h"

/** Granularity in ns of the clock that drives sampler (enum prf_sampler):
 *  the kernel tick for CPU-time POSIX timers, the CLOCK_MONOTONIC
 *  resolution for wall-clock timers without high-resolution timers, 0 when
 *  the sampler is not limited by one. */
RT_HIDDEN uint64_t rt_rate_resolution_ns(int sampler);
/** Expected interval between two signals of a busy thread asked for
 *  period_ns: max(period_ns, resolution). */
RT_HIDDEN uint64_t rt_rate_effective_period_ns(int sampler, uint64_t period_ns);
/** Fills d->sampling (PRF_REC_SAMPLING) from d->info and d->samples. */
RT_HIDDEN void rt_rate_record(struct prf_rank_data *d);

struct scalana_run_info;
/** The rate fields of run.json from this process (rank 0): asked, expected,
 *  resolution, and (at_end) the rate obtained so far. */
RT_HIDDEN void rt_rate_run_info(struct scalana_run_info *info, int at_end);

#endif
