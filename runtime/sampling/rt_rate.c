/* rt_rate.c — the sampling rate asked for and the rate obtained.
 *
 * A POSIX timer on a CPU-time clock (sampler cputime) is checked by the
 * kernel at its scheduler tick only: asked for more than the tick rate
 * (CONFIG_HZ, 250 on this machine's kernel), it still delivers one signal
 * per tick, with si_overrun counting the periods merged into it.  The tick
 * length is the resolution of the coarse monotonic clock (clock_getres of
 * CLOCK_MONOTONIC_COARSE returns one jiffy).  Wall-clock timers
 * (realtime) are high-resolution timers when clock_getres(CLOCK_MONOTONIC)
 * says so; the perf_event task clock (taskclock) and PAPI overflow are not
 * tick-bound.  At the end, the rate obtained is measured: signals handled
 * per second of the sampled clock. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_rate.h"
#include "rt_sampling.h"
#include "scalana/run_info.h"

#include <string.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t rt_res_ns(clockid_t c)
{
    struct timespec r;
    if (clock_getres(c, &r) != 0)
        return 0;
    return (uint64_t)r.tv_sec * 1000000000ull + (uint64_t)r.tv_nsec;
}

uint64_t rt_rate_resolution_ns(int sampler)
{
    switch (sampler) {
    case PRF_SAMPLER_CPUTIME:
        return rt_res_ns(CLOCK_MONOTONIC_COARSE);
    case PRF_SAMPLER_REALTIME: {
        uint64_t r = rt_res_ns(CLOCK_MONOTONIC);
        return r > 1000 ? r : 0; /* hrtimers: 1 ns */
    }
    default:
        return 0;
    }
}

uint64_t rt_rate_effective_period_ns(int sampler, uint64_t period_ns)
{
    uint64_t res = rt_rate_resolution_ns(sampler);
    return res > period_ns ? res : period_ns;
}

void rt_rate_record(struct prf_rank_data *d)
{
    const struct prf_rank_info *in = &d->info;
    struct prf_sampling *s = &d->sampling;
    memset(s, 0, sizeof *s);
    d->has_sampling = 1;
    s->sampler = in->sampler;
    s->asked_hz = in->sampler == PRF_SAMPLER_NONE ? 0 : rt_opt.freq;
    s->asked_period_ns = in->sample_period_ns;
    s->resolution_ns = in->sampler == PRF_SAMPLER_NONE ? 0 : rt_rate_resolution_ns((int)in->sampler);
    s->effective_period_ns = in->sampler == PRF_SAMPLER_NONE
                                 ? 0 : rt_rate_effective_period_ns((int)in->sampler, in->sample_period_ns);
    for (uint32_t k = 0; k < d->sample_count; k++) {
        s->signals += d->samples[k].count;
        s->weight += d->samples[k].weight;
    }
    /* The sampled clock: CPU time of the process (every thread is sampled),
     * or wall time per thread for the wall-clock timer. */
    if (in->sampler == PRF_SAMPLER_REALTIME)
        s->clock_ns = in->wall_ns * (in->thread_count ? in->thread_count : 1);
    else if (in->sampler != PRF_SAMPLER_NONE)
        s->clock_ns = in->cpu_user_ns + in->cpu_system_ns;
    s->obtained_hz = s->clock_ns ? (double)in->samples_taken / ((double)s->clock_ns * 1e-9) : 0;
}

void rt_rate_run_info(struct scalana_run_info *info, int at_end)
{
    int kind = rt_sampler_kind_now();
    if (kind == PRF_SAMPLER_NONE || !rt_g.period_ns)
        return;
    info->sample_rate_asked_hz = rt_opt.freq;
    info->sampler_resolution_ns = rt_rate_resolution_ns(kind);
    info->sample_rate_effective_hz = 1e9 / (double)rt_rate_effective_period_ns(kind, rt_g.period_ns);
    if (!at_end)
        return;
    uint64_t taken = 0, threads = 0;
    for (struct rt_thread *t = rt_thread_list(); t; t = t->next)
        taken += t->samples_taken, threads++;
    double clock_s;
    if (kind == PRF_SAMPLER_REALTIME) {
        clock_s = (double)(rt_now_ns() - rt_g.start_ns) * 1e-9 * (double)(threads ? threads : 1);
    } else {
        struct rusage ru;
        memset(&ru, 0, sizeof ru);
        getrusage(RUSAGE_SELF, &ru);
        clock_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                  ru.ru_stime.tv_usec * 1e-6;
    }
    info->sample_rate_obtained_hz = clock_s > 0 ? (double)taken / clock_s : 0;
}
