/* rt_gomp.c — the fork calls of gcc's libgomp, which has no OMPT: each
 * interposed GOMP_parallel* takes the master's call path once per fork and
 * starts the team on a wrapper of the region's body that tells every thread
 * of the team (the master too) which fork it runs, for rt_omp_path.c.  The
 * arguments pass through unchanged; when the runtime is not on, or the path
 * cannot be taken, the real call gets the body itself.  The wrappers live in
 * a section of their own (scalana_omp_text), so that their frames can be
 * told apart and cut from every recorded path.  Not interposed: GCC's
 * pre-4.9 GOMP_parallel_start/_end pair, whose master runs the body outside
 * the call (its workers keep the context of the thread's start, as before).
 * SCALANA_GOMP=off passes every call through. */
#include "core/rt_core.h"
#include "callpath/rt_callpath.h"
#include "rt_threads.h"

#include <dlfcn.h>

#define RT_OMP_TEXT __attribute__((section("scalana_omp_text"), noinline))

struct rt_gomp_region {
    void (*fn)(void *);
    void *data;
    struct rt_omp_fork fork;
};

/* Runs the body on each thread of the team, inside its region's context.
 * The store after the call keeps it from becoming a tail call, whose frame
 * would be gone from the stack. */
static RT_OMP_TEXT void rt_gomp_body(void *p)
{
    struct rt_gomp_region *r = p;
    const struct rt_omp_fork *prev = rt_gomp_fork;
    rt_gomp_fork = &r->fork;
    r->fn(r->data);
    __atomic_store_n(&rt_gomp_fork, prev, __ATOMIC_RELAXED);
}

/* 1 when r is ready and the team should run rt_gomp_body(r). */
static int rt_gomp_prepare(struct rt_gomp_region *r, void (*fn)(void *), void *data)
{
    struct rt_thread *t = rt_self;
    if (rt_g.state != RT_ON || !rt_opt.gomp || !t || t->in_rt || t->depth > 0 || !t->cct.nodes)
        return 0;
    r->fn = fn;
    r->data = data;
    t->in_rt = 1; /* the sampler drops while the path is taken */
    r->fork.truncated = 0;
    int n = rt_capture_path(r->fork.frames, RT_MAX_DEPTH, &r->fork.truncated);
    r->fork.n = n > 0 ? rt_omp_path_fix(r->fork.frames, n, RT_MAX_DEPTH, &r->fork.truncated) : 0;
    t->in_rt = 0;
    return r->fork.n > 0;
}

/* The next definition of name (libgomp's), looked up once. */
static void *rt_gomp_real(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (RT_UNLIKELY(!f)) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    }
    return f;
}

#define RT_GOMP_REAL(type, name)                                                                   \
    static void *real_slot;                                                                        \
    type real = (type)rt_gomp_real(&real_slot, name)

typedef void (*rt_gomp_par_fn)(void (*)(void *), void *, unsigned, unsigned);
typedef unsigned (*rt_gomp_red_fn)(void (*)(void *), void *, unsigned, unsigned);
typedef void (*rt_gomp_loop_fn)(void (*)(void *), void *, unsigned, long, long, long, long, unsigned);
typedef void (*rt_gomp_rloop_fn)(void (*)(void *), void *, unsigned, long, long, long, unsigned);
typedef void (*rt_gomp_sect_fn)(void (*)(void *), void *, unsigned, unsigned, unsigned);

/* Without libgomp's definition (cannot happen in a program that calls it)
 * the body runs once, on the calling thread: a team of one. */
RT_EXPORT RT_OMP_TEXT void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
    RT_GOMP_REAL(rt_gomp_par_fn, "GOMP_parallel");
    struct rt_gomp_region r;
    if (!real)
        fn(data);
    else if (rt_gomp_prepare(&r, fn, data))
        real(rt_gomp_body, &r, nthreads, flags);
    else
        real(fn, data, nthreads, flags);
}

RT_EXPORT RT_OMP_TEXT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned nthreads,
                                                        unsigned flags)
{
    RT_GOMP_REAL(rt_gomp_red_fn, "GOMP_parallel_reductions");
    struct rt_gomp_region r;
    if (!real) {
        fn(data);
        return 1;
    }
    if (rt_gomp_prepare(&r, fn, data))
        return real(rt_gomp_body, &r, nthreads, flags);
    return real(fn, data, nthreads, flags);
}

RT_EXPORT RT_OMP_TEXT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads,
                                                  unsigned count, unsigned flags)
{
    RT_GOMP_REAL(rt_gomp_sect_fn, "GOMP_parallel_sections");
    struct rt_gomp_region r;
    if (!real)
        fn(data); /* never reached with libgomp loaded; sections need its GOMP_sections_next */
    else if (rt_gomp_prepare(&r, fn, data))
        real(rt_gomp_body, &r, nthreads, count, flags);
    else
        real(fn, data, nthreads, count, flags);
}

/* The combined parallel loops: the schedule's bounds pass through. */
#define RT_GOMP_LOOP(name)                                                                         \
    RT_EXPORT RT_OMP_TEXT void name(void (*fn)(void *), void *data, unsigned nthreads, long start, \
                                    long end, long incr, long chunk, unsigned flags)               \
    {                                                                                              \
        RT_GOMP_REAL(rt_gomp_loop_fn, #name);                                                      \
        struct rt_gomp_region r;                                                                   \
        if (!real)                                                                                 \
            fn(data);                                                                              \
        else if (rt_gomp_prepare(&r, fn, data))                                                    \
            real(rt_gomp_body, &r, nthreads, start, end, incr, chunk, flags);                      \
        else                                                                                       \
            real(fn, data, nthreads, start, end, incr, chunk, flags);                              \
    }
#define RT_GOMP_RLOOP(name)                                                                        \
    RT_EXPORT RT_OMP_TEXT void name(void (*fn)(void *), void *data, unsigned nthreads, long start, \
                                    long end, long incr, unsigned flags)                           \
    {                                                                                              \
        RT_GOMP_REAL(rt_gomp_rloop_fn, #name);                                                     \
        struct rt_gomp_region r;                                                                   \
        if (!real)                                                                                 \
            fn(data);                                                                              \
        else if (rt_gomp_prepare(&r, fn, data))                                                    \
            real(rt_gomp_body, &r, nthreads, start, end, incr, flags);                             \
        else                                                                                       \
            real(fn, data, nthreads, start, end, incr, flags);                                     \
    }

RT_GOMP_LOOP(GOMP_parallel_loop_static)
RT_GOMP_LOOP(GOMP_parallel_loop_dynamic)
RT_GOMP_LOOP(GOMP_parallel_loop_guided)
RT_GOMP_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
RT_GOMP_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
RT_GOMP_RLOOP(GOMP_parallel_loop_runtime)
RT_GOMP_RLOOP(GOMP_parallel_loop_nonmonotonic_runtime)
RT_GOMP_RLOOP(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
