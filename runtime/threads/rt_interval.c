/* rt_interval.c — exact computation between MPI calls: per thread, the time
 * from the exit of one MPI wrapper to the entry of the next, aggregated per
 * (previous calling context, next calling context) in the thread's own
 * table (no locks; only the owner writes it, the profile writer reads it).
 *
 * Wall time comes from the wrappers' clock (rt_ticks).  CPU time: reading
 * CLOCK_THREAD_CPUTIME_ID is a system call (about 0.37 us in this VM, more
 * than the whole wrapper's budget), so by default ("auto") it is read only
 * at both ends of intervals predicted long (the previous interval after the
 * same context was at least rt_iv_long_ns); every other interval gets the
 * number of CPU-time sampler periods the thread received in it, an unbiased
 * estimate of its CPU time.  docs/runtime.md has the measured costs. */
#include "core/rt_core.h"
#include "rt_threads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int rt_iv_enabled;
uint32_t rt_iv_cpu_mode = PRF_IV_CPU_AUTO;
uint64_t rt_iv_long_ns;
static uint64_t rt_iv_long_ticks = UINT64_MAX;
static volatile int rt_iv_overflow_said;

uint64_t rt_thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void rt_iv_init(void)
{
    rt_iv_enabled = rt_opt.intervals >= 0;
    rt_iv_cpu_mode = rt_iv_enabled ? (uint32_t)rt_opt.intervals : PRF_IV_CPU_OFF;
    rt_iv_long_ns = rt_opt.interval_long_ns;
    /* The tick rate is calibrated over the run; MPI_Init took long enough for
     * a threshold (it only decides which intervals read the CPU clock). */
    double f = rt_ns_per_tick();
    rt_iv_long_ticks = f > 0 ? (uint64_t)((double)rt_iv_long_ns / f) : rt_iv_long_ns;
    if (rt_iv_long_ticks == 0)
        rt_iv_long_ticks = 1;
}

void rt_iv_thread_start(struct rt_thread *t, int own)
{
    t->iv.state = RT_IV_OPEN;
    t->iv.prev = PRF_NONE;
    /* Only the thread itself can read its CPU clock (a state prepared at
     * activation for another thread gets samples). */
    t->iv.cpu0 = own && rt_iv_enabled && rt_iv_cpu_mode == PRF_IV_CPU_CLOCK ? rt_thread_cpu_ns()
                                                                            : UINT64_MAX;
    t->iv.sig0 = t->cpu_signals;
    t->iv.t0 = rt_ticks();
}

static inline uint64_t rt_iv_hash(uint32_t prev, uint32_t next)
{
    uint64_t h = ((uint64_t)prev << 32 | next) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

/* Doubles the table (or creates it).  Returns 0, or -1 at the cap / without memory. */
static int rt_iv_grow(struct rt_iv_thread *iv)
{
    uint32_t old = iv->pairs ? iv->mask + 1 : 0;
    uint32_t size = old ? old * 2 : 64;
    if (size / 2 > RT_IV_MAX_PAIRS || rt_g.writing)
        return -1;
    struct rt_iv_pair *p = calloc(size, sizeof *p);
    if (!p)
        return -1;
    for (uint32_t i = 0; i < old; i++) {
        const struct rt_iv_pair *e = &iv->pairs[i];
        if (!e->count)
            continue;
        uint32_t j = (uint32_t)rt_iv_hash(e->prev, e->next) & (size - 1);
        while (p[j].count)
            j = (j + 1) & (size - 1);
        p[j] = *e;
    }
    struct rt_iv_pair *gone = iv->pairs;
    __atomic_store_n(&iv->pairs, p, __ATOMIC_RELEASE);
    iv->mask = size - 1;
    free(gone);
    return 0;
}

/* The pair's slot, created empty-but-claimed (count 0 is filled by the caller). */
static struct rt_iv_pair *rt_iv_pair(struct rt_iv_thread *iv, uint32_t prev, uint32_t next)
{
    if (iv->pairs) {
        uint32_t j = (uint32_t)rt_iv_hash(prev, next) & iv->mask;
        for (;;) {
            struct rt_iv_pair *e = &iv->pairs[j];
            if (!e->count)
                break;
            if (e->prev == prev && e->next == next)
                return e;
            j = (j + 1) & iv->mask;
        }
    }
    /* New pair: keep the load at most one half. */
    if ((!iv->pairs || (iv->n + 1) * 2 > iv->mask + 1) && rt_iv_grow(iv) != 0)
        return NULL;
    uint32_t j = (uint32_t)rt_iv_hash(prev, next) & iv->mask;
    while (iv->pairs[j].count)
        j = (j + 1) & iv->mask;
    struct rt_iv_pair *e = &iv->pairs[j];
    memset(e, 0, sizeof *e);
    e->prev = prev;
    e->next = next;
    e->min_ticks = UINT64_MAX;
    iv->n++;
    return e;
}

/* Charges the open interval of t, ending now, to (iv->prev, next). */
static void rt_iv_record(struct rt_thread *t, uint32_t next, uint64_t now, uint64_t sig, uint64_t cpu)
{
    struct rt_iv_thread *iv = &t->iv;
    uint64_t dt = now > iv->t0 ? now - iv->t0 : 0;
    uint32_t prev = iv->prev;
    if (prev != PRF_NONE) {
        /* Predicts the next interval after prev (see rt_iv_begin). */
        uint32_t *slot = &iv->long_after[prev % RT_IV_LONG_SLOTS];
        if (dt >= rt_iv_long_ticks)
            *slot = prev + 1;
        else if (*slot == prev + 1)
            *slot = 0;
    }
    struct rt_iv_pair *e = rt_iv_pair(iv, prev, next);
    if (!e) {
        iv->overflow++;
        /* While the profile is written (exit, abort) the table may not grow:
         * that interval is counted as not recorded, but the table is not full. */
        if (!rt_g.writing && !__atomic_exchange_n(&rt_iv_overflow_said, 1, __ATOMIC_RELAXED))
            rt_log("more than %u distinct pairs of MPI calling contexts on a thread: later "
                   "intervals between MPI calls are only counted", RT_IV_MAX_PAIRS);
        return;
    }
    e->count++;
    e->ticks += dt;
    if (dt < e->min_ticks)
        e->min_ticks = dt;
    if (dt > e->max_ticks)
        e->max_ticks = dt;
    e->sq_ticks += (double)dt * (double)dt;
    if (iv->cpu0 != UINT64_MAX) {
        e->cpu_ns += cpu > iv->cpu0 ? cpu - iv->cpu0 : 0;
        e->cpu_count++;
        e->cpu_ticks += dt;
    } else {
        e->cpu_samples += sig - iv->sig0;
    }
}

void rt_iv_end(struct rt_thread *t, uint32_t ctx, uint64_t now, uint64_t sig, uint64_t cpu)
{
    struct rt_iv_thread *iv = &t->iv;
    uint32_t state = iv->state;
    iv->state = RT_IV_IDLE;
    if (state == RT_IV_LOST)
        iv->dropped++;
    if (state != RT_IV_OPEN || !rt_iv_enabled)
        return;
    rt_iv_record(t, ctx, now, sig, cpu);
}

void rt_iv_drop(struct rt_thread *t)
{
    if (t->iv.state != RT_IV_IDLE)
        t->iv.dropped++;
    t->iv.state = RT_IV_IDLE;
}

void rt_iv_begin(struct rt_thread *t, uint32_t ctx)
{
    struct rt_iv_thread *iv = &t->iv;
    if (!rt_iv_enabled || rt_g.state != RT_ON) {
        iv->state = RT_IV_IDLE;
        return;
    }
    if (ctx == UINT32_MAX) {
        iv->state = RT_IV_LOST;
        return;
    }
    iv->state = RT_IV_OPEN;
    iv->prev = ctx;
    iv->sig0 = t->cpu_signals;
    iv->cpu0 = UINT64_MAX;
    if (rt_iv_cpu_mode == PRF_IV_CPU_CLOCK ||
        (rt_iv_cpu_mode == PRF_IV_CPU_AUTO && iv->long_after[ctx % RT_IV_LONG_SLOTS] == ctx + 1))
        iv->cpu0 = rt_thread_cpu_ns();
    iv->t0 = rt_ticks(); /* after the CPU clock: its system call is not the application's */
}

void rt_iv_thread_end(struct rt_thread *t)
{
    /* Also after the state left RT_ON: the at-exit writer closes its own
     * thread's interval after marking the profile written. */
    uint32_t state = t->iv.state;
    t->iv.state = RT_IV_IDLE;
    if (state == RT_IV_LOST)
        t->iv.dropped++;
    if (state != RT_IV_OPEN || !rt_iv_enabled)
        return;
    uint64_t now = rt_ticks();
    uint64_t cpu = t->iv.cpu0 != UINT64_MAX ? rt_thread_cpu_ns() : 0;
    rt_iv_record(t, PRF_NONE, now, t->cpu_signals, cpu);
}

/* The thread's last interval, to its exit (a thread lifecycle hook). */
const struct rt_thread_hooks rt_iv_thread_hooks = {NULL, rt_iv_thread_end};
