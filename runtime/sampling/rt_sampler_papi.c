/* rt_sampler_papi.c — the papi:<EVENT> sampler: a PAPI event set with
 * overflow per thread; without usable counters (a virtual machine's PMU)
 * the run samples with the cputime timer instead. */
#include "core/rt_core.h"
#include "threads/rt_threads.h"
#include "rt_sampler_ops.h"

#include <errno.h>
#include <papi.h>

static int rt_papi_code;
static long long rt_papi_threshold;

static void rt_papi_handler(int eventset, void *address, long long overflow_vector, void *context)
{
    /* On Linux PAPI passes the signal's ucontext_t as context. */
    (void)eventset; (void)overflow_vector;
    int saved_errno = errno;
    struct rt_thread *t = rt_self;
    if (t && rt_g.sampling && t->cct.nodes) {
        __atomic_add_fetch(&rt_g.in_flight, 1, __ATOMIC_ACQUIRE);
        rt_sample(t, (uintptr_t)address, context, 1);
        __atomic_sub_fetch(&rt_g.in_flight, 1, __ATOMIC_RELEASE);
    }
    errno = saved_errno;
}

static int rt_papi_setup(void)
{
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        rt_info("PAPI unavailable (%s): sampling with the cputime timer instead",
               rc > 0 ? "version mismatch" : PAPI_strerror(rc));
        return -1;
    }
    if (PAPI_thread_init((unsigned long (*)(void))pthread_self) != PAPI_OK ||
        PAPI_num_components() <= 0 || PAPI_num_cmp_hwctrs(0) <= 0) {
        rt_info("PAPI finds no hardware counters here: sampling with the cputime timer instead");
        return -1;
    }
    if (PAPI_event_name_to_code(rt_opt.sampler_arg, &rt_papi_code) != PAPI_OK) {
        rt_info("PAPI event %s unknown: sampling with the cputime timer instead", rt_opt.sampler_arg);
        return -1;
    }
    /* Threshold: events per sample for ~freq samples/s of a 2 GHz cycle count. */
    rt_papi_threshold = 2000000000ll / (long long)rt_opt.freq;
    return 0;
}

static int rt_papi_event_set_start(struct rt_thread *t)
{
    int es = PAPI_NULL;
    if (PAPI_register_thread() != PAPI_OK || PAPI_create_eventset(&es) != PAPI_OK ||
        PAPI_add_event(es, rt_papi_code) != PAPI_OK ||
        PAPI_overflow(es, rt_papi_code, (int)rt_papi_threshold, 0, rt_papi_handler) != PAPI_OK ||
        PAPI_start(es) != PAPI_OK)
        return -1;
    t->papi_eventset = es;
    return 0;
}

static int rt_papi_thread_start(struct rt_thread *t)
{
    static int papi_counted; /* an event set started on some thread */
    if (rt_papi_event_set_start(t) == 0) {
        papi_counted = 1;
        t->timer_ok = 2;
        return 0;
    }
    if (papi_counted) {
        rt_fail("sampler", "PAPI overflow could not start on thread %u", t->index);
        return 0;
    }
    /* The first thread cannot count (counters listed, none usable: a
     * virtual machine's PMU): the documented fallback, for every thread. */
    rt_info("PAPI cannot count %s here: sampling with the cputime timer instead", rt_opt.sampler_arg);
    return RT_SAMPLER_FALL_BACK;
}

static void rt_papi_thread_stop(struct rt_thread *t)
{
    long long v;
    PAPI_stop(t->papi_eventset, &v);
    PAPI_cleanup_eventset(t->papi_eventset);
    PAPI_destroy_eventset(&t->papi_eventset);
    PAPI_unregister_thread();
}

/* another thread: event sets belong to their thread, so it gets rt_sampler.c's
 * default, a timer on its CPU clock */
const struct rt_sampler_ops rt_sampler_ops_PAPI = {
    .setup = rt_papi_setup,
    .thread_start = rt_papi_thread_start,
    .thread_stop = rt_papi_thread_stop,
};
