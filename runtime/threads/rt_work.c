/* rt_work.c — the loop work counters of code built by the pass
 * (include/scalana/work_counters.h): the units that registered, where each
 * thread keeps its counters, and their PRF_REC_WORK record.
 *
 * Counters are thread-local in the program; the runtime can only learn a
 * thread's array on that thread.  So every thread that the application
 * creates (rt_thread.c's trampoline) and the thread that registers a unit
 * note their arrays here; a thread that ends leaves a copy, because its
 * thread-local storage goes with it.  The writer reads live arrays as they
 * are (each count is one aligned 64-bit word).  A unit registered after a
 * thread started (dlopen on another thread) is not seen in that thread. */
#include "core/rt_core.h"
#include "rt_threads.h"

#include "scalana/work_counters.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RT_WORK_UNITS_MAX 1024u

static const struct scalana_work_unit *rt_work_units[RT_WORK_UNITS_MAX];
static uint32_t rt_work_nunits;
static uint64_t rt_work_dropped;
static pthread_mutex_t rt_work_mutex = PTHREAD_MUTEX_INITIALIZER;

/* One thread's counter arrays, per unit: its thread-local array while it
 * runs, a heap copy after it ended (NULL: not seen on that thread). */
struct rt_work_thread {
    struct rt_work_thread *next;
    pid_t tid;
    int ended;
    uint64_t *arrays[RT_WORK_UNITS_MAX];
};
static struct rt_work_thread *rt_work_threads;
static RT_TLS struct rt_work_thread *rt_work_me;

/* The calling thread's entry, made on first use; rt_work_mutex held. */
static struct rt_work_thread *rt_work_self_locked(void)
{
    if (rt_work_me)
        return rt_work_me;
    struct rt_work_thread *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->tid = (pid_t)syscall(SYS_gettid);
    w->next = rt_work_threads;
    rt_work_threads = w;
    rt_work_me = w;
    return w;
}

RT_EXPORT void scalana_rt_work_register(const struct scalana_work_unit *unit)
{
    if (!unit || !unit->count || !unit->ids || !unit->counters)
        return;
    pthread_mutex_lock(&rt_work_mutex);
    if (unit->version != SCALANA_WORK_ABI_VERSION || rt_work_nunits == RT_WORK_UNITS_MAX) {
        rt_work_dropped++;
        pthread_mutex_unlock(&rt_work_mutex);
        if (unit->version != SCALANA_WORK_ABI_VERSION)
            rt_warn(0, "loop work counters of ABI version %u (this runtime reads %u): a unit built "
                    "by another ScalAna is not counted", unit->version, SCALANA_WORK_ABI_VERSION);
        else
            rt_warn(0, "more than %u units with loop work counters: the others are not counted",
                    RT_WORK_UNITS_MAX);
        return;
    }
    uint32_t i = rt_work_nunits;
    rt_work_units[i] = unit;
    struct rt_work_thread *w = rt_work_self_locked();
    if (w)
        w->arrays[i] = unit->counters();
    __atomic_store_n(&rt_work_nunits, i + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rt_work_mutex);
}

void rt_work_thread_begin(void)
{
    if (!__atomic_load_n(&rt_work_nunits, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&rt_work_mutex);
    struct rt_work_thread *w = rt_work_self_locked();
    for (uint32_t i = 0; w && i < rt_work_nunits; i++)
        if (!w->arrays[i])
            w->arrays[i] = rt_work_units[i]->counters();
    pthread_mutex_unlock(&rt_work_mutex);
}

void rt_work_thread_end(void *unused)
{
    (void)unused;
    struct rt_work_thread *w = rt_work_me;
    if (!w)
        return;
    pthread_mutex_lock(&rt_work_mutex);
    for (uint32_t i = 0; i < rt_work_nunits; i++) {
        if (!w->arrays[i])
            continue;
        size_t n = rt_work_units[i]->count;
        uint64_t *copy = malloc(n * sizeof *copy);
        if (copy)
            memcpy(copy, w->arrays[i], n * sizeof *copy);
        w->arrays[i] = copy; /* NULL: lost for want of memory */
    }
    w->ended = 1;
    rt_work_me = NULL;
    pthread_mutex_unlock(&rt_work_mutex);
}

/* The index of the thread state with this tid, PRF_NONE when its state
 * went to another thread (or it never had one: a thread of the MPI library). */
static uint32_t rt_work_thread_index(pid_t tid, struct rt_thread *const *byidx, uint32_t nthreads)
{
    for (uint32_t i = 0; i < nthreads; i++)
        if (byidx[i] && byidx[i]->tid == tid)
            return i;
    return PRF_NONE;
}

int rt_work_encode(struct prf_rank_data *d, struct rt_thread *const *byidx, uint32_t nthreads_rt)
{
    uint32_t nunits = __atomic_load_n(&rt_work_nunits, __ATOMIC_ACQUIRE);
    if (!nunits)
        return 0;
    pthread_mutex_lock(&rt_work_mutex);
    size_t n = 0;
    uint32_t nthreads = 0;
    for (struct rt_work_thread *w = rt_work_threads; w; w = w->next, nthreads++)
        for (uint32_t i = 0; i < nunits; i++)
            for (uint32_t k = 0; w->arrays[i] && k < rt_work_units[i]->count; k++)
                n += rt_work_units[i]->ids[k] && __atomic_load_n(&w->arrays[i][k], __ATOMIC_RELAXED);
    struct prf_work *out = calloc(n ? n : 1, sizeof *out);
    if (!out) {
        pthread_mutex_unlock(&rt_work_mutex);
        return -1;
    }
    size_t m = 0;
    for (struct rt_work_thread *w = rt_work_threads; w; w = w->next) {
        uint32_t index = rt_work_thread_index(w->tid, byidx, nthreads_rt);
        for (uint32_t i = 0; i < nunits; i++)
            for (uint32_t k = 0; w->arrays[i] && k < rt_work_units[i]->count && m < n; k++) {
                uint64_t c = __atomic_load_n(&w->arrays[i][k], __ATOMIC_RELAXED);
                uint64_t id = rt_work_units[i]->ids[k];
                if (!c || !id)
                    continue;
                out[m].stable_id = id;
                out[m].thread = index;
                out[m].tid = (uint64_t)w->tid;
                out[m].count = c;
                m++;
            }
    }
    d->has_work = 1;
    d->work_info.measure = PRF_WORK_LOOP_ITERATIONS;
    d->work_info.units = nunits;
    d->work_info.threads = nthreads;
    d->work_info.units_dropped = rt_work_dropped;
    d->work = out;
    d->work_count = (uint32_t)m;
    pthread_mutex_unlock(&rt_work_mutex);
    return 0;
}
