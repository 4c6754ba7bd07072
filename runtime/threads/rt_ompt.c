/* rt_ompt.c — OpenMP parallel regions, barrier waits and work-sharing loops
 * measured through OMPT, the tool interface of LLVM's libomp (scalana-cc
 * -fopenmp builds): libomp calls ompt_start_tool at its start-up and then
 * these callbacks.  gcc's libgomp has no OMPT and never calls it: nothing
 * here runs (its barrier waits come from samples in libgomp, analyzer/read/omp.c).
 * Callbacks accumulate into the calling thread's own tables (no lock, no
 * allocation after the thread's first callback); the profile writer reads
 * them into PRF_REC_OMP (docs/runtime.md, "OpenMP through OMPT"). */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "rt_threads.h"

#ifdef SCALANA_HAVE_OMPT
#include <omp-tools.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RT_OMP_SITES 256u    /* regions a thread starts, per calling context (power of two) */
#define RT_OMP_ENTRIES 512u  /* regions a thread takes part in (power of two) */
#define RT_OMP_MEMOS 16u     /* forks remembered per thread, by code pointer (power of two) */

/* A parallel region in one calling context, as its master thread starts it. */
struct rt_omp_site {
    uint32_t node;            /* CCT node in the master's tree; PRF_NONE: empty slot */
    uint32_t thread;          /* the master's thread index */
    uint64_t forks, ticks;    /* instances started here and their begin .. end ticks */
    uint64_t begin;           /* ticks at the open instance's begin */
    volatile uint64_t end;    /* ticks at the last instance's end (read by the team's threads) */
    struct rt_omp_fork fork;  /* the node's path, taken at its first fork: the team's threads
                                 continue it (rt_omp_path.c); read-only once published */
};

/* One thread's share of a site. */
struct rt_omp_entry {
    const struct rt_omp_site *site; /* NULL: empty slot */
    uint32_t team_min, team_max;
    uint64_t regions, end_wait, barrier_wait, barriers, sync_wait, loops, iterations; /* waits in ticks */
};

/* A fork's path as unwound (before rt_omp_path_fix) and the site it gave:
 * the same frames under the same enclosing regions give the same node, so a
 * fork seen before skips the rewrite, the tree's insertion and the site's
 * lookup.  The frames are compared whole: (code pointer, caller frame) alone
 * would confuse one function reached through two callers at the same depth. */
struct rt_omp_memo {
    const void *codeptr;
    const struct rt_omp_fork *gomp, *ompt; /* rt_gomp_fork, rt_ompt_fork at the fork */
    struct rt_omp_site *site;              /* NULL: empty */
    int n, truncated;
    void *frames[RT_MAX_DEPTH];
};

struct rt_omp_thread {
    struct rt_omp_thread *next;  /* every state, newest first */
    uint32_t thread;             /* rt_thread index */
    uint32_t team_index;         /* the thread's number in its current team */
    struct rt_omp_entry *cur;    /* entry of the region the thread works in (kept after its end
                                    for the wait at its barrier, which libomp ends later) */
    uint64_t wait_begin;         /* ticks at the open wait's begin */
    uint32_t wait_kind;          /* ompt_sync_region_t of the open wait, 0: none */
    uint32_t nsites, nentries;
    uint64_t dropped, unmatched;
    uint64_t cb_calls, cb_ticks; /* SCALANA_DEBUG: callbacks and the ticks spent in them */
    uint64_t fork_calls, fork_ticks; /* SCALANA_DEBUG: the parallel_begin ones among them */
    uint64_t memo_hits;              /* forks whose site came from memos[] */
    struct rt_omp_memo memos[RT_OMP_MEMOS];
    struct rt_omp_site sites[RT_OMP_SITES];
    struct rt_omp_entry entries[RT_OMP_ENTRIES];
};

static struct rt_omp_thread *rt_omp_threads;
static volatile int rt_omp_off;  /* a failure disabled the callbacks */
static RT_TLS struct rt_omp_thread *rt_omp_self;
static RT_TLS int rt_omp_none;   /* the calling thread is not measured (no state, or none mapped) */
static int rt_omp_timing;        /* SCALANA_DEBUG: the callbacks time themselves */

/* A callback's own cost, with SCALANA_DEBUG (bench/ompt_region's direct figure). */
#define RT_OMP_TIMED(o, t0)                                                                        \
    do {                                                                                           \
        if (RT_UNLIKELY(rt_omp_timing) && (o)) {                                                   \
            (o)->cb_calls++;                                                                       \
            (o)->cb_ticks += rt_ticks() - (t0);                                                    \
        }                                                                                          \
    } while (0)
#define RT_OMP_T0() (RT_UNLIKELY(rt_omp_timing) ? rt_ticks() : 0)

/* The calling thread's state, made at its first callback; NULL when the
 * runtime is not on, the thread is not an application thread it measures,
 * or OMPT is disabled. */
static struct rt_omp_thread *rt_omp_me(void)
{
    struct rt_omp_thread *o = rt_omp_self;
    if (RT_LIKELY(o != NULL))
        return rt_g.state == RT_ON && !rt_omp_off ? o : NULL;
    if (rt_g.state != RT_ON || rt_omp_off || rt_omp_none)
        return NULL;
    struct rt_thread *t = rt_self ? rt_self : rt_thread_self_slow();
    if (!t) {
        rt_omp_none = 1;
        return NULL;
    }
    o = mmap(NULL, sizeof *o, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (o == MAP_FAILED) {
        rt_omp_off = 1;
        rt_fail("ompt", "no memory for a thread's OpenMP tables: OpenMP regions are not measured");
        return NULL;
    }
    o->thread = t->index;
    for (uint32_t i = 0; i < RT_OMP_SITES; i++)
        o->sites[i].node = PRF_NONE;
    struct rt_omp_thread *head = __atomic_load_n(&rt_omp_threads, __ATOMIC_ACQUIRE);
    do
        o->next = head;
    while (!__atomic_compare_exchange_n(&rt_omp_threads, &head, o, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE));
    rt_omp_self = o;
    return o;
}

/* The fork's call path as unwound, its leaf the fork's return address
 * (codeptr), into fk (n, truncated set): the frames inside libomp and this
 * callback are cut.  libomp gives the frame record of its entry point
 * (__kmpc_fork_call) as the encountering task's enter frame; when that
 * record returns to codeptr the walk starts there and never unwinds the
 * runtime's frames below it.  Returns fk->n. */
static int rt_omp_fork_path(struct rt_omp_thread *o, const void *codeptr, const ompt_frame_t *frame,
                            struct rt_omp_fork *fk)
{
    int truncated = 0, n = -1;
    /* the record's address is __kmpc_fork_call's frame pointer (libomp 19
     * leaves enter_frame_flags 0 there); a CFA is 16 bytes above its record */
    const char *enter = frame ? frame->enter_frame.ptr : NULL;
    if (enter && (frame->enter_frame_flags & ompt_frame_cfa))
        enter -= 16;
    if (enter)
        n = rt_capture_path_at(enter, codeptr, fk->frames, RT_MAX_DEPTH, &truncated);
    if (n < 0) {
        n = rt_capture_path(fk->frames, RT_MAX_DEPTH, &truncated);
        int k = 0;
        while (k < n && fk->frames[k] != codeptr)
            k++;
        if (k == n) {
            o->unmatched++;
            k = 0;
        }
        for (int i = k; i < n; i++)
            fk->frames[i - k] = fk->frames[i];
        n -= k;
    }
    fk->n = n > 0 ? n : 0;
    fk->truncated = truncated;
    return fk->n;
}

/* The fork's node in the master's tree from its unwound path (fk, rewritten
 * in place): a fork inside another region's body continues that region's
 * path. */
static uint32_t rt_omp_fork_node(struct rt_thread *t, struct rt_omp_fork *fk)
{
    int truncated = fk->truncated;
    int n = fk->n > 0 ? rt_omp_path_fix(fk->frames, fk->n, RT_MAX_DEPTH, &truncated) : 0;
    fk->n = n;
    fk->truncated = truncated;
    return n > 0 ? rt_cct_insert(&t->cct, fk->frames, n, PRF_CCT_CALLSITE, truncated) : PRF_NONE;
}

static struct rt_omp_site *rt_omp_site(struct rt_omp_thread *o, uint32_t node)
{
    for (uint32_t i = (node * 2654435761u) & (RT_OMP_SITES - 1), k = 0; k < RT_OMP_SITES;
         k++, i = (i + 1) & (RT_OMP_SITES - 1)) {
        struct rt_omp_site *s = &o->sites[i];
        if (s->node == node)
            return s;
        if (s->node == PRF_NONE) {
            if (o->nsites + 1 >= RT_OMP_SITES)
                return NULL;
            o->nsites++;
            s->thread = o->thread;
            s->node = node;
            return s;
        }
    }
    return NULL;
}

static struct rt_omp_entry *rt_omp_entry(struct rt_omp_thread *o, const struct rt_omp_site *site)
{
    uint32_t h = (uint32_t)(((uintptr_t)site >> 4) * 2654435761u);
    for (uint32_t i = h & (RT_OMP_ENTRIES - 1), k = 0; k < RT_OMP_ENTRIES; k++, i = (i + 1) & (RT_OMP_ENTRIES - 1)) {
        struct rt_omp_entry *e = &o->entries[i];
        if (e->site == site)
            return e;
        if (!e->site) {
            if (o->nentries + 1 >= RT_OMP_ENTRIES)
                return NULL;
            o->nentries++;
            e->site = site;
            return e;
        }
    }
    return NULL;
}

/* ---- callbacks --------------------------------------------------------------- */

static void rt_omp_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                                  unsigned int requested, int flags, const void *codeptr)
{
    (void)task, (void)requested, (void)flags;
    uint64_t t0 = RT_OMP_T0();
    parallel->ptr = NULL;
    struct rt_omp_thread *o = rt_omp_me();
    struct rt_thread *t = rt_self;
    if (!o || !t || !t->cct.nodes)
        return;
    t->in_rt = 1; /* the sampler drops while the path is taken */
    struct rt_omp_fork fk;
    int n = rt_omp_fork_path(o, codeptr, frame, &fk);
    struct rt_omp_memo *m = &o->memos[(uint32_t)(((uintptr_t)codeptr >> 2) * 2654435761u) & (RT_OMP_MEMOS - 1)];
    struct rt_omp_site *s = NULL;
    if (n > 0 && m->site && m->codeptr == codeptr && m->n == n && m->truncated == fk.truncated &&
        m->gomp == rt_gomp_fork && m->ompt == rt_ompt_fork && !memcmp(m->frames, fk.frames, n * sizeof fk.frames[0])) {
        s = m->site;
        o->memo_hits++;
    } else {
        m->site = NULL;
        m->codeptr = codeptr, m->n = n, m->truncated = fk.truncated;
        m->gomp = rt_gomp_fork, m->ompt = rt_ompt_fork;
        memcpy(m->frames, fk.frames, (size_t)n * sizeof fk.frames[0]);
        uint32_t node = rt_omp_fork_node(t, &fk);
        s = node == PRF_NONE ? NULL : rt_omp_site(o, node);
        if (s && !s->fork.n) /* the same node, the same path: copied once, before it is published */
            s->fork = fk;
        m->site = s;
    }
    t->in_rt = 0;
    if (!s) {
        o->dropped++;
        return;
    }
    s->begin = rt_ticks();
    parallel->ptr = s;
    if (RT_UNLIKELY(rt_omp_timing)) {
        o->fork_calls++;
        o->fork_ticks += rt_ticks() - t0;
    }
    RT_OMP_TIMED(o, t0);
}

static void rt_omp_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
    (void)task, (void)flags, (void)codeptr;
    uint64_t t0 = RT_OMP_T0();
    struct rt_omp_site *s = parallel ? parallel->ptr : NULL;
    struct rt_omp_thread *o = s ? rt_omp_me() : NULL;
    if (!o)
        return;
    uint64_t now = rt_ticks();
    s->forks++;
    s->ticks += now - s->begin;
    __atomic_store_n(&s->end, now, __ATOMIC_RELEASE);
    RT_OMP_TIMED(o, t0);
}

static void rt_omp_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                                 unsigned int team, unsigned int index, int flags)
{
    (void)task;
    uint64_t t0 = RT_OMP_T0();
    if (endpoint != ompt_scope_begin || (flags & ompt_task_initial) || !parallel || !parallel->ptr)
        return;
    const struct rt_omp_site *site = parallel->ptr;
    rt_ompt_fork = site->fork.n > 0 ? &site->fork : NULL; /* this thread's paths continue it */
    struct rt_omp_thread *o = rt_omp_me();
    if (!o)
        return;
    struct rt_omp_entry *e = rt_omp_entry(o, parallel->ptr);
    o->cur = e;
    o->team_index = index;
    if (!e) {
        o->dropped++;
        return;
    }
    e->regions++;
    if (!e->team_min || team < e->team_min)
        e->team_min = team;
    if (team > e->team_max)
        e->team_max = team;
    RT_OMP_TIMED(o, t0);
}

/* A wait at the implicit barrier ending a region, from begin to now: a
 * thread other than the master is told it ended only as the next region
 * starts (libomp keeps it in the barrier while idle), so it is counted up to
 * the region's end on its master. */
static uint64_t rt_omp_end_wait(const struct rt_omp_thread *o, const struct rt_omp_entry *e, uint64_t now)
{
    if (o->team_index != 0) {
        uint64_t end = __atomic_load_n(&e->site->end, __ATOMIC_ACQUIRE);
        if (end < o->wait_begin)
            return 0;
        if (end < now)
            now = end;
    }
    return now - o->wait_begin;
}

static void rt_omp_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                             ompt_data_t *task, const void *codeptr)
{
    (void)parallel, (void)task, (void)codeptr;
    struct rt_omp_thread *o = rt_omp_me();
    if (!o)
        return;
    uint64_t now = rt_ticks();
    if (endpoint == ompt_scope_begin) {
        o->wait_begin = now;
        o->wait_kind = kind;
        RT_OMP_TIMED(o, now);
        return;
    }
    struct rt_omp_entry *e = o->cur;
    if (!o->wait_kind || !e) {
        o->wait_kind = 0;
        return;
    }
    switch (o->wait_kind) {
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_implicit: /* OpenMP 5.0's name for both implicit barriers */
    case ompt_sync_region_barrier_teams:
        e->end_wait += rt_omp_end_wait(o, e, now);
        break;
    case ompt_sync_region_taskwait:
    case ompt_sync_region_taskgroup:
    case ompt_sync_region_reduction:
        e->sync_wait += now - o->wait_begin;
        break;
    default: /* explicit, work-sharing, implementation barriers */
        e->barrier_wait += now - o->wait_begin;
        e->barriers++;
        break;
    }
    o->wait_kind = 0;
    RT_OMP_TIMED(o, now);
}

static void rt_omp_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                        uint64_t count, const void *codeptr)
{
    (void)parallel, (void)task, (void)codeptr;
    if (endpoint != ompt_scope_begin ||
        !(kind == ompt_work_loop || (kind >= ompt_work_loop_static && kind <= ompt_work_loop_other)))
        return;
    struct rt_omp_thread *o = rt_omp_me();
    if (o && o->cur) {
        o->cur->loops++;
        o->cur->iterations += count;
    }
}

/* ---- registration --------------------------------------------------------------- */

static int rt_omp_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = lookup ? (ompt_set_callback_t)lookup("ompt_set_callback") : NULL;
    static const struct { ompt_callbacks_t event; ompt_callback_t fn; int needed; } cb[] = {
        {ompt_callback_parallel_begin, (ompt_callback_t)rt_omp_parallel_begin, 1},
        {ompt_callback_parallel_end, (ompt_callback_t)rt_omp_parallel_end, 1},
        {ompt_callback_implicit_task, (ompt_callback_t)rt_omp_implicit_task, 1},
        {ompt_callback_sync_region_wait, (ompt_callback_t)rt_omp_sync_wait, 1},
        {ompt_callback_work, (ompt_callback_t)rt_omp_work, 0},
    };
    for (size_t i = 0; set && i < sizeof cb / sizeof cb[0]; i++) {
        ompt_set_result_t r = set(cb[i].event, cb[i].fn);
        if (cb[i].needed && (r == ompt_set_error || r == ompt_set_never)) {
            rt_omp_off = 1;
            rt_fail("ompt", "the OpenMP runtime refused OMPT callback %d: OpenMP regions are not measured",
                    (int)cb[i].event);
            return 0;
        }
    }
    if (!set) {
        rt_fail("ompt", "the OpenMP runtime has no ompt_set_callback: OpenMP regions are not measured");
        return 0;
    }
    rt_omp_timing = getenv("SCALANA_DEBUG") != NULL;
    return 1; /* the tool stays active */
}

static void rt_omp_finalize(ompt_data_t *data) { (void)data; }

/** Called by an OpenMP runtime with OMPT (LLVM's libomp) as it starts: the
 *  runtime's tool, unless SCALANA=off or SCALANA_OMPT=off (then NULL: no
 *  tool, the program runs as without the runtime). */
RT_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t tool = {rt_omp_initialize, rt_omp_finalize, {0}};
    if (rt_options_off() || rt_g.state == RT_REFUSED || rt_env_says_off("SCALANA_OMPT"))
        return NULL;
    return &tool;
}

/* ---- the profile ---------------------------------------------------------------- */

int rt_omp_encode(struct prf_rank_data *d, const uint32_t *base, uint32_t nthreads)
{
    struct rt_omp_thread *list = __atomic_load_n(&rt_omp_threads, __ATOMIC_ACQUIRE);
    if (!list)
        return 0;
    uint32_t n = 0;
    for (struct rt_omp_thread *o = list; o; o = o->next)
        n += o->nentries;
    d->omp = calloc(n ? n : 1, sizeof *d->omp);
    if (!d->omp)
        return -1;
    double f = rt_ns_per_tick();
    uint64_t now = rt_ticks();
    memset(&d->omp_info, 0, sizeof d->omp_info);
    d->omp_info.interface = PRF_OMP_OMPT;
    for (struct rt_omp_thread *o = list; o; o = o->next) {
        d->omp_info.dropped += o->dropped;
        d->omp_info.unmatched += o->unmatched;
        if (o->nentries)
            d->omp_info.threads++;
        /* a wait at a region's end still open: libomp ends it as the next region starts */
        uint64_t open = 0;
        if (o->cur && (o->wait_kind == ompt_sync_region_barrier_implicit_parallel ||
                       o->wait_kind == ompt_sync_region_barrier_implicit))
            open = rt_omp_end_wait(o, o->cur, now);
        for (uint32_t i = 0; i < RT_OMP_ENTRIES; i++) {
            const struct rt_omp_entry *e = &o->entries[i];
            const struct rt_omp_site *s = e->site;
            if (!s || !e->regions || s->thread >= nthreads || o->thread >= nthreads)
                continue;
            struct prf_omp_region *r = &d->omp[d->omp_count++];
            r->node = base[s->thread] + s->node;
            r->thread = o->thread;
            r->team_min = e->team_min;
            r->team_max = e->team_max;
            r->regions = e->regions;
            if (s->thread == o->thread) {
                r->forks = s->forks;
                r->time_ns = rt_ticks_to_ns(s->ticks, f);
            }
            r->end_wait_ns = rt_ticks_to_ns(e->end_wait + (e == o->cur ? open : 0), f);
            r->barrier_wait_ns = rt_ticks_to_ns(e->barrier_wait, f);
            r->barriers = e->barriers;
            r->sync_wait_ns = rt_ticks_to_ns(e->sync_wait, f);
            r->loops = e->loops;
            r->loop_iterations = e->iterations;
        }
    }
    d->omp_info.count = d->omp_count;
    d->has_omp = 1;
    if (rt_omp_timing) {
        uint64_t calls = 0, ticks = 0, forks = 0, fticks = 0, hits = 0;
        for (struct rt_omp_thread *o = list; o; o = o->next)
            calls += o->cb_calls, ticks += o->cb_ticks, forks += o->fork_calls, fticks += o->fork_ticks,
                hits += o->memo_hits;
        rt_log("debug: rank %u OMPT: %llu callbacks timed, %.0f ns each on average (%.6f s in all); "
               "%llu forks, %.0f ns each, %llu of them seen before",
               rt_g.world_rank, (unsigned long long)calls, calls ? ticks * f / calls : 0.0, ticks * f * 1e-9,
               (unsigned long long)forks, forks ? fticks * f / forks : 0.0, (unsigned long long)hits);
    }
    return 0;
}
#else /* built without omp-tools.h (libomp-19-dev): no tool, no record */
int rt_omp_encode(struct prf_rank_data *d, const uint32_t *base, uint32_t nthreads)
{
    (void)d, (void)base, (void)nthreads;
    return 0;
}
#endif
